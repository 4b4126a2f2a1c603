import Foundation
import Strata

/// RFC 4180: a header row, CRLF line ends, a field quoted only when it holds a comma, a quote,
/// CR or LF (inner quotes doubled). NULL is an empty field; a blob is base64.
struct CSVWriter: RowWriter {
    let output: (String) -> Void

    init(columns: [String], output: @escaping (String) -> Void) {
        self.output = output
        if !columns.isEmpty { output(columns.map(Self.field).joined(separator: ",") + "\r\n") }
    }

    mutating func write(_ values: [Any?]) {
        output(
            values.map { value in
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
        // A byte scan: the four characters are ASCII, and UTF-8 never reuses ASCII bytes.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }) else {
            return text
        }
        return quoted(text, by: UInt8(ascii: "\""))
    }
}
