import Foundation
import Strata

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

    static func string(_ text: String) -> String { JSONText.quoted(text) }
}
