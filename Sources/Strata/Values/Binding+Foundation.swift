import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension String: Binding {
    public typealias BindingType = String
    public var bindingValue: BindingValue { .text(self) }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        bindText(self, to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> String? {
        switch value {
        case let value as String: return value
        case let value as Int64: return String(value)
        case let value as Double: return String(value)
        default: return nil
        }
    }

    /// TEXT reads as is, INTEGER and REAL as SQLite renders them; BLOB gives nil.
    @inlinable
    public static func extract(from value: OpaquePointer) -> String? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    @inlinable
    public static func extract(from value: OpaquePointer, type: Int32) -> String? {
        type == SQLITE_BLOB ? nil : readText(value)
    }
}

extension Data: Binding {
    public typealias BindingType = Data
    public var bindingValue: BindingValue { .blob(self) }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        bindBlob(self, to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> Data? {
        switch value {
        case let value as Data: return value
        case let value as String: return Data(value.utf8)
        default: return nil
        }
    }

    /// BLOB reads as is (a zero-length blob as `Data()`), TEXT as its UTF-8 bytes.
    @inlinable
    public static func extract(from value: OpaquePointer) -> Data? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    @inlinable
    public static func extract(from value: OpaquePointer, type: Int32) -> Data? {
        switch type {
        case SQLITE_BLOB, SQLITE_TEXT: return readBlob(value)
        default: return nil
        }
    }
}

extension URL: Binding {
    public typealias BindingType = String
    public var bindingValue: BindingValue { .text(absoluteString) }

    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        bindText(absoluteString, to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> URL? {
        (value as? String).flatMap { URL(string: $0) }
    }

    public static func extract(from value: OpaquePointer) -> URL? {
        sqlite3_value_type(value) == SQLITE_TEXT ? URL(string: readText(value)) : nil
    }
}

extension Date: Binding {
    public typealias BindingType = String
    /// The date as text in `bindingDateFormatter`'s format.
    public var bindingValue: BindingValue { .text(BindingDateFormat.string(from: self)) }

    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        bindText(BindingDateFormat.string(from: self), to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> Date? {
        (value as? String).flatMap { BindingDateFormat.date(from: $0) }
    }

    public static func extract(from value: OpaquePointer) -> Date? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    public static func extract(from value: OpaquePointer, type: Int32) -> Date? {
        guard type == SQLITE_TEXT,
              let pointer = sqlite3_value_text(value) else { return nil }
        let buffer = UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value)))
        return BindingDateFormat.date(fromUTF8: buffer)
    }
}
