import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Reads a value as Int64 following SQLite's conversions (REAL truncates toward zero, integer-looking
/// TEXT parses); BLOB and non-numeric TEXT give nil instead of SQLite's silent 0.
@inlinable
func extractInt64(_ value: OpaquePointer) -> Int64? {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return sqlite3_value_int64(value)
    case SQLITE_FLOAT: return int64Truncating(sqlite3_value_double(value))
    case SQLITE_TEXT: return Int64(readText(value).trimmingCharacters(in: .whitespaces))
    default: return nil
    }
}

/// The `Any` form of `extractInt64`.
@usableFromInline
func int64(fromAny value: Any) -> Int64? {
    switch value {
    case let value as Int64: return value
    case let value as Double: return int64Truncating(value)
    case let value as String: return Int64(value.trimmingCharacters(in: .whitespaces))
    case let value as Int: return Int64(value)
    case let value as Bool: return value ? 1 : 0
    default: return nil
    }
}

/// Reads a value as Double; INTEGER widens, numeric TEXT parses, BLOB gives nil.
@inlinable
func extractDouble(_ value: OpaquePointer) -> Double? {
    switch sqlite3_value_type(value) {
    case SQLITE_FLOAT: return sqlite3_value_double(value)
    case SQLITE_INTEGER: return Double(sqlite3_value_int64(value))
    case SQLITE_TEXT: return Double(readText(value).trimmingCharacters(in: .whitespaces))
    default: return nil
    }
}

@usableFromInline
func double(fromAny value: Any) -> Double? {
    switch value {
    case let value as Double: return value
    case let value as Int64: return Double(value)
    case let value as String: return Double(value.trimmingCharacters(in: .whitespaces))
    case let value as Float: return Double(value)
    default: return nil
    }
}

/// Signed integers and the narrow unsigned ones convert exactly: a value out of range reads as nil.
public protocol ExactIntegerBinding: Binding, FixedWidthInteger where DataType == Self, BindingType == Int64 {}

extension ExactIntegerBinding {
    public var bindingValue: BindingValue { .integer(Int64(self)) }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }

    public static func fromBindingValue(_ value: Any) -> Self? {
        int64(fromAny: value).flatMap { Self(exactly: $0) }
    }

    @inlinable
    public static func extract(from value: OpaquePointer) -> Self? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    @inlinable
    public static func extract(from value: OpaquePointer, type: Int32) -> Self? {
        if type == SQLITE_INTEGER { return Self(exactly: sqlite3_value_int64(value)) }
        return extractInt64(value).flatMap { Self(exactly: $0) }
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
    init(bitPattern: Int64)
}

extension BitPatternIntegerBinding {
    public var bindingValue: BindingValue { .integer(Int64(truncatingIfNeeded: self)) }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(truncatingIfNeeded: self))
    }

    public static func fromBindingValue(_ value: Any) -> Self? {
        int64(fromAny: value).map { Self(bitPattern: $0) }
    }

    @inlinable
    public static func extract(from value: OpaquePointer) -> Self? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    @inlinable
    public static func extract(from value: OpaquePointer, type: Int32) -> Self? {
        if type == SQLITE_INTEGER { return Self(bitPattern: sqlite3_value_int64(value)) }
        return extractInt64(value).map { Self(bitPattern: $0) }
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
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }

    public static func fromBindingValue(_ value: Any) -> Bool? {
        if let value = value as? Bool { return value }
        return int64(fromAny: value).map { $0 != 0 }
    }

    @inlinable
    public static func extract(from value: OpaquePointer) -> Bool? {
        if sqlite3_value_type(value) == SQLITE_INTEGER { return sqlite3_value_int64(value) != 0 }
        return extractDouble(value).map { $0 != 0 }
    }
}

extension Double: Binding {
    public typealias BindingType = Double
    public var bindingValue: BindingValue { .real(self) }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }

    public static func fromBindingValue(_ value: Any) -> Double? { double(fromAny: value) }

    @inlinable
    public static func extract(from value: OpaquePointer) -> Double? { extractDouble(value) }

    @inlinable
    public static func extract(from value: OpaquePointer, type: Int32) -> Double? {
        type == SQLITE_FLOAT ? sqlite3_value_double(value) : extractDouble(value)
    }
}

extension Float: Binding {
    public typealias BindingType = Double
    public var bindingValue: BindingValue { .real(Double(self)) }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        sqlite3_bind_double(statement, index, Double(self))
    }

    public static func fromBindingValue(_ value: Any) -> Float? { double(fromAny: value).map(Float.init) }

    @inlinable
    public static func extract(from value: OpaquePointer) -> Float? { extractDouble(value).map(Float.init) }
}
