// Named migrations registered as closures, for new code (GRDB's shape): each runs once, in the
// order registered, through the same engine as SQift's `Migrator` (`VersionedMigration`), with
// the names applied kept in `strata_migrations`.
import StrataKernel
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Named schema migrations, each run once, in the order they were registered.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1") { db in
///     try db.execute("CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// migrator.registerMigration("v2") { db in
///     try db.execute("ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0")
/// }
/// try migrator.migrate(connection)          // or: try await migrator.migrate(database)
/// ```
/// The migrations not yet applied run in one `IMMEDIATE` transaction, with foreign key
/// enforcement off while they run (a table rebuild fires no `ON DELETE` action) and every key
/// checked before the commit: a migration that throws (or breaks a foreign key) leaves the
/// database exactly as it was. Names applied are kept in `strata_migrations`, apart from SQift's
/// `schema_migrations` and `PRAGMA user_version`, so the three never disagree.
public struct DatabaseMigrator: Sendable {
    /// `namesFailures`: the migration opens its own errors' messages with its name (SQL text,
    /// which also names the statement); a closure's errors are named by `migrate`.
    private var migrations: [(identifier: String, migrate: @Sendable (Connection) throws -> Void, namesFailures: Bool)] = []
    /// A name registered twice, reported by `migrate` (registration itself cannot throw).
    private var duplicate: String?

    /// An empty migrator.
    public init() {}

    /// The registered names, in order.
    public var migrationIdentifiers: [String] { migrations.map(\.identifier) }

    /// Registers the migration `identifier`, run after those registered before it.
    ///
    /// Registering one name twice makes every `migrate` throw
    /// ``DatabaseMigratorError/registeredTwice(_:)``, before anything runs.
    public mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (Connection) throws -> Void) {
        register(identifier, migrate, namesFailures: false)
    }

    /// Registers the migration `identifier` as SQL text (one or more statements): a migration
    /// frozen as written, such as `RecordSchemaPlan.frozenMigration(_:)` prints.
    ///
    /// A statement that fails is named in the error with its migration and its place in the
    /// text (`migration "v2", statement 1: duplicate column name: rating`).
    public mutating func registerMigration(_ identifier: String, sql: String) {
        let context = Self.context(identifier)
        register(identifier, { try $0.executeMigrationSQL(sql, context: context) }, namesFailures: true)
    }

    private mutating func register(_ identifier: String, _ migrate: @escaping @Sendable (Connection) throws -> Void, namesFailures: Bool) {
        if duplicate == nil, migrations.contains(where: { $0.identifier == identifier }) { duplicate = identifier }
        migrations.append((identifier, migrate, namesFailures))
    }

    /// How an error names the migration `identifier`.
    private static func context(_ identifier: String) -> String { "migration \(identifier.debugDescription)" }

    /// Runs the migrations not applied yet; returns their names.
    ///
    /// - Throws: ``DatabaseMigratorError/unknownMigration(_:)`` when the database has a migration
    ///   this migrator does not register (a newer app wrote it); what a migration throws, an
    ///   `SQLiteError` with its code and SQL kept and its message opened with the migration
    ///   (`migration "v2": …`, and for SQL text the statement, `migration "v2", statement 1: …`);
    ///   ``DatabaseMigratorError/foreignKeysViolated(_:)`` for the foreign keys the migrations
    ///   broke. The database is then as it was.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> [String] {
        try migrate(connection, upTo: migrations.last?.identifier)
    }

    /// Runs the migrations not applied yet, up to and including `target`; returns their names.
    ///
    /// - Throws: ``DatabaseMigratorError/unregistered(_:)`` when `target` is not registered; as
    ///   `migrate(_:)` on a connection.
    @discardableResult
    public func migrate(_ connection: Connection, upTo target: String?) throws -> [String] {
        if let duplicate { throw DatabaseMigratorError.registeredTwice(duplicate) }
        guard let target else { return [] }
        guard let last = migrations.firstIndex(where: { $0.identifier == target }) else {
            throw DatabaseMigratorError.unregistered(target)
        }
        let chosen = Array(migrations[...last])
        let store = NamedMigrationStore(identifiers: chosen.map(\.identifier), registered: migrationIdentifiers)
        let engine = VersionedMigration(
            steps: chosen.enumerated().map { index, migration in
                let context = Self.context(migration.identifier)
                return VersionedMigration.Step(Int64(index + 1)) { connection in
                    // The trail explains a failure a live definition of an earlier step caused.
                    try connection.state(in: MigrationTrail.slot).run(migration.identifier) {
                        if migration.namesFailures {
                            try migration.migrate(connection)
                        } else {
                            try namingMigration(context) { try migration.migrate(connection) }
                        }
                    }
                }
            },
            store: store)
        connection.state(in: MigrationTrail.slot).begin()
        // The engine runs the last `ran` of them (another process may have run earlier ones).
        let ran = try engine.migrate(connection)
        return chosen.suffix(ran).map(\.identifier)
    }

    /// The names already applied to the connection's database, in the order they were applied.
    public func appliedIdentifiers(_ connection: Connection) throws -> [String] {
        try NamedMigrationStore.applied(connection)
    }

    /// The registered names SQift's ``Migrator`` applied: as for `Migrator`, the highest version N
    /// in `schema_migrations` means the first N registered migrations. A database that never met
    /// SQift's store gives `[]`.
    ///
    /// - Throws: ``DatabaseMigratorError/unknownMigration(_:)`` for a recorded version with no
    ///   registered migration (a newer app wrote it).
    public func schemaMigrationsHistory(_ connection: Connection) throws -> [String] {
        try sqiftHistory(connection).map(\.identifier)
    }

    /// Records in `strata_migrations` the migrations SQift's ``Migrator`` recorded in
    /// `schema_migrations` (version n as the n-th registered name, with SQift's timestamp), so a
    /// database migrated the old way keeps its history and `migrate` runs only what is new.
    /// `schema_migrations` itself is left as it is; names already recorded are skipped, so a
    /// second call records nothing. Returns the names it recorded.
    ///
    /// - Throws: as ``schemaMigrationsHistory(_:)``; `SQLiteError`. A failure records nothing.
    @discardableResult
    public func adoptSchemaMigrationsHistory(_ connection: Connection) throws -> [String] {
        let history = try sqiftHistory(connection)
        guard !history.isEmpty else { return [] }
        // IMMEDIATE on its own: it reads, then writes, and must not fail to upgrade its lock.
        let atomically: (() throws -> [String]) throws -> [String] = { body in
            connection.isInTransaction
                ? try connection.savepoint(named: "strata_adopt_schema_migrations", closure: body)
                : try connection.transaction(transactionType: .immediate, closure: body)
        }
        return try atomically {
            let known = Set(try NamedMigrationStore.applied(connection))
            let missing = history.filter { !known.contains($0.identifier) }
            guard !missing.isEmpty else { return [] }
            try connection.execute(NamedMigrationStore.definition.sql)
            for entry in missing {
                try connection.run(
                    literal: """
                        INSERT INTO \(identifier: NamedMigrationStore.definition.name)(identifier, applied_at)
                        VALUES (\(entry.identifier), \(entry.appliedAt))
                        """)
            }
            return missing.map(\.identifier)
        }
    }

    /// SQift's rule: the highest version recorded is the version reached, so versions 1...N are
    /// applied even where a row is missing (a baseline row); each keeps its row's timestamp, or
    /// the highest row's.
    private func sqiftHistory(_ connection: Connection) throws -> [(identifier: String, appliedAt: String)] {
        let names = migrationIdentifiers
        let rows = try SchemaMigrationsTable().history(connection).filter { $0.version >= 1 }
        guard let highest = rows.last else { return [] }
        guard highest.version <= Int64(names.count) else {
            throw DatabaseMigratorError.unknownMigration("version \(highest.version) in schema_migrations")
        }
        let stamps = Dictionary(rows.map { ($0.version, $0.timestamp) }, uniquingKeysWith: { first, _ in first })
        return (1...highest.version).map { version in (names[Int(version) - 1], stamps[version] ?? highest.timestamp) }
    }

    /// Whether every registered migration has been applied.
    public func hasCompletedMigrations(_ connection: Connection) throws -> Bool {
        Set(try appliedIdentifiers(connection)).isSuperset(of: migrationIdentifiers)
    }
}

/// Why a ``DatabaseMigrator`` did not run.
public enum DatabaseMigratorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database has a migration applied that this migrator does not register: it was
    /// migrated by a newer version of the app.
    case unknownMigration(String)
    /// `migrate(_:upTo:)` named a migration that is not registered.
    case unregistered(String)
    /// Two migrations were registered under one name.
    case registeredTwice(String)
    /// A registered migration was applied without one registered before it (the order changed).
    case outOfOrder(applied: String, missing: String)
    /// The migrations left rows whose foreign keys point nowhere (the violations of each key
    /// whose count they raised); nothing of them was kept.
    case foreignKeysViolated([ForeignKeyViolation])
    /// Called inside an open transaction with foreign keys enforced, on a database whose keys
    /// have ON DELETE or ON UPDATE actions: SQLite cannot turn enforcement off there, so a table
    /// rebuild would run those actions. Migrate outside a transaction (`migrate(_:)` on a
    /// `Database` does).
    case foreignKeysEnforcedInTransaction

    public var description: String {
        switch self {
        case .unknownMigration(let name):
            return "the database has the migration \(name.debugDescription) applied, which this migrator does not register (a newer app migrated it)"
        case .registeredTwice(let name):
            return "two migrations are registered as \(name.debugDescription): each name must be registered once"
        case .unregistered(let name):
            return "no migration named \(name.debugDescription) is registered"
        case .foreignKeysViolated(let violations):
            return "the migration broke \(violations.count) foreign key(s), first \(violations.first.map { "\($0)" } ?? "?"); nothing of it was kept"
        case .foreignKeysEnforcedInTransaction:
            return
                "migrations cannot run inside a transaction with foreign keys enforced on a database whose keys cascade (a rebuild would delete or change rows): migrate outside the transaction, e.g. DatabaseMigrator.migrate(database)"
        case .outOfOrder(let applied, let missing):
            return
                "the migration \(applied.debugDescription) was applied before \(missing.debugDescription), which is registered before it: registrations must keep their order"
        }
    }
}

/// The named migrations' version store: version n means the first n registered names are applied.
private struct NamedMigrationStore: MigrationVersionStore {
    /// The names being migrated to, in order (a prefix of the registered ones).
    let identifiers: [String]
    /// Every registered name, to tell a newer database from a target short of the last.
    let registered: [String]

    static let definition = TableDefinition(
        "strata_migrations",
        columns: [
            .init("identifier", type: "TEXT", [.primaryKey(), .notNull()]),
            .init("applied_at", type: "TEXT", [.notNull()])
        ], ifNotExists: true)

    static func applied(_ connection: Connection) throws -> [String] {
        guard try connection.schemaReader.table(named: definition.name) != nil else { return [] }
        // Every row, not up to the first NULL (a table the app made may allow one): such a row
        // is refused by name rather than read as the end of the history.
        let identifiers: [String?] = try connection.query(
            literal: "SELECT CASE WHEN typeof(identifier) = 'text' THEN identifier END FROM \(identifier: definition.name) ORDER BY rowid"
        ) { row in row[0] as String? }
        return try identifiers.map { identifier in
            guard let identifier else {
                throw SQLiteError(
                    code: SQLITE_MISMATCH, message: "\(definition.name) has a row whose identifier is not text (NULL or a number): fix or delete it")
            }
            return identifier
        }
    }

    func currentVersion(_ connection: Connection) throws -> Int64 {
        let applied = try Self.applied(connection)
        if let unknown = applied.first(where: { !registered.contains($0) }) {
            throw DatabaseMigratorError.unknownMigration(unknown)
        }
        let done = Set(applied)
        var version = 0
        while version < identifiers.count, done.contains(identifiers[version]) { version += 1 }
        if let later = identifiers.dropFirst(version).first(where: { done.contains($0) }) {
            throw DatabaseMigratorError.outOfOrder(applied: later, missing: identifiers[version])
        }
        return Int64(version)
    }

    func record(_ version: Int64, _ connection: Connection) throws {
        try connection.execute(Self.definition.sql)
        let now = try BindingDateFormat.string(from: Date())
        try connection.run(
            literal: """
                INSERT INTO \(identifier: Self.definition.name)(identifier, applied_at)
                VALUES (\(identifiers[Int(version) - 1]), \(now))
                """)
    }
}

extension DatabaseMigratorError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
