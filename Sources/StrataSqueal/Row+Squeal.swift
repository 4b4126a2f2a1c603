import Foundation
import Strata

/// Squeal's getters on a SQift `Row`, so either can be handed to Squeal-style code. They read
/// as the same getters on ``Statement`` do (SQLite's conversions; nil for NULL or a missing column).
extension Row {
    /// The value at `index` as an `Int`, or nil.
    @inlinable public func intValueAtIndex(_ index: Int) -> Int? { statement.intValueAtIndex(index) }
    /// The value at `index` as an `Int64`, or nil.
    @inlinable public func int64ValueAtIndex(_ index: Int) -> Int64? { statement.int64ValueAtIndex(index) }
    /// The value at `index` as a `Double`, or nil.
    @inlinable public func doubleValueAtIndex(_ index: Int) -> Double? { statement.doubleValueAtIndex(index) }
    /// The value at `index` as a `Double`, or nil.
    @inlinable public func realValueAtIndex(_ index: Int) -> Double? { statement.doubleValueAtIndex(index) }
    /// The value at `index` as a `String`, or nil.
    @inlinable public func stringValueAtIndex(_ index: Int) -> String? { statement.stringValueAtIndex(index) }
    /// The value at `index` as a `Bool`, or nil.
    @inlinable public func boolValueAtIndex(_ index: Int) -> Bool? { statement.boolValueAtIndex(index) }
    /// The value at `index` as `Data`, or nil.
    public func blobValueAtIndex(_ index: Int) -> Data? { statement.blobValueAtIndex(index) }

    /// The value of the column named `name` as an `Int`, or nil.
    @inlinable public func intValue(_ name: String) -> Int? { statement.intValue(name) }
    /// The value of the column named `name` as an `Int64`, or nil.
    @inlinable public func int64Value(_ name: String) -> Int64? { statement.int64Value(name) }
    /// The value of the column named `name` as a `Double`, or nil.
    @inlinable public func doubleValue(_ name: String) -> Double? { statement.doubleValue(name) }
    /// The value of the column named `name` as a `Double`, or nil.
    @inlinable public func realValue(_ name: String) -> Double? { statement.doubleValue(name) }
    /// The value of the column named `name` as a `String`, or nil.
    @inlinable public func stringValue(_ name: String) -> String? { statement.stringValue(name) }
    /// The value of the column named `name` as a `Bool`, or nil.
    @inlinable public func boolValue(_ name: String) -> Bool? { statement.boolValue(name) }
    /// The value of the column named `name` as `Data`, or nil.
    public func blobValue(_ name: String) -> Data? { statement.blobValue(name) }

    /// The value at `index` in its storage class (`Int64`, `Double`, `String` or `Data`), or nil.
    public func valueAtIndex(_ index: Int) -> Bindable? { statement.valueAtIndex(index) }
    /// The value of the column named `name` in its storage class, or nil.
    public func valueOf(_ name: String) -> Bindable? { statement.valueOf(name) }
    /// The row as column name → value; NULL columns are left out.
    public var dictionaryValue: [String: Bindable] { statement.dictionaryValue }
    /// The result column names, in order.
    public var columnNames: [String] { statement.columnNames }
    /// The index of the column named `name`, or nil.
    public func indexOfColumnNamed(_ name: String) -> Int? { statement.indexOfColumnNamed(name) }
    /// The name of the column at `index`, or `""`.
    public func nameOfColumnAtIndex(_ index: Int) -> String { statement.nameOfColumnAtIndex(index) }
    /// The storage class of the value at `index`.
    public func typeOfColumnAtIndex(_ index: Int) -> SQLiteStorageClass { statement.typeOfColumnAtIndex(index) }
    /// The storage class of the value of the column named `name`.
    public func typeOfColumnNamed(_ name: String) -> SQLiteStorageClass { statement.typeOfColumnNamed(name) }
}
