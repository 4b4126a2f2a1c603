import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A `Codable` type stored as a binary property list BLOB, with no binding code of its own.
///
/// ```swift
/// struct Employee: CodableBinding { let id: Int64; let firstName: String }
/// try connection.run("INSERT INTO employees(employee) VALUES(?)", phil)
/// let employee: Employee? = try connection.query("SELECT employee FROM employees WHERE id = 1")
/// ```
/// The contents cannot be queried in SQL; use columns for anything you filter or sort on.
public protocol CodableBinding: Codable, Binding where BindingType == Data, DataType == Self {}

extension CodableBinding {
    /// The encoded value, or `.null` if encoding fails (binding the value throws instead).
    public var bindingValue: BindingValue {
        (try? CodableBindingCoder.encode(self)).map(BindingValue.blob) ?? .null
    }

    /// Encodes the value and binds the bytes as a BLOB.
    /// - Throws: The encoder's error when the value cannot be encoded.
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindBlob(try CodableBindingCoder.encode(self), to: statement, at: index)
    }

    /// Decodes a BLOB column into the value, or returns nil for another storage class or undecodable bytes.
    public static func fromBindingValue(_ value: Any) -> Self? {
        guard let data = value as? Data else { return nil }
        return try? CodableBindingCoder.decode(Self.self, from: data)
    }
}

/// The coder CodableBinding uses: binary property lists, as SQift stores them.
enum CodableBindingCoder {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try PropertyListDecoder().decode(type, from: data)
    }
}

/// An array of `Codable` elements stored as one BLOB.
///
/// ```swift
/// let points: ArrayBinding = [CGPoint(x: 1, y: 2), CGPoint(x: 3, y: 4)]
/// try connection.run("INSERT INTO stream(data) VALUES(?)", points)
/// ```
public struct ArrayBinding<Element: Codable>: CodableBinding, ExpressibleByArrayLiteral {
    /// The array stored in the BLOB.
    public let elements: [Element]
    /// Wraps an array for binding.
    public init(elements: [Element]) { self.elements = elements }
    /// Wraps the listed elements, in order.
    public init(arrayLiteral elements: Element...) { self.elements = elements }
}

/// A set of `Codable` elements stored as one BLOB.
public struct SetBinding<Element: Hashable & Codable>: CodableBinding, ExpressibleByArrayLiteral {
    /// The set stored in the BLOB.
    public let elements: Set<Element>
    /// Wraps a set for binding.
    public init(elements: Set<Element>) { self.elements = elements }
    /// Wraps the listed elements; duplicates collapse.
    public init(arrayLiteral elements: Element...) { self.elements = Set(elements) }
}

/// A dictionary of `Codable` keys and values stored as one BLOB.
public struct DictionaryBinding<Key: Hashable & Codable, Value: Codable>: CodableBinding, ExpressibleByDictionaryLiteral {
    /// The dictionary stored in the BLOB.
    public let elements: [Key: Value]
    /// Wraps a dictionary for binding.
    public init(elements: [Key: Value]) { self.elements = elements }
    /// Wraps the listed pairs; for a repeated key the last value wins.
    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.elements = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }
}

extension ArrayBinding: Equatable where Element: Equatable {}
extension ArrayBinding: Sendable where Element: Sendable {}
extension SetBinding: Equatable {}
extension SetBinding: Sendable where Element: Sendable {}
extension DictionaryBinding: Equatable where Value: Equatable {}
extension DictionaryBinding: Sendable where Key: Sendable, Value: Sendable {}
