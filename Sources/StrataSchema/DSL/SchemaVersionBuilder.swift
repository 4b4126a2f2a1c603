import StrataKernel
import Foundation

/// Declares the steps of one schema version (the `v1` in `schema.version(1) { v1 in ... }`).
///
/// Each step has an inverse, so ``Schema/migrate(_:toVersion:options:)`` can also go down:
/// create ↔ drop, rename ↔ rename back, an alteration ↔ a rebuild to the earlier declared shape.
public final class SchemaVersionBuilder {
    var operations: [SchemaOperation] = []

    init() {}

    /// Creates a table declared by `block`.
    public func createTable(_ name: String, block: (SchemaTableBuilder) -> Void) {
        let builder = SchemaTableBuilder(name: name)
        block(builder)
        operations.append(.createTable(builder.table))
    }

    /// Alters a table with the changes declared by `block`.
    public func alterTable(_ name: String, block: (AlterTableBuilder) -> Void) {
        let builder = AlterTableBuilder()
        block(builder)
        operations.append(.alterTable(name, builder.changes))
    }

    /// Declares a virtual table; the module's own declaration (such as `createFTS5Table`)
    /// renders its statements.
    package func createVirtualTable(_ table: SchemaVirtualTable) {
        operations.append(.createVirtualTable(table))
    }

    /// Drops a table; migrating down recreates it (empty) with its declared indexes. A virtual
    /// table (``SchemaVirtualTable``, such as an FTS5 index) is dropped with what its module
    /// created beside it, and migrating down creates it again with its columns and options.
    public func dropTable(_ name: String) {
        operations.append(.dropTable(name))
    }

    /// Renames a table.
    public func renameTable(_ name: String, to newName: String) {
        operations.append(.renameTable(name, to: newName))
    }

    /// Creates an index; `partialExpr` is the SQL of a partial index's `WHERE` clause.
    public func createIndex(_ name: String, on tableName: String, columns: [String], partialExpr: String? = nil, unique: Bool = false) {
        operations.append(.createIndex(SchemaIndex(name: name, tableName: tableName, columns: columns, partialExpr: partialExpr, unique: unique)))
    }

    /// Drops an index.
    public func dropIndex(_ name: String) {
        operations.append(.dropIndex(name))
    }

    /// Renames an index (SQLite has no `RENAME INDEX`: the index is dropped and created again).
    public func renameIndex(_ name: String, to newName: String) {
        operations.append(.renameIndex(name, to: newName))
    }

    /// Runs arbitrary code while migrating up, and `down` (if given) while migrating down.
    ///
    /// ```swift
    /// v2.execute { db in
    ///     try db.run("DELETE FROM contacts WHERE name IS NULL")
    /// }
    /// v3.execute { db in try db.execute("CREATE VIEW named AS SELECT * FROM contacts") }
    ///    down: { db in try db.execute("DROP VIEW named") }
    /// ```
    /// A block without `down` is taken to change data only: migrating down skips it (deleted rows
    /// cannot come back in any case). A block that changes the declared tables or indexes needs
    /// `down`: migrating down past it otherwise fails with
    /// ``SchemaMigrationError/unreachableDatabaseVersion(fromVersion:toVersion:)`` and changes nothing.
    public func execute(
        _ block: @escaping @Sendable (Connection) throws -> Void,
        down: (@Sendable (Connection) throws -> Void)? = nil
    ) {
        operations.append(.execute(up: block, down: down))
    }
}
