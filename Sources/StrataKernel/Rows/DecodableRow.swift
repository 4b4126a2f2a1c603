import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A `Decodable` model fetched with the same `query` calls as an `ExpressibleByRow` one: each
/// coding key is matched to the column of the same name.
///
/// ```swift
/// struct Car: DecodableRow { let name: String; let price: Int; let note: String? }
/// let cars: [Car] = try db.query("SELECT name, price, note FROM cars")
/// ```
/// A missing column throws `DecodingError.keyNotFound`, NULL for a non-optional property
/// `valueNotFound`, and a value that does not convert `typeMismatch`. Properties decode through
/// `Extractable`, so any `Binding` type (dates, URLs, Codable bindings...) works as a property.
/// Column indexes come from the statement's name table, built once per statement.
public protocol DecodableRow: ExpressibleByRow, Decodable {}

extension DecodableRow {
    /// Decodes the value from the row, one coding key per column name.
    /// - Throws: `DecodingError` when a column is missing or its value does not fit the property.
    public init(row: Row) throws {
        try self.init(from: RowDecoder(row: row))
    }
}

/// Decodes one row: a keyed container over its columns.
struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedContainer<Key>(statement: row.statement))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "A row decodes as a keyed container (one key per column), not an unkeyed one."))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: [], debugDescription: "A row decodes as a keyed container (one key per column), not a single value."))
    }
}

struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let statement: Statement
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { statement.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { statement.prepared.columnIndex(forName: key.stringValue) != nil }

    @inline(__always)
    private func index(for key: Key) throws -> Int32 {
        guard let index = statement.prepared.columnIndex(forName: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: [key], debugDescription: "No column named '\(key.stringValue)' in the row; columns are \(statement.columnNames)."))
        }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = statement.prepared.columnIndex(forName: key.stringValue) else { return true }
        return sqlite3_column_type(statement.handle, index) == SQLITE_NULL
    }

    @inline(__always)
    private func extract<T: Extractable>(_ type: T.Type, forKey key: Key) throws -> T where T.DataType == T {
        let index = try index(for: key)
        guard let value = sqlite3_column_value(statement.handle, index), sqlite3_value_type(value) != SQLITE_NULL else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: [key], debugDescription: "Column '\(key.stringValue)' is NULL."))
        }
        guard let result = T.extract(from: value) else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "Column '\(key.stringValue)' does not convert to \(T.self)."))
        }
        return result
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try extract(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try extract(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try extract(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try extract(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try extract(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try extract(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try extract(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try extract(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try extract(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try extract(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try extract(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try extract(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try extract(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try extract(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let extractable = T.self as? any Extractable.Type {
            return try decodeExtractable(extractable, forKey: key)
        }
        throw DecodingError.typeMismatch(
            T.self,
            .init(
                codingPath: [key],
                debugDescription: "\(T.self) is not Extractable; conform it to Binding (or CodableBinding) to read it from column '\(key.stringValue)'."))
    }

    private func decodeExtractable<T, E: Extractable>(_ type: E.Type, forKey key: Key) throws -> T {
        let index = try index(for: key)
        guard let value = sqlite3_column_value(statement.handle, index), sqlite3_value_type(value) != SQLITE_NULL else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: [key], debugDescription: "Column '\(key.stringValue)' is NULL."))
        }
        guard let result = E.extract(from: value) as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "Column '\(key.stringValue)' does not convert to \(T.self)."))
        }
        return result
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(
            [String: Any].self,
            .init(codingPath: [key], debugDescription: "Nested containers are not supported in a row; store nested values with CodableBinding."))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [key], debugDescription: "Nested containers are not supported in a row; store arrays with ArrayBinding."))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: Row(statement: statement)) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: Row(statement: statement)) }
}
