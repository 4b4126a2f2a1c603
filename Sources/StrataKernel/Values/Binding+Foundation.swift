import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension String: Binding {
    public typealias BindingType = String
    public var bindingValue: BindingValue { .text(self) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindText(self, to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> String? { value as? String }

    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> String? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// TEXT only (SQift's rule): INTEGER, REAL and BLOB read as nil.
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> String? {
        type == SQLITE_TEXT ? readText(value) : nil
    }
}

/// Squeal bound `NSData` as a BLOB too; code written for it passes `NSData` as a parameter.
extension NSData: Bindable {
    public var bindingValue: BindingValue { .blob(self as Data) }
}

extension Data: Binding {
    public typealias BindingType = Data
    public var bindingValue: BindingValue { .blob(self) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindBlob(self, to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> Data? { value as? Data }

    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Data? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// BLOB only (SQift's rule); a zero-length blob reads as `Data()`, TEXT as nil.
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Data? {
        type == SQLITE_BLOB ? readBlob(value) : nil
    }
}

extension URL: Binding {
    public typealias BindingType = String
    public var bindingValue: BindingValue { .text(absoluteString) }

    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindText(absoluteString, to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> URL? {
        (value as? String).flatMap { URL(string: $0) }
    }

    /// TEXT only (SQift's rule).
    public static func extract(from value: SQLiteValueHandle) -> URL? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    public static func extract(from value: SQLiteValueHandle, type: Int32) -> URL? {
        type == SQLITE_TEXT ? URL(string: readText(value)) : nil
    }
}

extension Date: Binding {
    public typealias BindingType = String
    /// The date as text in `bindingDateFormatter`'s format; NULL for a date outside years 0000
    /// to 9999, which the query builders then report as ``DateOutOfRangeError``.
    public var bindingValue: BindingValue { (try? BindingDateFormat.string(from: self)).map(BindingValue.text) ?? .null }

    /// - Throws: ``DateOutOfRangeError`` for a date outside years 0000 to 9999 (default format).
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindText(try BindingDateFormat.string(from: self), to: statement, at: index)
    }

    public static func fromBindingValue(_ value: Any) -> Date? {
        (value as? String).flatMap { BindingDateFormat.date(from: $0) }
    }

    public static func extract(from value: SQLiteValueHandle) -> Date? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Date? {
        guard type == SQLITE_TEXT,
            let pointer = sqlite3_value_text(value)
        else { return nil }
        let buffer = UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value)))
        return BindingDateFormat.date(fromUTF8: buffer)
    }
}

extension Date: EncodingCheckedBinding {
    /// ``DateOutOfRangeError`` for a date the default format cannot write, else nil.
    package var encodingError: (any Error)? {
        do { _ = try BindingDateFormat.string(from: self) } catch { return error }
        return nil
    }
}
