import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Signed integers and the narrow unsigned ones convert exactly: a value out of range reads as nil.
public protocol ExactIntegerBinding: Binding, FixedWidthInteger where DataType == Self, BindingType == Int64 {}

extension ExactIntegerBinding {
    public var bindingValue: BindingValue { .integer(Int64(self)) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }

    /// An `Int64` that fits; anything else (another storage class, out of range) is nil.
    public static func fromBindingValue(_ value: Any) -> Self? {
        (value as? Int64).flatMap { Self(exactly: $0) }
    }

    /// Reads an INTEGER column that fits the type; nil for another storage class or out of range.
    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Self? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// INTEGER only (SQift's rule): REAL, TEXT and BLOB read as nil, never converted.
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Self? {
        type == SQLITE_INTEGER ? Self(exactly: sqlite3_value_int64(value)) : nil
    }
}

extension Int: ExactIntegerBinding { public typealias BindingType = Int64 }
extension Int8: ExactIntegerBinding { public typealias BindingType = Int64 }
extension Int16: ExactIntegerBinding { public typealias BindingType = Int64 }
extension Int32: ExactIntegerBinding { public typealias BindingType = Int64 }
extension Int64: ExactIntegerBinding { public typealias BindingType = Int64 }
extension UInt8: ExactIntegerBinding { public typealias BindingType = Int64 }
extension UInt16: ExactIntegerBinding { public typealias BindingType = Int64 }
extension UInt32: ExactIntegerBinding { public typealias BindingType = Int64 }

/// `UInt64` and `UInt` are stored by bit pattern, as in SQift: `UInt64.max` is stored as -1 and
/// reads back as `UInt64.max`. Order and compare them in Swift, not in SQL.
public protocol BitPatternIntegerBinding: Binding, FixedWidthInteger where DataType == Self, BindingType == Int64 {
    /// Recreates the value from the 64-bit pattern it was stored as.
    init(bitPattern: Int64)
}

extension BitPatternIntegerBinding {
    /// The value's bit pattern as an INTEGER (`UInt64.max` becomes -1).
    public var bindingValue: BindingValue { .integer(Int64(truncatingIfNeeded: self)) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(truncatingIfNeeded: self))
    }

    /// An `Int64`, reinterpreted bit for bit (-1 reads as `max`); anything else is nil.
    public static func fromBindingValue(_ value: Any) -> Self? {
        (value as? Int64).map { Self(bitPattern: $0) }
    }

    /// Reads an INTEGER column by bit pattern; nil for another storage class.
    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Self? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// INTEGER only (SQift's rule).
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Self? {
        type == SQLITE_INTEGER ? Self(bitPattern: sqlite3_value_int64(value)) : nil
    }
}

extension UInt64: BitPatternIntegerBinding { public typealias BindingType = Int64 }
extension UInt: BitPatternIntegerBinding {
    public typealias BindingType = Int64
    public init(bitPattern: Int64) { self.init(UInt64(bitPattern: bitPattern)) }
}

extension Bool: Binding {
    public typealias BindingType = Int64
    public var bindingValue: BindingValue { .integer(self ? 1 : 0) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }

    public static func fromBindingValue(_ value: Any) -> Bool? {
        (value as? Int64).map { $0 != 0 }
    }

    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Bool? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// INTEGER only (SQift's rule): nonzero is true.
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Bool? {
        type == SQLITE_INTEGER ? sqlite3_value_int64(value) != 0 : nil
    }
}

extension Double: Binding {
    public typealias BindingType = Double
    public var bindingValue: BindingValue { .real(self) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }

    public static func fromBindingValue(_ value: Any) -> Double? { (value as? Double) ?? (value as? Int64).map(Double.init) }

    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Double? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// REAL, or INTEGER converted as SQLite converts it (exact up to 2^53), so a NUMERIC or
    /// DECIMAL column that stored `32.00` as the integer 32 still reads as `32.0`. SQift reads nil
    /// there; TEXT and BLOB still read as nil.
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Double? {
        type == SQLITE_FLOAT || type == SQLITE_INTEGER ? sqlite3_value_double(value) : nil
    }
}

extension Float: Binding {
    public typealias BindingType = Double
    public var bindingValue: BindingValue { .real(Double(self)) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_double(statement, index, Double(self))
    }

    public static func fromBindingValue(_ value: Any) -> Float? { Double.fromBindingValue(value).map(Float.init) }

    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Float? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// REAL, or INTEGER converted as SQLite converts it (see `Double`'s rule).
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Float? {
        type == SQLITE_FLOAT || type == SQLITE_INTEGER ? Float(sqlite3_value_double(value)) : nil
    }
}
