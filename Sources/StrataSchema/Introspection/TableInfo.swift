import StrataKernel
import Foundation

/// A table's columns and indexes, read once (Squeal's `TableInfo`).
///
/// ```swift
/// if let info = try db.tableInfoForTableNamed("contacts") {
///     print(info.columnNames)   // ["id", "name", "email"]
///     print(info["email"]?.notNull == true)
/// }
/// ```
public struct TableInfo: Hashable, Sendable {
    /// The table's name as stored in the schema.
    public let name: String
    /// The columns, in table order.
    public let columns: [ColumnInfo]
    /// The indexes, including automatic ones for `UNIQUE` and `PRIMARY KEY` constraints.
    public let indexes: [IndexInfo]

    /// Creates a table record.
    public init(name: String, columns: [ColumnInfo], indexes: [IndexInfo]) {
        self.name = name
        self.columns = columns
        self.indexes = indexes
    }

    /// The column names, in table order.
    public var columnNames: [String] { columns.map(\.name) }

    /// The column with this name (case-insensitive), if any.
    public subscript(columnName: String) -> ColumnInfo? {
        columns.first { $0.name.caseInsensitiveCompare(columnName) == .orderedSame }
    }

    /// The index names.
    public var indexNames: [String] { indexes.map(\.name) }

    /// The index with this name (case-insensitive), if any.
    public func indexNamed(_ indexName: String) -> IndexInfo? {
        indexes.first { $0.name.caseInsensitiveCompare(indexName) == .orderedSame }
    }
}
