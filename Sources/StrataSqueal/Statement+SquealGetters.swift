import Foundation
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Squeal's value getters on the statement's current row: `intValue("id")`, `stringValue(...)`, ...
///
/// They return nil for NULL, a missing column, or when no row is current. Otherwise they convert
/// as Squeal did, with SQLite's own conversions (`sqlite3_column_int64` on the text `"42"` is 42,
/// `stringValue` of an integer is its decimal text); SQift's subscripts and `Row.value` are the
/// strict reads. Column indexes are 0-based.
extension Statement {
    /// The current row's non-NULL value at `index`, or nil.
    @inlinable @inline(__always)
    final func nonNullValue(at index: Int) -> SQLiteValueHandle? {
        // Out-of-range indexes (and no current row) read as NULL in SQLite.
        guard let value = sqlite3_column_value(statementHandle, Int32(clamping: index)),
            sqlite3_value_type(value) != SQLITE_NULL
        else { return nil }
        return value
    }

    /// The value at `index` as an `Int`, or nil.
    @inlinable @inline(__always) public final func intValueAtIndex(_ index: Int) -> Int? {
        nonNullValue(at: index).flatMap { Int(exactly: sqlite3_value_int64($0)) }
    }

    /// The value at `index` as an `Int64`, or nil.
    @inlinable @inline(__always) public final func int64ValueAtIndex(_ index: Int) -> Int64? {
        nonNullValue(at: index).map { sqlite3_value_int64($0) }
    }

    /// The value at `index` as a `Double`, or nil.
    @inlinable @inline(__always) public final func doubleValueAtIndex(_ index: Int) -> Double? {
        nonNullValue(at: index).map { sqlite3_value_double($0) }
    }

    /// The value at `index` as a `Double` (Squeal's alias of ``doubleValueAtIndex(_:)``).
    @inlinable public final func realValueAtIndex(_ index: Int) -> Double? { doubleValueAtIndex(index) }

    /// The value at `index` as a `String`, or nil.
    @inlinable public final func stringValueAtIndex(_ index: Int) -> String? {
        nonNullValue(at: index).map(readText)
    }

    /// The value at `index` as a `Bool` (non-zero is true), or nil.
    @inlinable @inline(__always) public final func boolValueAtIndex(_ index: Int) -> Bool? {
        nonNullValue(at: index).map { sqlite3_value_int64($0) != 0 }
    }

    /// The value at `index` as `Data`, or nil.
    public final func blobValueAtIndex(_ index: Int) -> Data? {
        nonNullValue(at: index).map(readBlob)
    }

    /// The value of the column named `name` as an `Int`, or nil.
    @inlinable @inline(__always) public final func intValue(_ name: String) -> Int? {
        columnIndex(forName: name).flatMap(intValueAtIndex)
    }

    /// The value of the column named `name` as an `Int64`, or nil.
    @inlinable @inline(__always) public final func int64Value(_ name: String) -> Int64? {
        columnIndex(forName: name).flatMap(int64ValueAtIndex)
    }

    /// The value of the column named `name` as a `Double`, or nil.
    @inlinable @inline(__always) public final func doubleValue(_ name: String) -> Double? {
        columnIndex(forName: name).flatMap(doubleValueAtIndex)
    }

    /// The value of the column named `name` as a `Double` (alias of ``doubleValue(_:)``).
    @inlinable public final func realValue(_ name: String) -> Double? { doubleValue(name) }

    /// The value of the column named `name` as a `String`, or nil.
    @inlinable public final func stringValue(_ name: String) -> String? {
        columnIndex(forName: name).flatMap(stringValueAtIndex)
    }

    /// The value of the column named `name` as a `Bool` (non-zero is true), or nil.
    @inlinable @inline(__always) public final func boolValue(_ name: String) -> Bool? {
        columnIndex(forName: name).flatMap(boolValueAtIndex)
    }

    /// The value of the column named `name` as `Data`, or nil.
    public final func blobValue(_ name: String) -> Data? {
        columnIndex(forName: name).flatMap(blobValueAtIndex)
    }

    /// The value at `index` in its storage class (`Int64`, `Double`, `String` or `Data`), or nil.
    public final func valueAtIndex(_ index: Int) -> Bindable? {
        guard let value = nonNullValue(at: index) else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_BLOB: return readBlob(value)
        default: return readText(value)
        }
    }

    /// The value of the column named `name` in its storage class, or nil.
    public final func valueOf(_ name: String) -> Bindable? {
        columnIndex(forName: name).flatMap(valueAtIndex)
    }

    /// The value at `columnIndex` in its storage class, or nil.
    public final subscript(columnIndex: Int) -> Bindable? { valueAtIndex(columnIndex) }

    /// The value of the column named `columnName` in its storage class, or nil.
    public final subscript(columnName: String) -> Bindable? { valueOf(columnName) }

    /// Every value of the current row, in column order.
    public final var values: [Bindable?] { (0..<columnCount).map(valueAtIndex) }

    /// The current row as column name → value; NULL columns are left out.
    public final var dictionaryValue: [String: Bindable] {
        var dictionary: [String: Bindable] = [:]
        for (index, name) in columnNames.enumerated() where dictionary[name] == nil {
            if let value = valueAtIndex(index) { dictionary[name] = value }
        }
        return dictionary
    }

    /// The index of the result column named `name`, or nil.
    public final func indexOfColumnNamed(_ name: String) -> Int? { columnIndex(forName: name) }

    /// The name of the result column at `index`, or `""` when there is none.
    public final func nameOfColumnAtIndex(_ index: Int) -> String {
        let names = columnNames
        return names.indices.contains(index) ? names[index] : ""
    }

    /// The storage class of the value at `index` in the current row (Squeal's
    /// `SQLiteColumnType`); `.null` for NULL, an index out of range, or no current row.
    public final func typeOfColumnAtIndex(_ index: Int) -> SQLiteStorageClass {
        guard let value = sqlite3_column_value(statementHandle, Int32(clamping: index)) else { return .null }
        return SQLiteStorageClass(of: value)
    }

    /// The storage class of the value of the column named `name` in the current row; `.null`
    /// when there is no such column (Squeal stopped the program there).
    public final func typeOfColumnNamed(_ name: String) -> SQLiteStorageClass {
        columnIndex(forName: name).map(typeOfColumnAtIndex) ?? .null
    }
}
