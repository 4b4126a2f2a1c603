import Foundation

/// An aligned table with a header row and a rule; numbers right-aligned, NULL shown as `NULL`.
/// It holds every row, since column widths depend on all of them.
struct TableWriter: RowWriter {
    let columns: [String]
    let output: (String) -> Void
    private var rows: [[(text: String, rightAligned: Bool)]] = []

    init(columns: [String], output: @escaping (String) -> Void) {
        self.columns = columns
        self.output = output
    }

    mutating func write(_ values: [Any?]) {
        rows.append(
            values.map { value in
                switch value {
                case nil: return ("NULL", false)
                case let value as Int64: return (String(value), true)
                case let value as Double: return (ValueText.real(value), true)
                case let value as String: return (ValueText.singleLine(value), false)
                case let value as Data: return (ValueText.blobHex(value), false)
                case let value?: return ("\(value)", false)
                }
            })
    }

    mutating func finish() {
        guard !columns.isEmpty else { return }
        var widths = columns.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.text.count)
            }
        }
        func line(_ cells: [(text: String, rightAligned: Bool)]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.text.count))
                return cell.rightAligned ? padding + cell.text : cell.text + padding
            }.joined(separator: "  ").trailingSpacesRemoved()
        }
        output(line(columns.map { ($0, false) }) + "\n")
        output(line(widths.map { (String(repeating: "-", count: $0), false) }) + "\n")
        rows.forEach { output(line($0) + "\n") }
    }
}
