import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Named migrations: each once, in order, all pending ones in one transaction that a failure
/// leaves undone, refusing a database a newer app migrated.
@Suite struct DatabaseMigratorTests {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { try $0.execute("CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL)") }
        migrator.registerMigration("v2") { try $0.execute("ALTER TABLE player ADD COLUMN score INTEGER NOT NULL DEFAULT 0") }
        return migrator
    }

    @Test func pendingMigrationsRunOnceInOrder() throws {
        let db = try Connection(storageLocation: .inMemory)
        var migrator = Self.migrator()
        #expect(try migrator.migrate(db) == ["v1", "v2"])
        #expect(try migrator.migrate(db) == [])
        #expect(try migrator.appliedIdentifiers(db) == ["v1", "v2"])
        #expect(try migrator.hasCompletedMigrations(db))
        migrator.registerMigration("v3") { try $0.execute("CREATE INDEX player_score ON player(score)") }
        #expect(try !migrator.hasCompletedMigrations(db))
        #expect(try migrator.migrate(db) == ["v3"])
        #expect(try db.schemaReader.columns(ofTable: "player").map(\.name) == ["id", "name", "score"])
        // Apart from SQift's and Squeal's version stores.
        #expect(try db.query("PRAGMA user_version") as Int? == 0)
        #expect(try db.schemaReader.table(named: "schema_migrations") == nil)
    }

    @Test func aNameRegisteredTwiceIsThrownBeforeAnythingRuns() throws {
        let db = try Connection(storageLocation: .inMemory)
        var migrator = Self.migrator()
        migrator.registerMigration("v1") { try $0.execute("CREATE TABLE other(x)") }
        #expect(throws: DatabaseMigratorError.registeredTwice("v1")) { try migrator.migrate(db) }
        #expect(try db.schemaReader.userTableNames().isEmpty)
    }

    @Test func upToStopsAtTheNamedMigration() throws {
        let db = try Connection(storageLocation: .inMemory)
        let migrator = Self.migrator()
        #expect(try migrator.migrate(db, upTo: "v1") == ["v1"])
        #expect(try db.schemaReader.columns(ofTable: "player").map(\.name) == ["id", "name"])
        #expect(throws: DatabaseMigratorError.unregistered("v9")) { try migrator.migrate(db, upTo: "v9") }
        #expect(try migrator.migrate(db) == ["v2"])
    }

    @Test func aFailingMigrationLeavesTheDatabaseAsItWas() throws {
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        var migrator = Self.migrator()
        struct Refused: Error {}
        migrator.registerMigration("v3") { db in
            try db.execute("CREATE TABLE team(id INTEGER PRIMARY KEY)")
            throw Refused()
        }
        #expect(throws: Refused.self) { try migrator.migrate(db) }
        #expect(try db.schemaReader.userTableNames().isEmpty)
        #expect(!db.isInTransaction)
        // A broken foreign key is caught before the commit, by name.
        var breaking = Self.migrator()
        breaking.registerMigration("v3") { db in
            try db.execute("CREATE TABLE team(id INTEGER PRIMARY KEY); CREATE TABLE member(team INTEGER REFERENCES team(id))")
            try db.execute("PRAGMA defer_foreign_keys = ON; INSERT INTO member VALUES (7)")
        }
        #expect { try breaking.migrate(db) } throws: { error in
            guard case DatabaseMigratorError.foreignKeysViolated(let violations) = error else { return false }
            return violations.count == 1 && violations.first?.table == "member"
        }
        #expect(try db.schemaReader.userTableNames().isEmpty)
        #expect(try db.foreignKeysEnabled(), "enforcement is on again after the failed migration")
        // A violation that was there before is not the migration's: it does not stop it.
        try db.execute(
            "PRAGMA foreign_keys = OFF; CREATE TABLE team(id INTEGER PRIMARY KEY); CREATE TABLE member(team INTEGER REFERENCES team(id)); INSERT INTO member VALUES (7); PRAGMA foreign_keys = ON"
        )
        #expect(try Self.migrator().migrate(db) == ["v1", "v2"])
    }

    /// A team with two members whose key cascades on delete.
    static let teamsWithCascadingMembers = """
        CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE member(id INTEGER PRIMARY KEY, team INTEGER REFERENCES team(id) ON DELETE CASCADE);
        INSERT INTO team VALUES (1, 'a'); INSERT INTO member VALUES (1, 1), (2, 1);
        """

    /// One migration that rebuilds the parent table (so it drops it).
    static func teamRebuild() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(
            "rebuild team",
            sql: """
                CREATE TABLE team_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
                INSERT INTO team_new SELECT id, coalesce(name, '') FROM team;
                DROP TABLE team;
                ALTER TABLE team_new RENAME TO team;
                """)
        return migrator
    }

    /// A rebuild inside a migration (DROP TABLE of a parent) fires no ON DELETE action: the
    /// children's rows survive, as enforcement is off while the steps run.
    @Test func aRebuildInsideAMigrationKeepsTheChildren() throws {
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        try db.execute(Self.teamsWithCascadingMembers)
        try Self.teamRebuild().migrate(db)
        #expect(try db.query("SELECT count(*) FROM member") as Int? == 2)
        #expect(try db.foreignKeysEnabled())
    }

    @Test func aDatabaseFromANewerAppIsRefusedByName() throws {
        let db = try Connection(storageLocation: .inMemory)
        var newer = Self.migrator()
        newer.registerMigration("v3") { try $0.execute("CREATE TABLE team(id INTEGER PRIMARY KEY)") }
        try newer.migrate(db)
        #expect(throws: DatabaseMigratorError.unknownMigration("v3")) { try Self.migrator().migrate(db) }
        var reordered = DatabaseMigrator()
        reordered.registerMigration("v1") { _ in }
        reordered.registerMigration("v1.5") { _ in }
        reordered.registerMigration("v2") { _ in }
        reordered.registerMigration("v3") { _ in }
        #expect(throws: DatabaseMigratorError.outOfOrder(applied: "v2", missing: "v1.5")) { try reordered.migrate(db) }
    }

    @Test func migratesADatabaseOnItsWriter() async throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.path("app.sqlite"))
        #expect(try await Self.migrator().migrate(database) == ["v1", "v2"])
        let count = try await database.read { try $0.query("SELECT count(*) FROM strata_migrations") as Int? }
        #expect(count == 2)
        try await database.close()
    }

    /// Inside an open transaction SQLite cannot turn enforcement off: on a database whose keys
    /// cascade, the migrator refuses by name rather than let a rebuild delete the children.
    @Test func insideATransactionWithCascadingKeysItRefusesByName() async throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.path("app.sqlite"))
        try await database.write { try $0.execute(Self.teamsWithCascadingMembers) }
        let migrator = Self.teamRebuild()
        let inside = migrator
        await #expect(throws: DatabaseMigratorError.foreignKeysEnforcedInTransaction) {
            try await database.write { try inside.migrate($0) }
        }
        // The Database form runs outside a transaction, with enforcement off around it.
        #expect(try await migrator.migrate(database) == ["rebuild team"])
        let members = try await database.read { try $0.query("SELECT count(*) FROM member") as Int? }
        #expect(members == 2)
        try await database.close()
    }
}
