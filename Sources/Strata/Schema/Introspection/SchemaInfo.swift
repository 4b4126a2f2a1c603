import Foundation

/// The schema of a database as `sqlite_master` lists it, read once (Squeal's `SchemaInfo`).
///
/// ```swift
/// let schema = try db.schema
/// print(schema.tableNames)                        // ["contacts"]
/// print(schema.namesOfIndexesOnTable("contacts")) // ["contacts_email"]
/// ```
/// Names are matched case-insensitively, as SQLite matches them. Tables whose names begin with
/// `sqlite_` are listed in ``schemaEntries`` but not in ``tables``.
public struct SchemaInfo: Hashable, Sendable {
    /// Every table, index, view and trigger, in `sqlite_master` order.
    public let schemaEntries: [SchemaEntryInfo]

    /// Creates a schema from its entries.
    public init(schemaEntries: [SchemaEntryInfo]) {
        self.schemaEntries = schemaEntries
    }

    /// The entry with this name, if any.
    public subscript(entryName: String) -> SchemaEntryInfo? { entryNamed(entryName) }

    /// The entry with this name, if any.
    public func entryNamed(_ entryName: String) -> SchemaEntryInfo? {
        schemaEntries.first { $0.name.caseInsensitiveCompare(entryName) == .orderedSame }
    }

    /// The user tables: not SQLite's internal `sqlite_` tables, nor those of a replicator running
    /// beside the application (Litestream's `_litestream_seq` and `_litestream_lock`).
    public var tables: [SchemaEntryInfo] {
        schemaEntries.filter { $0.isTable && !SchemaReader.isInternalTable($0.name) }
    }

    /// The names of the user tables.
    public var tableNames: [String] { tables.map(\.name) }

    /// The user table with this name, if any.
    public func tableNamed(_ tableName: String) -> SchemaEntryInfo? {
        tables.first { $0.name.caseInsensitiveCompare(tableName) == .orderedSame }
    }

    /// Every index, including automatic ones.
    public var indexes: [SchemaEntryInfo] { schemaEntries.filter(\.isIndex) }

    /// The names of every index.
    public var indexNames: [String] { indexes.map(\.name) }

    /// The indexes on a table.
    public func indexesOnTable(_ tableName: String) -> [SchemaEntryInfo] {
        indexes.filter { $0.tableName.caseInsensitiveCompare(tableName) == .orderedSame }
    }

    /// The names of the indexes on a table.
    public func namesOfIndexesOnTable(_ tableName: String) -> [String] { indexesOnTable(tableName).map(\.name) }
}
