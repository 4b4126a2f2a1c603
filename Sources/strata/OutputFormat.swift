import ArgumentParser
import Foundation

/// How `strata query` prints rows (writers get raw text to print, line ends included). Values arrive in SQift's `Any?` form (`Row.value(at:)`):
/// `Int64`, `Double`, `String`, `Data` or nil, one per storage class.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json

    /// A writer for rows with these column names.
    func writer(columns: [String], output: @escaping (String) -> Void) -> any RowWriter {
        switch self {
        case .table: return TableWriter(columns: columns, output: output)
        case .csv: return CSVWriter(columns: columns, output: output)
        case .json: return JSONWriter(columns: columns, output: output)
        }
    }
}

/// Receives rows one at a time and writes them in one format.
protocol RowWriter {
    mutating func write(_ values: [Any?])
    mutating func finish()
}

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
        rows.append(values.map { value in
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

/// RFC 4180: a header row, CRLF line ends, a field quoted only when it holds a comma, a quote,
/// CR or LF (inner quotes doubled). NULL is an empty field; a blob is base64.
struct CSVWriter: RowWriter {
    let output: (String) -> Void

    init(columns: [String], output: @escaping (String) -> Void) {
        self.output = output
        if !columns.isEmpty { output(columns.map(Self.field).joined(separator: ",") + "\r\n") }
    }

    mutating func write(_ values: [Any?]) {
        output(values.map { value in
            switch value {
            case nil: return ""
            case let value as Int64: return String(value)
            case let value as Double: return ValueText.real(value)
            case let value as String: return Self.field(value)
            case let value as Data: return value.base64EncodedString()
            case let value?: return Self.field("\(value)")
            }
        }.joined(separator: ",") + "\r\n")
    }

    mutating func finish() {}

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// An array of objects keyed by column name, one object per line: integers and reals as numbers,
/// text as strings, NULL as `null`, blobs as base64 strings.
struct JSONWriter: RowWriter {
    let keys: [String]
    let output: (String) -> Void
    private var count = 0

    init(columns: [String], output: @escaping (String) -> Void) {
        self.keys = columns.map(Self.string)
        self.output = output
    }

    mutating func write(_ values: [Any?]) {
        let members = zip(keys, values).map { key, value in "\(key): \(Self.value(value))" }
        output((count == 0 ? "[\n  {" : ",\n  {") + members.joined(separator: ", ") + "}")
        count += 1
    }

    mutating func finish() {
        output(count == 0 ? "[]\n" : "\n]\n")
    }

    static func value(_ value: Any?) -> String {
        switch value {
        case nil: return "null"
        case let value as Int64: return String(value)
        case let value as Double:
            // JSON has no infinity; SQLite's own json() writes it as an overflowing literal.
            if value.isInfinite { return value < 0 ? "-9e999" : "9e999" }
            return value.isNaN ? "null" : ValueText.real(value)
        case let value as String: return string(value)
        case let value as Data: return string(value.base64EncodedString())
        case let value?: return string("\(value)")
        }
    }

    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// Text forms shared by the writers.
enum ValueText {
    /// A real as Swift prints it (`2.5`, `100.0`, `1e-07`): the shortest text that reads back
    /// as the same `Double`.
    static func real(_ value: Double) -> String {
        if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
        return "\(value)"
    }

    /// Text with line breaks and tabs escaped, so a table row stays one line.
    static func singleLine(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0 == "\t" }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\r\\n")
            .replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
            .replacingOccurrences(of: "\t", with: "\\t")
    }

    /// A blob as an SQL hex literal, cut after 32 bytes.
    static func blobHex(_ data: Data) -> String {
        let hex = data.prefix(32).map { String(format: "%02X", $0) }.joined()
        return "x'\(hex)'" + (data.count > 32 ? "… (\(data.count) bytes)" : "")
    }
}

extension String {
    func trailingSpacesRemoved() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
