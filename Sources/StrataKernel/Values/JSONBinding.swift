import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A `Codable` value stored as JSON text, which SQLite's JSON functions can read.
///
/// ```swift
/// try db.run("INSERT INTO t(j) VALUES (?)", JSONBinding(["a", "b"]))
/// let back: JSONBinding<[String]>? = try db.query("SELECT j FROM t")   // back?.value == ["a", "b"]
/// let first: String? = try db.query("SELECT json_extract(j, '$[0]') FROM t")
/// ```
/// Unlike `CodableBinding`, whose property-list BLOB SQL cannot look into, the value is written
/// with `JSONEncoder` (keys sorted, Foundation's default strategies) and bound as TEXT. It reads
/// back from TEXT, or from a BLOB that holds JSON's UTF-8 bytes; any other value, or JSON that
/// does not decode as `Value`, reads as nil.
public struct JSONBinding<Value: Codable>: Binding {
    /// Reads go through ``extract(from:)``, which also accepts a BLOB.
    public typealias BindingType = String

    /// The wrapped value.
    public var value: Value

    /// Wraps `value` for binding as JSON text.
    public init(_ value: Value) {
        self.value = value
    }

    /// The JSON text, or `.null` when encoding fails (binding the value throws instead).
    public var bindingValue: BindingValue {
        (try? Self.encode(value)).map(BindingValue.text) ?? .null
    }

    /// Encodes the value and binds the JSON as TEXT.
    /// - Throws: `EncodingError` when the value cannot be encoded (a non-finite `Double`, say).
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindText(try Self.encode(value), to: statement, at: index)
    }

    /// Decodes JSON from a `String` or from `Data`; nil for anything else or undecodable JSON.
    public static func fromBindingValue(_ value: Any) -> JSONBinding<Value>? {
        switch value {
        case let text as String: return decode(Data(text.utf8))
        case let data as Data: return decode(data)
        default: return nil
        }
    }

    /// Decodes a TEXT or BLOB column; nil for any other storage class or undecodable JSON.
    public static func extract(from value: SQLiteValueHandle) -> JSONBinding<Value>? {
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT: return decode(Data(readText(value).utf8))
        case SQLITE_BLOB: return decode(readBlob(value))
        default: return nil
        }
    }

    static func encode(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        // Sorted keys: the same value always writes the same text, so equal values compare equal in SQL.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func decode(_ data: Data) -> JSONBinding<Value>? {
        guard let value = try? JSONDecoder().decode(Value.self, from: data) else { return nil }
        return JSONBinding(value)
    }
}

extension JSONBinding: EncodingCheckedBinding {
    /// The encoder's error for a value JSON cannot hold (a non-finite `Double`), else nil.
    package var encodingError: (any Error)? {
        do { _ = try Self.encode(value) } catch { return error }
        return nil
    }
}

extension JSONBinding: Equatable where Value: Equatable {}
extension JSONBinding: Hashable where Value: Hashable {}
extension JSONBinding: Sendable where Value: Sendable {}
