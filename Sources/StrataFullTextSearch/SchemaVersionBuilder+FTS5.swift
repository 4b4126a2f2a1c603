// The schema DSL's FTS5 declaration: a version creates an FTS5 table with the statements
// `Connection.createFTS5Table` uses (bar a keyed index's key-index collation, which only a
// database can tell), so migrating down (and back up) recreates it exactly.
import Foundation
import StrataCore

extension SchemaVersionBuilder {
    /// Creates an FTS5 full-text table in this version, as
    /// ``Connection/createFTS5Table(_:columns:options:)`` does; `dropTable` drops it.
    ///
    /// ```swift
    /// let AppSchema = Schema { schema in
    ///     schema.version(1) { v1 in
    ///         v1.createTable("book") { book in
    ///             book.primaryKey("id")
    ///             book.column("title", type: .Text)
    ///         }
    ///         v1.createFTS5Table("book_fts", columns: ["title"],
    ///                            options: FTS5Options(content: .external(table: "book", rowID: "id")))
    ///     }
    ///     schema.version(2) { v2 in v2.dropTable("book_fts") }
    /// }
    /// ```
    /// Migrating down past this version drops the table (with the triggers that keep external
    /// content in sync); migrating down past its `dropTable` creates it again with its columns and
    /// options, and an external-content index is filled again from its table. A keyed index's
    /// triggers find a replaced row under its key column's collation: the statements are built
    /// here, with no database to read a key index that declares another one (`PRIMARY KEY(id
    /// COLLATE NOCASE)` over a BINARY column) from; for such a table, use `createFTS5Table` on
    /// the connection in an `execute` step.
    public func createFTS5Table(_ name: String, columns: [String], options: FTS5Options = FTS5Options()) {
        createVirtualTable(
            SchemaVirtualTable(
                name: name, module: "fts5", columnNames: columns,
                createStatements: Connection.fts5CreateStatements(name, columns: columns, options: options),
                dropStatements: Connection.fts5DropStatements(name, options: options)))
    }
}
