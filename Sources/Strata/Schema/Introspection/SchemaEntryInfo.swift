import Foundation

/// One row of `sqlite_master`: a table, index, view or trigger.
///
/// ```swift
/// for entry in try db.schema.schemaEntries where entry.isIndex { print(entry.name, entry.tableName) }
/// ```
/// See <https://www.sqlite.org/schematab.html>.
public struct SchemaEntryInfo: Hashable, Sendable {
    /// `table`, `index`, `view` or `trigger`.
    public let type: String
    /// The object's name.
    public let name: String
    /// The table the object belongs to (its own name for tables and views).
    public let tableName: String
    /// The root b-tree page; 0 for views and triggers.
    public let rootPage: Int
    /// The SQL that created the object; nil for automatic indexes (from `UNIQUE`/`PRIMARY KEY`).
    public let sql: String?

    /// Creates an entry.
    public init(type: String, name: String, tableName: String, rootPage: Int, sql: String?) {
        self.type = type
        self.name = name
        self.tableName = tableName
        self.rootPage = rootPage
        self.sql = sql
    }

    /// Whether the entry is a table.
    public var isTable: Bool { type == "table" }
    /// Whether the entry is an index.
    public var isIndex: Bool { type == "index" }
    /// Whether the entry is a view.
    public var isView: Bool { type == "view" }
    /// Whether the entry is a trigger.
    public var isTrigger: Bool { type == "trigger" }
}
