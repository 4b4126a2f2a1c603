import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A value stored as an SQLite INTEGER. Conforming protocols give the one conversion each way;
/// binding, SQift's `Any` form and reading (INTEGER only, SQift's rule: REAL, TEXT and BLOB read
/// as nil, never converted) follow from it, written once here.
public protocol Int64Representable: Binding where DataType == Self, BindingType == Int64 {
    /// The INTEGER the value is stored as.
    var int64Representation: Int64 { get }
    /// The value a stored INTEGER reads as, or nil when it does not convert.
    init?(int64Representation: Int64)
}

extension Int64Representable {
    public var bindingValue: BindingValue { .integer(int64Representation) }

    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, int64Representation)
    }

    /// An `Int64` that converts; anything else is nil.
    public static func fromBindingValue(_ value: Any) -> Self? {
        (value as? Int64).flatMap { Self(int64Representation: $0) }
    }

    /// Reads an INTEGER column that converts; nil for another storage class.
    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> Self? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// INTEGER only (SQift's rule).
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Self? {
        type == SQLITE_INTEGER ? Self(int64Representation: sqlite3_value_int64(value)) : nil
    }
}

/// Signed integers and the narrow unsigned ones convert exactly: a value out of range reads as nil.
public protocol ExactIntegerBinding: Int64Representable, FixedWidthInteger {}

extension ExactIntegerBinding {
    /// The value, widened.
    @inlinable public var int64Representation: Int64 { Int64(self) }
    /// The value when it fits the type; nil out of range.
    @inlinable public init?(int64Representation value: Int64) { self.init(exactly: value) }
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
public protocol BitPatternIntegerBinding: Int64Representable, FixedWidthInteger {
    /// Recreates the value from the 64-bit pattern it was stored as.
    init(bitPattern: Int64)
}

extension BitPatternIntegerBinding {
    /// The value's bit pattern (`UInt64.max` is -1).
    @inlinable public var int64Representation: Int64 { Int64(truncatingIfNeeded: self) }
    /// The value of that bit pattern: every INTEGER converts.
    @inlinable public init?(int64Representation value: Int64) { self.init(bitPattern: value) }
}

extension UInt64: BitPatternIntegerBinding { public typealias BindingType = Int64 }
extension UInt: BitPatternIntegerBinding {
    public typealias BindingType = Int64
    public init(bitPattern: Int64) { self.init(UInt64(bitPattern: bitPattern)) }
}

/// Stored as 1 or 0; any nonzero INTEGER reads as true.
extension Bool: Int64Representable {
    public typealias BindingType = Int64
    /// 1 or 0.
    @inlinable public var int64Representation: Int64 { self ? 1 : 0 }
    /// True for any nonzero value.
    @inlinable public init?(int64Representation value: Int64) { self = value != 0 }
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
