import Foundation
import Strata

/// Squeal's DDL helpers. Table, index and column names are quoted; column definitions and
/// `partialExpr` are SQL fragments, and each helper runs exactly the one statement it builds
/// (a fragment that ends it and starts another is refused).
extension Connection {
    /// Creates a table from column and constraint definitions.
    ///
    /// ```swift
    /// try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
    /// ```
    /// - Throws: `SQLiteError`, e.g. when the table exists and `ifNotExists` is false.
    public func createTable(_ tableName: String, definitions: [String], ifNotExists: Bool = false) throws {
        try runSingleStatement(TableDefinition(tableName, constraints: definitions.map { .raw($0) }, ifNotExists: ifNotExists).sql)
    }

    /// Drops a table.
    ///
    /// - Throws: `SQLiteError`, e.g. when the table does not exist and `ifExists` is false.
    public func dropTable(_ tableName: String, ifExists: Bool = false) throws {
        try execute("DROP TABLE " + (ifExists ? "IF EXISTS " : "") + quoteIdentifier(tableName))
    }

    /// Renames a table.
    ///
    /// - Throws: `SQLiteError` when the table does not exist or the new name is taken.
    public func renameTable(_ tableName: String, to newName: String) throws {
        try execute("ALTER TABLE " + quoteIdentifier(tableName) + " RENAME TO " + quoteIdentifier(newName))
    }

    /// Adds a column, given as a definition such as `"url TEXT"` (an SQL fragment).
    ///
    /// - Throws: `SQLiteError` when SQLite cannot add it (see <https://www.sqlite.org/lang_altertable.html>).
    public func addColumnToTable(_ tableName: String, column: String) throws {
        try runSingleStatement(TableDefinition.addColumnSQL(table: tableName, definition: column))
    }

    /// Creates an index. Each of `columns` is quoted when it names a column of the table and
    /// otherwise used as written (an expression, or `name DESC`).
    ///
    /// ```swift
    /// try db.createIndex("contacts_email", tableName: "contacts", columns: ["email"], unique: true)
    /// ```
    /// - Throws: `SQLiteError`, e.g. when the index exists and `ifNotExists` is false.
    public func createIndex(
        _ name: String,
        tableName: String,
        columns: [String],
        partialExpr: String? = nil,
        unique: Bool = false,
        ifNotExists: Bool = false
    ) throws {
        let list = try sqlColumnList(columns, of: tableName)
        try runSingleStatement(
            "CREATE " + (unique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "")
                + quoteIdentifier(name) + " ON " + quoteIdentifier(tableName) + " (" + list + ")" + (partialExpr.map { $0.isEmpty ? "" : " WHERE " + $0 } ?? "")
        )
    }

    /// Drops an index.
    ///
    /// - Throws: `SQLiteError`, e.g. when the index does not exist and `ifExists` is false.
    public func dropIndex(_ name: String, ifExists: Bool = false) throws {
        try execute("DROP INDEX " + (ifExists ? "IF EXISTS " : "") + quoteIdentifier(name))
    }

    /// The database's `PRAGMA user_version`, which Squeal's schema migrations use as the version.
    ///
    /// - Throws: `SQLiteError` when the pragma fails.
    public func queryUserVersionNumber() throws -> Int {
        Int(try UserVersionStore().currentVersion(self))
    }

    /// Sets `PRAGMA user_version` (pragmas take no parameters; the integer is formatted, never
    /// text from the caller).
    ///
    /// - Throws: `SQLiteError` when the pragma fails (e.g. on a read-only database).
    public func updateUserVersionNumber(_ number: Int32) throws {
        try UserVersionStore().record(Int64(number), self)
    }
}
