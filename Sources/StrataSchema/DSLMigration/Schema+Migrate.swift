// Migrating a database up or down to a declared schema version, in one transaction.

import StrataKernel
import Foundation

extension Schema {
    /// Migrates the database up or down to `toVersion` (default: the latest), in one transaction.
    ///
    /// ```swift
    /// let didMigrate = try AppSchema.migrate(db)     // up to the latest version
    /// try AppSchema.migrate(db, toVersion: 0)        // down: every declared table dropped
    /// ```
    /// The version lives in `PRAGMA user_version`. Up runs each version's steps; down runs the
    /// derived inverses in reverse order (drop ↔ create, rename ↔ rename back, an alteration ↔ a
    /// table rebuild to the shape the lower version declares, keeping the rows). Columns added by
    /// an undone version lose their values; rows of tables present at both ends are kept.
    ///
    /// Foreign key enforcement is turned off around the transaction (and restored), so rebuilds
    /// do not fire `ON DELETE` actions; when it was on, `PRAGMA foreign_key_check` runs before
    /// COMMIT and any new violation rolls everything back. Called inside an open transaction, the
    /// migration runs in a savepoint, where SQLite cannot turn enforcement off: with it on, a
    /// rebuild is refused, and so is dropping a table that other tables reference (its `ON DELETE`
    /// actions would delete their rows).
    ///
    /// - Returns: whether the database changed version.
    /// - Throws: ``SchemaMigrationError`` (unknown or unreachable version, foreign keys violated
    ///   or on inside the caller's transaction, invalid declaration), ``TableRebuildError``, or
    ///   `SQLiteError` from a step, its message opened with the version and step
    ///   (`schema version 2, step 1: …`); the database is then exactly as before.
    @discardableResult
    public func migrate(_ db: Connection, toVersion: Int? = nil, options: MigrationOptions = []) throws -> Bool {
        if let declarationError { throw declarationError }
        return try SchemaChange(
            savepointName: "strata_schema_migrate", foreignKeyCheck: .whenEnforced,
            violationError: { SchemaMigrationError.foreignKeysViolated(violations: $0) }
        )
        .run(on: db) { try migrateInTransaction(db, toVersion: toVersion, options: options) }
    }

    /// Drops every table, index, view and trigger of the main database and sets its version to 0,
    /// in one transaction with foreign keys off.
    ///
    /// - Throws: `SQLiteError` if a drop fails; the database is then as before.
    public func reset(_ db: Connection) throws {
        try SchemaChange(savepointName: "strata_schema_reset", foreignKeyCheck: .none)
            .run(on: db) { try Self.dropEverything(db) }
    }

    private func migrateInTransaction(_ db: Connection, toVersion: Int?, options: MigrationOptions) throws -> Bool {
        let store = UserVersionStore()
        let dbVersion = Int(try store.currentVersion(db))
        if dbVersion > latestVersion { throw SchemaMigrationError.unknownDatabaseVersion(dbVersion: dbVersion) }
        let target = toVersion ?? latestVersion
        guard target == 0 || versionNumbered(target) != nil else {
            throw SchemaMigrationError.unreachableDatabaseVersion(fromVersion: dbVersion, toVersion: target)
        }
        var current = dbVersion
        if current != 0 && versionNumbered(current) == nil {
            guard options.contains(.ResetOldDatabaseVersions) else {
                throw SchemaMigrationError.unreachableDatabaseVersion(fromVersion: dbVersion, toVersion: target)
            }
            try Self.dropEverything(db)
            current = 0
        }
        guard current != target else { return current != dbVersion }

        do {
            if target > current {
                for version in versions where version.number > current && version.number <= target {
                    for (index, step) in version.steps.enumerated() {
                        try namingMigration("schema version \(version.number), step \(index + 1)") { try step.applyUp(to: db) }
                    }
                }
            } else {
                var lowerState = SchemaState()
                for version in versions.reversed() where version.number > target && version.number <= current {
                    for (index, step) in version.steps.enumerated().reversed() {
                        try namingMigration("undoing schema version \(version.number), step \(index + 1)") { try step.applyDown(to: db) }
                    }
                    lowerState = version.steps.first?.before ?? lowerState
                    if !(try Self.database(db, matches: lowerState)) {
                        throw SchemaMigrationError.unreachableDatabaseVersion(fromVersion: dbVersion, toVersion: target)
                    }
                }
            }
        } catch TableRebuildError.foreignKeysViolated(_, let violations) {
            throw SchemaMigrationError.foreignKeysViolated(violations: violations)
        }
        try store.record(Int64(target), db)
        return true
    }

    private static func database(_ db: Connection, matches state: SchemaState) throws -> Bool {
        for table in state.tables {
            guard try db.schemaReader.table(named: table.name) != nil else { return false }
            // Generated columns are declared columns too (`PRAGMA table_info` leaves them out).
            let columns = try db.schemaReader.columns(ofTable: table.name).filter { $0.hidden != 1 }
            if columns.map({ $0.name.lowercased() }) != table.columnNames.map({ $0.lowercased() }) { return false }
        }
        let schema = try db.readSchema()
        for table in state.virtualTables where schema.tableNamed(table.name)?.isVirtualTable != true { return false }
        return state.indexes.allSatisfy { schema.entryNamed($0.name)?.isIndex == true }
    }

    private static func dropEverything(_ db: Connection) throws {
        // What belongs to SQLite, to a replicator (Litestream) or to a virtual table (its shadow
        // tables go with it) is not the schema's to drop.
        let schema = try db.readSchema()
        let entries = schema.schemaEntries.filter {
            !schema.isInternalTable($0.name) && !schema.isInternalTable($0.tableName)
        }
        for entry in entries where entry.isTrigger { try db.execute("DROP TRIGGER IF EXISTS main.\(quoteIdentifier(entry.name))") }
        for entry in entries where entry.isView { try db.execute("DROP VIEW IF EXISTS main.\(quoteIdentifier(entry.name))") }
        for entry in entries where entry.isIndex && entry.sql != nil {
            try db.execute("DROP INDEX IF EXISTS main.\(quoteIdentifier(entry.name))")
        }
        for entry in entries where entry.isTable {
            try db.execute("DROP TABLE IF EXISTS main.\(quoteIdentifier(entry.name))")
        }
        if try db.tableSQL(named: "sqlite_sequence") != nil { try db.execute("DELETE FROM main.sqlite_sequence") }
        try UserVersionStore().record(0, db)
    }
}
