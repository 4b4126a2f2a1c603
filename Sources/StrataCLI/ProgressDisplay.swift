import Foundation
import Strata

/// Shows backup progress: a bar redrawn in place on a terminal, plain lines otherwise.
struct ProgressDisplay {
    /// Whether standard output is a terminal.
    let terminal: Bool
    /// Cells in the bar.
    static let width = 30

    /// One update: pages done of the total.
    func show(completed: Int64, total: Int64) {
        write(Self.update(completed: completed, total: total, terminal: terminal))
    }

    /// A message between updates, on its own line.
    func note(_ message: String) {
        write("\(message)\n")
    }

    /// Ends the bar's line.
    func finish() {
        if terminal { write("\n") }
    }

    /// What one update writes: the bar and the text on a terminal, the text on a line otherwise.
    static func update(completed: Int64, total: Int64, terminal: Bool) -> String {
        let text = text(completed: completed, total: total)
        guard terminal else { return "\(text)\n" }
        let bar = BackupPageCount(completed: completed, total: total).bar(width: width)
        // \r returns to the start of the line, ESC[K clears what a longer line left behind.
        return "\r[\(bar)] \(text)\u{1B}[K"
    }

    /// `37/120 pages (30%)`, with the counts clamped as the bar's are.
    static func text(completed: Int64, total: Int64) -> String {
        let count = BackupPageCount(completed: completed, total: total)
        let shown = count.clamped
        return "\(shown.completed)/\(shown.total) pages (\(count.scaled(to: 100))%)"
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
