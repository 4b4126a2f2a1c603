import Foundation
import StrataSQift
import Strata
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

/// Issue 67: a database SQift's `Migrator` brought to version n keeps that history when its
/// migrations move to a `DatabaseMigrator` (version n is the n-th registered name).
@Suite struct DatabaseMigratorHistoryTests {
    static let steps = [
        "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX player_score ON player(score)"
    ]

    static func migrator(names: [String] = ["001_player", "002_score", "003_index"]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, sql) in zip(names, steps) { migrator.registerMigration(name, sql: sql) }
        return migrator
    }

    /// A database SQift's `Migrator` took to `version`.
    static func sqiftDatabase(at version: UInt64) throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try Migrator(connection: db, desiredSchemaVersion: version)
            .runMigrationsIfNecessary(migrationSQLForSchemaVersion: { steps[Int($0) - 1] })
        return db
    }

    @Test func theOldHistoryIsAdoptedOnceAndOnlyTheRestRuns() throws {
        let db = try Self.sqiftDatabase(at: 2)
        let stamps: [String] = try db.query("SELECT migration_timestamp FROM schema_migrations ORDER BY version")
        let migrator = Self.migrator()
        #expect(try migrator.schemaMigrationsHistory(db) == ["001_player", "002_score"])
        #expect(try migrator.appliedIdentifiers(db) == [])
        #expect(try migrator.adoptSchemaMigrationsHistory(db) == ["001_player", "002_score"])
        #expect(try migrator.adoptSchemaMigrationsHistory(db) == [])
        #expect(try migrator.appliedIdentifiers(db) == ["001_player", "002_score"])
        let adoptedStamps: [String] = try db.query("SELECT applied_at FROM strata_migrations ORDER BY rowid")
        #expect(adoptedStamps == stamps)
        #expect(try migrator.migrate(db) == ["003_index"])
        // SQift's table is history: left exactly as it was.
        #expect(try db.query("SELECT version FROM schema_migrations ORDER BY version") as [Int64] == [1, 2])
    }

    @Test func aVersionNoMigrationIsRegisteredForIsRefusedAndNothingIsRecorded() throws {
        let db = try Self.sqiftDatabase(at: 3)
        let migrator = Self.migrator(names: ["001_player", "002_score"])
        #expect(throws: DatabaseMigratorError.unknownMigration("version 3 in schema_migrations")) {
            try migrator.adoptSchemaMigrationsHistory(db)
        }
        #expect(try db.schemaReader.table(named: "strata_migrations") == nil)
    }

    /// SQift counts the highest version: a baseline row for version 2 alone means 1 and 2 ran.
    @Test func aBaselineRowCountsAsEveryVersionUpToIt() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE schema_migrations(version INTEGER UNIQUE NOT NULL, migration_timestamp TEXT NOT NULL);
            INSERT INTO schema_migrations VALUES (2, '2020-01-02T00:00:00.000');
            \(Self.steps[0]); \(Self.steps[1]);
            """)
        let migrator = Self.migrator()
        #expect(try migrator.schemaMigrationsHistory(db) == ["001_player", "002_score"])
        #expect(try migrator.adoptSchemaMigrationsHistory(db) == ["001_player", "002_score"])
        let stamps: [String] = try db.query("SELECT applied_at FROM strata_migrations ORDER BY rowid")
        #expect(stamps == ["2020-01-02T00:00:00.000", "2020-01-02T00:00:00.000"])
        #expect(try migrator.migrate(db) == ["003_index"])
    }

    /// A failed adoption (a `strata_migrations` the app made in another shape) throws, leaves no
    /// transaction open and records nothing.
    @Test func aFailedAdoptionLeavesNoTransactionAndRecordsNothing() throws {
        let db = try Self.sqiftDatabase(at: 2)
        try db.execute("CREATE TABLE strata_migrations(identifier TEXT PRIMARY KEY, applied_at TEXT NOT NULL, note TEXT NOT NULL)")
        #expect(throws: SQLiteError.self) { try Self.migrator().adoptSchemaMigrationsHistory(db) }
        #expect(sqlite3_get_autocommit(db.handle) != 0)
        #expect(try db.query("SELECT count(*) FROM strata_migrations") as Int? == 0)
        #expect(try db.query("SELECT version FROM schema_migrations ORDER BY version") as [Int64] == [1, 2])
    }

    /// A row the app wrote with a NULL identifier is refused by name, not read as the end of the
    /// history (which would run applied migrations again).
    @Test func aNullIdentifierIsRefusedNotTakenAsTheEnd() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE strata_migrations(identifier TEXT PRIMARY KEY, applied_at TEXT);
            INSERT INTO strata_migrations VALUES (NULL, 'x'), ('001_player', 'y');
            \(Self.steps[0]);
            """)
        #expect(throws: SQLiteError.self) { try Self.migrator().migrate(db) }
        #expect(throws: SQLiteError.self) { try Self.migrator().appliedIdentifiers(db) }
        #expect(try db.schemaReader.columns(ofTable: "player").map(\.name) == ["id", "name"])
        #expect(sqlite3_get_autocommit(db.handle) != 0)
    }

    @Test func aDatabaseWithoutTheOldStoreAdoptsNothing() throws {
        let db = try Connection(storageLocation: .inMemory)
        #expect(try Self.migrator().adoptSchemaMigrationsHistory(db) == [])
        #expect(try db.schemaReader.userTableNames().isEmpty)
    }
}
