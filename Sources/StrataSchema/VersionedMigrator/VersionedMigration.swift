// Numbered schema steps and where the version they reached is kept: the mechanism behind SQift's
// `Migrator` (its `schema_migrations` table) and the bookkeeping of components that share an app's
// database (StrataSync's), each with a store of its own so an app's versions and a component's
// never mix.
import StrataKernel
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Where a versioned migration keeps the version a database has reached.
package protocol MigrationVersionStore: Sendable {
    /// The version reached; 0 for a database the steps never ran on.
    func currentVersion(_ connection: Connection) throws -> Int64
    /// Records `version` as reached, inside the transaction that ran its step.
    func record(_ version: Int64, _ connection: Connection) throws
}

/// SQift's store: one row per version in `schema_migrations(version, migration_timestamp)`,
/// created with the first version recorded.
struct SchemaMigrationsTable: MigrationVersionStore {
    package init() {}

    private static let definition = TableDefinition(
        "schema_migrations",
        columns: [
            .init("version", type: "INTEGER", [.unique(), .notNull()]),
            .init("migration_timestamp", type: "TEXT", [.notNull()])
        ], ifNotExists: true)

    package func exists(_ connection: Connection) throws -> Bool {
        try connection.schemaReader.table(named: Self.definition.name) != nil
    }

    package func currentVersion(_ connection: Connection) throws -> Int64 {
        guard try exists(connection) else { return 0 }
        let version: Int64? = try connection.query(literal: "SELECT max(version) FROM \(identifier: Self.definition.name)")
        return max(0, version ?? 0)
    }

    /// Every version recorded, lowest first, with SQift's timestamp text; empty without the table.
    package func history(_ connection: Connection) throws -> [(version: Int64, timestamp: String)] {
        guard try exists(connection) else { return [] }
        return try connection.query(
            literal: "SELECT version, migration_timestamp FROM \(identifier: Self.definition.name) ORDER BY version"
        ) { row in (row[0] as Int64? ?? 0, row[1] as String? ?? "") }
    }

    /// Creates the table when it is missing (SQift's closure form creates it before any step runs).
    package func create(_ connection: Connection) throws {
        try connection.execute(Self.definition.sql)
    }

    package func record(_ version: Int64, _ connection: Connection) throws {
        try create(connection)
        let now = try BindingDateFormat.string(from: Date())
        try connection.run(
            literal: """
                INSERT INTO \(identifier: Self.definition.name)(version, migration_timestamp) VALUES (\(version), \(now))
                """)
    }
}

/// Squeal's store, and the Schema DSL's: `PRAGMA user_version`, the 32-bit field of the database
/// header (no table).
package struct UserVersionStore: MigrationVersionStore {
    package init() {}

    package func currentVersion(_ connection: Connection) throws -> Int64 {
        try connection.query("PRAGMA main.user_version") ?? 0
    }

    /// - Throws: `SQLiteError` (`SQLITE_RANGE`) for a version the field cannot hold.
    package func record(_ version: Int64, _ connection: Connection) throws {
        // Pragmas take no parameters: the integer is formatted, after its range is checked.
        guard let narrow = Int32(exactly: version) else {
            throw SQLiteError(code: SQLITE_RANGE, message: "user_version \(version) does not fit in 32 bits")
        }
        try connection.execute("PRAGMA main.user_version = \(narrow)")
    }
}

/// Numbered steps (1, 2, …) brought to a database in order, each recorded in a
/// ``MigrationVersionStore``.
///
/// ``migrate(_:)`` runs every missing step in one `IMMEDIATE` transaction (a savepoint when one is
/// already open), with foreign key enforcement off while the steps run and every foreign key
/// checked before the commit, so a table rebuild fires no `ON DELETE` action and a failing step
/// (or a broken key) leaves the database exactly as it was. A database past the last step is
/// refused, not touched.
package struct VersionedMigration: Sendable {
    /// One step: what version `version` adds.
    package struct Step: Sendable {
        package let version: Int64
        package let run: @Sendable (Connection) throws -> Void
        package init(_ version: Int64, _ run: @escaping @Sendable (Connection) throws -> Void) {
            self.version = version
            self.run = run
        }
    }

    package let steps: [Step]
    package let store: any MigrationVersionStore
    /// Whether the steps are the caller's own code, which may rebuild any table: inside an open
    /// transaction with foreign keys enforced (SQLite cannot turn them off there), a database
    /// whose keys have ON DELETE or ON UPDATE actions is then refused, since a rebuild's DROP
    /// TABLE would run them. A component whose steps drop nothing that is referenced says false.
    package let stepsMayRebuildTables: Bool

    /// Steps must be numbered 1, 2, … without gaps; anything else is a programming error.
    package init(steps: [Step], store: any MigrationVersionStore, stepsMayRebuildTables: Bool = true) {
        precondition(steps.enumerated().allSatisfy { Int64($0.offset + 1) == $0.element.version }, "steps are numbered 1, 2, … in order")
        self.steps = steps
        self.store = store
        self.stepsMayRebuildTables = stepsMayRebuildTables
    }

    /// The last step's version.
    package var latestVersion: Int64 { steps.last?.version ?? 0 }

    /// Runs the steps past the store's version and records them; returns how many ran.
    ///
    /// - Throws: ``MigratorError/databaseNewerThanCode(current:desired:)`` for a database past
    ///   the last step; what a step throws; ``DatabaseMigratorError/foreignKeysViolated(_:)`` for
    ///   the foreign keys the steps broke.
    @discardableResult
    package func migrate(_ connection: Connection) throws -> Int {
        // Read first, outside a write transaction: a database already current (every open after
        // the first) takes no write lock.
        guard try pending(connection) else { return 0 }
        var refusal: (@Sendable () -> any Error)?
        if stepsMayRebuildTables { refusal = { DatabaseMigratorError.foreignKeysEnforcedInTransaction } }
        let change = SchemaChange(
            savepointName: "strata_versioned_migration", foreignKeyCheck: .whenEnforced,
            keyActionsInTransactionError: refusal)
        return try change.run(on: connection) { () throws -> Int in
            let current = try store.currentVersion(connection)
            try refuseNewer(current)
            let missing = steps.filter { $0.version > current }
            for step in missing {
                try step.run(connection)
                try store.record(step.version, connection)
            }
            return missing.count
        }
    }

    /// Whether a step is missing.
    package func pending(_ connection: Connection) throws -> Bool {
        let current = try store.currentVersion(connection)
        try refuseNewer(current)
        return current < latestVersion
    }

    private func refuseNewer(_ current: Int64) throws {
        guard current <= latestVersion else {
            throw MigratorError.databaseNewerThanCode(current: UInt64(current), desired: UInt64(max(0, latestVersion)))
        }
    }
}
