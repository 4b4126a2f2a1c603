import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A value that is not NULL, read strictly by core's rule or else with SQLite's conversions;
/// nil for NULL or a value that does not convert. A `Date` reads in any layout SQLite's date
/// functions accept, as records read it (the kernel's one lenient date reader).
@inlinable @inline(__always)
func readNonNull<V: Binding>(_ type: V.Type, _ value: SQLiteValueHandle) -> V? where V.DataType == V {
    let storageClass = sqlite3_value_type(value)
    guard storageClass != SQLITE_NULL else { return nil }
    return extractWithLenientDates(V.self, from: value, type: storageClass) ?? sqliteConverted(V.self, value)
}

/// ``sqliteConverted(_:_:)`` out of line, nil for NULL, for the rare value the strict read
/// refused: the column readers' per-row path stays the strict read alone.
@usableFromInline @inline(never)
func sqliteConvertedOutOfLine<V>(_ type: V.Type, _ value: SQLiteValueHandle, storageClass: Int32) -> V? {
    storageClass == SQLITE_NULL ? nil : sqliteConverted(V.self, value)
}

/// The column readers' read of a value whose storage class is known: the strict read inline
/// (dates in any layout SQLite accepts), the conversions out of line, for the optional and
/// non-optional columns alike.
@inlinable @inline(__always)
func readStrictOrConverted<V: Binding>(_ type: V.Type, _ value: SQLiteValueHandle, storageClass: Int32) -> V? where V.DataType == V {
    extractWithLenientDates(V.self, from: value, type: storageClass) ?? sqliteConvertedOutOfLine(V.self, value, storageClass: storageClass)
}

/// A column value that core's strict reading refused (another storage class), converted the way
/// SQLiteORM-Swift reads it: with SQLite's own conversions (`'42'` is 42, `2.7` is 2, an INTEGER
/// is a REAL). An integer that does not fit the property's type, and types SQLite cannot convert
/// to (`Data`, `URL`, custom bindings), stay nil, which the caller reports as an error; a `Date`
/// has had its lenient read already.
///
/// Specialized for the caller's `V`, the type checks fold away.
@inlinable
func sqliteConverted<V>(_ type: V.Type, _ value: SQLiteValueHandle) -> V? {
    if V.self == String.self { return readText(value) as? V }
    if V.self == Double.self { return sqlite3_value_double(value) as? V }
    if V.self == Float.self { return Float(sqlite3_value_double(value)) as? V }
    if V.self == Bool.self { return (sqlite3_value_int64(value) != 0) as? V }
    let integer = sqlite3_value_int64(value)
    if V.self == Int.self { return Int(exactly: integer) as? V }
    if V.self == Int64.self { return integer as? V }
    if V.self == Int32.self { return Int32(exactly: integer) as? V }
    if V.self == Int16.self { return Int16(exactly: integer) as? V }
    if V.self == Int8.self { return Int8(exactly: integer) as? V }
    if V.self == UInt64.self { return UInt64(bitPattern: integer) as? V }
    if V.self == UInt.self { return UInt(bitPattern: Int(truncatingIfNeeded: integer)) as? V }
    if V.self == UInt32.self { return UInt32(exactly: integer) as? V }
    if V.self == UInt16.self { return UInt16(exactly: integer) as? V }
    if V.self == UInt8.self { return UInt8(exactly: integer) as? V }
    return nil
}
