import StrataKernel
import Foundation

/// The schema of a database as `sqlite_master` lists it, read once (Squeal's `SchemaInfo`).
///
/// ```swift
/// let schema = try db.schema
/// print(schema.tableNames)                        // ["contacts"]
/// print(schema.namesOfIndexesOnTable("contacts")) // ["contacts_email"]
/// ```
/// Names are matched case-insensitively, as SQLite matches them. Tables whose names begin with
/// `sqlite_`, and the shadow tables where a virtual table keeps its data (an FTS5 table `docs`
/// keeps `docs_data`, `docs_idx`, `docs_content`, `docs_docsize` and `docs_config`), are listed
/// in ``schemaEntries`` but not in ``tables``. Virtual tables are in ``tables``, marked by
/// ``SchemaEntryInfo/isVirtualTable``.
public struct SchemaInfo: Hashable, Sendable {
    /// Every table, index, view and trigger, in `sqlite_master` order.
    public let schemaEntries: [SchemaEntryInfo]

    /// The shadow tables of the virtual tables.
    let shadowTableNames: IdentifierSet

    /// Creates a schema from its entries. Shadow tables are recognized by the virtual tables of
    /// SQLite's own modules (FTS3/4/5, R*Tree) and their fixed suffixes.
    public init(schemaEntries: [SchemaEntryInfo]) {
        self.init(schemaEntries: schemaEntries, shadowTableNames: SchemaReader.shadowTableNames(among: schemaEntries))
    }

    /// A schema whose shadow tables are known (as the reader gives them, SQLite's report included).
    package init(schemaEntries: [SchemaEntryInfo], shadowTableNames: IdentifierSet) {
        self.schemaEntries = schemaEntries
        self.shadowTableNames = shadowTableNames
    }

    /// The entry with this name, if any.
    public subscript(entryName: String) -> SchemaEntryInfo? { entryNamed(entryName) }

    /// The entry with this name, if any.
    public func entryNamed(_ entryName: String) -> SchemaEntryInfo? {
        schemaEntries.first { sameIdentifier($0.name, entryName) }
    }

    /// The user tables, virtual ones included: not SQLite's internal `sqlite_` tables, nor those
    /// of a replicator running beside the application (Litestream's `_litestream_seq` and
    /// `_litestream_lock`), nor the shadow tables of virtual tables.
    public var tables: [SchemaEntryInfo] {
        schemaEntries.filter { $0.isTable && !isInternalTable($0.name) }
    }

    /// The virtual tables (FTS5, R*Tree, ...), in `sqlite_master` order.
    public var virtualTables: [SchemaEntryInfo] { tables.filter(\.isVirtualTable) }

    /// Whether a table belongs to SQLite, to a tool beside the application, or to a virtual table.
    func isInternalTable(_ name: String) -> Bool {
        SchemaReader.isInternalTable(name, shadowTables: shadowTableNames)
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
