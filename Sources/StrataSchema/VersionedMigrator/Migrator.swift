// SQift's `Migrator`: numbered migrations recorded in `schema_migrations`.

import StrataKernel
import Foundation

/// Brings a database's schema to `desiredSchemaVersion`, one version at a time.
///
/// ```swift
/// let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
/// try migrator.runMigrationsIfNecessary(
///     migrationSQLForSchemaVersion: { version in
///         switch version {
///         case 1: return "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)"
///         default: return "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, address TEXT)"
///         }
///     }
/// )
/// ```
/// Versions start at 1 and go up by 1, each recorded in `schema_migrations(version,
/// migration_timestamp)`. With SQL strings each version runs in its own transaction, so a failing
/// version leaves the database at the last good one; the closure form leaves transactions to the
/// closure, as SQift does. A database already past `desiredSchemaVersion` is left untouched and
/// reported with ``MigratorError/databaseNewerThanCode(current:desired:)``.
open class Migrator {
    /// The connection whose database is migrated.
    public let connection: Connection
    /// The version the code expects; migrations run up to it.
    public let desiredSchemaVersion: UInt64

    /// Prepares to migrate `connection`'s database to `desiredSchemaVersion`; nothing runs yet.
    public init(connection: Connection, desiredSchemaVersion: UInt64) {
        self.connection = connection
        self.desiredSchemaVersion = desiredSchemaVersion
    }

    /// The highest version recorded, or 0 for a database never migrated (or one whose version
    /// cannot be read; ``runMigrationsIfNecessary(migrationSQLForSchemaVersion:willMigrateToSchemaVersion:didMigrateToSchemaVersion:)``
    /// throws in that case instead).
    public var currentSchemaVersion: UInt64 {
        (try? readCurrentSchemaVersion()) ?? 0
    }

    /// Whether the database is behind `desiredSchemaVersion`.
    public var migrationRequired: Bool { currentSchemaVersion < desiredSchemaVersion }

    /// SQift's internal migrator surface, for `StrataSQift`'s forwarders (see `ConnectionPool`'s).
    package var sqiftMigrationTableExists: Bool { migrationTableExists }
    package func sqiftCreateMigrationTable() throws { try createMigrationTable() }

    var migrationTableExists: Bool {
        (try? readMigrationTableExists()) ?? false
    }

    /// Where the versions are kept: SQift's `schema_migrations` table.
    private let store = SchemaMigrationsTable()

    /// The highest version recorded, or 0 when there is no `schema_migrations` table.
    /// - Throws: `SQLiteError` when the database or its `schema_migrations` table cannot be read.
    func readCurrentSchemaVersion() throws -> UInt64 {
        UInt64(try store.currentVersion(connection))
    }

    func readMigrationTableExists() throws -> Bool {
        try store.exists(connection)
    }

    func createMigrationTable() throws {
        try store.create(connection)
    }

    /// Runs the SQL for each missing version, each version and its bookkeeping row in one
    /// transaction; returns how many versions ran.
    ///
    /// - Throws: `SQLiteError` when the current version cannot be read or a version's SQL fails
    ///   (the database stays at the last version that succeeded; the message names the version
    ///   and statement, `migration to schema version 2, statement 1: …`, the code is SQLite's);
    ///   ``MigratorError/databaseNewerThanCode(current:desired:)`` for a database past
    ///   `desiredSchemaVersion`.
    @discardableResult
    open func runMigrationsIfNecessary(
        migrationSQLForSchemaVersion: (UInt64) -> String,
        willMigrateToSchemaVersion: ((UInt64) -> Void)? = nil,
        didMigrateToSchemaVersion: ((UInt64) -> Void)? = nil
    ) throws -> UInt64 {
        // The bookkeeping table is created in the first version's transaction, so a version that
        // fails (a full disk, say) leaves the database exactly as it was, not with an empty table.
        try migrate(willMigrateToSchemaVersion, didMigrateToSchemaVersion, createsTableInFirstStep: true) { version, record in
            try connection.transaction(transactionType: .immediate) {
                try connection.executeMigrationSQL(migrationSQLForSchemaVersion(version), context: Self.context(version))
                try record()
            }
        }
    }

    /// Runs `migrateDatabaseToSchemaVersion` for each missing version; returns how many ran.
    ///
    /// As in SQift, the closure is not wrapped in a transaction, so it may open its own
    /// (`connection.transaction { ... }`) or several; the version is recorded after it returns.
    /// - Throws: `SQLiteError` when the current version cannot be read; what the closure throws
    ///   (that version is not recorded; an `SQLiteError`'s message names the version,
    ///   `migration to schema version 2: …`); ``MigratorError/databaseNewerThanCode(current:desired:)``.
    @discardableResult
    open func runMigrationsIfNecessary(
        migrateDatabaseToSchemaVersion: (UInt64, Connection) throws -> Void,
        willMigrateToSchemaVersion: ((UInt64) -> Void)? = nil,
        didMigrateToSchemaVersion: ((UInt64) -> Void)? = nil
    ) throws -> UInt64 {
        try migrate(willMigrateToSchemaVersion, didMigrateToSchemaVersion) { version, record in
            try namingMigration(Self.context(version)) { try migrateDatabaseToSchemaVersion(version, connection) }
            try record()
        }
    }

    /// How an error names the migration to `version`.
    private static func context(_ version: UInt64) -> String { "migration to schema version \(version)" }

    /// Runs `step` for each missing version; `step` calls the `record` it is given to write the
    /// version's bookkeeping row.
    private func migrate(
        _ willMigrateToSchemaVersion: ((UInt64) -> Void)?,
        _ didMigrateToSchemaVersion: ((UInt64) -> Void)?,
        createsTableInFirstStep: Bool = false,
        step: (UInt64, _ record: () throws -> Void) throws -> Void
    ) throws -> UInt64 {
        let current = try readCurrentSchemaVersion()
        guard current <= desiredSchemaVersion else {
            throw MigratorError.databaseNewerThanCode(current: current, desired: desiredSchemaVersion)
        }
        guard current < desiredSchemaVersion else { return 0 }
        if !createsTableInFirstStep { try createMigrationTable() }
        var ran: UInt64 = 0
        for version in (current + 1)...desiredSchemaVersion {
            guard let storedVersion = Int64(exactly: version) else {
                throw MigratorError.versionOutOfRange(version)
            }
            willMigrateToSchemaVersion?(version)
            try step(version) { try store.record(storedVersion, connection) }
            ran += 1
            didMigrateToSchemaVersion?(version)
        }
        return ran
    }
}

/// Why a `Migrator` refused to run.
public enum MigratorError: Error, CustomStringConvertible, Equatable {
    /// The database records a version this code does not know; it was left untouched.
    case databaseNewerThanCode(current: UInt64, desired: UInt64)
    /// Versions are stored as SQLite integers, so they must fit in Int64.
    case versionOutOfRange(UInt64)

    /// A message saying which version check failed and what to do.
    public var description: String {
        switch self {
        case .databaseNewerThanCode(let current, let desired):
            return
                "The database is at schema version \(current), newer than this code's \(desired); it was left untouched. Update the app, or migrate with newer code."
        case .versionOutOfRange(let version):
            return "Schema version \(version) does not fit in a SQLite integer."
        }
    }
}

extension MigratorError: LocalizedError {
    /// The same message as ``description``.
    public var errorDescription: String? { description }
}
