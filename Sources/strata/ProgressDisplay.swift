import Foundation

/// Shows backup progress: a bar redrawn in place on a terminal, plain lines otherwise.
struct ProgressDisplay {
    /// Whether standard output is a terminal.
    let terminal: Bool
    /// Cells in the bar.
    static let width = 30

    /// One update: pages done of the total.
    func show(completed: Int64, total: Int64) {
        let text = Self.text(completed: completed, total: total)
        if terminal {
            let filled = total > 0 ? Int(completed * Int64(Self.width) / total) : 0
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled)
            // \r returns to the start of the line, ESC[K clears what a longer line left behind.
            write("\r[\(bar)] \(text)\u{1B}[K")
        } else {
            write("\(text)\n")
        }
    }

    /// A message between updates, on its own line.
    func note(_ message: String) {
        write("\(message)\n")
    }

    /// Ends the bar's line.
    func finish() {
        if terminal { write("\n") }
    }

    /// `37/120 pages (30%)`.
    static func text(completed: Int64, total: Int64) -> String {
        let percent = total > 0 ? completed * 100 / total : 0
        return "\(completed)/\(total) pages (\(percent)%)"
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
