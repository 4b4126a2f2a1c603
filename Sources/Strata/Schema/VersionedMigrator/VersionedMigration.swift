// Numbered schema steps and where the version they reached is kept: the mechanism behind SQift's
// `Migrator` (its `schema_migrations` table) and the bookkeeping of components that share an app's
// database (StrataSync's), each with a store of its own so an app's versions and a component's
// never mix.
import Foundation

/// Where a versioned migration keeps the version a database has reached.
package protocol MigrationVersionStore: Sendable {
    /// The version reached; 0 for a database the steps never ran on.
    func currentVersion(_ connection: Connection) throws -> Int64
    /// Records `version` as reached, inside the transaction that ran its step.
    func record(_ version: Int64, _ connection: Connection) throws
}

/// SQift's store: one row per version in `schema_migrations(version, migration_timestamp)`,
/// created with the first version recorded.
package struct SchemaMigrationsTable: MigrationVersionStore {
    package init() {}

    private static let definition = TableDefinition("schema_migrations", columns: [
        .init("version", type: "INTEGER", [.unique(), .notNull()]),
        .init("migration_timestamp", type: "TEXT", [.notNull()]),
    ], ifNotExists: true)

    package func exists(_ connection: Connection) throws -> Bool {
        try connection.schemaReader.table(named: Self.definition.name) != nil
    }

    package func currentVersion(_ connection: Connection) throws -> Int64 {
        guard try exists(connection) else { return 0 }
        let version: Int64? = try connection.query(literal: "SELECT max(version) FROM \(identifier: Self.definition.name)")
        return max(0, version ?? 0)
    }

    /// Creates the table when it is missing (SQift's closure form creates it before any step runs).
    package func create(_ connection: Connection) throws {
        try connection.execute(Self.definition.sql)
    }

    package func record(_ version: Int64, _ connection: Connection) throws {
        try create(connection)
        try connection.run(literal: """
            INSERT INTO \(identifier: Self.definition.name)(version, migration_timestamp) VALUES (\(version), \(BindingDateFormat.string(from: Date())))
            """)
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
        // Checked only where enforcement is on (as the app runs), and only as counts per
        // foreign key: a database may hold older violations on purpose, and a rebuild renumbers
        // the rows that hold them.
        let enforced = try connection.foreignKeysEnabled()
        let body = {
            let current = try store.currentVersion(connection)
            try refuseNewer(current)
            let missing = steps.filter { $0.version > current }
            guard !missing.isEmpty else { return 0 }
            let before = enforced ? Self.violationCounts(try connection.foreignKeyViolations()) : [:]
            for step in missing {
                try step.run(connection)
                try store.record(step.version, connection)
            }
            if enforced {
                let after = try connection.foreignKeyViolations()
                let counts = Self.violationCounts(after)
                let grown = Set(counts.filter { $0.value > before[$0.key, default: 0] }.map(\.key))
                let added = after.filter { grown.contains(ViolationKey($0)) }
                if !added.isEmpty { throw DatabaseMigratorError.foreignKeysViolated(added) }
            }
            return missing.count
        }
        if connection.isInTransaction {
            if enforced, stepsMayRebuildTables, try Self.hasForeignKeyActions(connection) {
                throw DatabaseMigratorError.foreignKeysEnforcedInTransaction
            }
            return try connection.strataSavepoint(named: "strata_versioned_migration", closure: body)
        }
        // Enforcement off while the steps run (SQLite ignores the pragma inside a transaction,
        // so around it): a table rebuild's DROP TABLE then fires no ON DELETE action.
        return try connection.withForeignKeysDisabled {
            try connection.transaction(transactionType: .immediate, closure: body)
        }
    }

    private struct ViolationKey: Hashable {
        let table: String
        let parentTable: String
        let foreignKeyIndex: Int
        init(_ violation: ForeignKeyViolation) {
            table = violation.table.lowercased()
            parentTable = violation.parentTable.lowercased()
            foreignKeyIndex = violation.foreignKeyIndex
        }
    }

    private static func violationCounts(_ violations: [ForeignKeyViolation]) -> [ViolationKey: Int] {
        violations.reduce(into: [:]) { $0[ViolationKey($1), default: 0] += 1 }
    }

    /// Whether a foreign key of the main database acts on its rows (CASCADE, SET NULL, SET DEFAULT).
    private static func hasForeignKeyActions(_ connection: Connection) throws -> Bool {
        let inert: Set<String> = ["NO ACTION", "RESTRICT"]
        for table in try connection.schemaReader.userTableNames() {
            for key in try connection.schemaReader.foreignKeys(ofTable: table)
            where !inert.contains(key.onDelete.uppercased()) || !inert.contains(key.onUpdate.uppercased()) {
                return true
            }
        }
        return false
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
