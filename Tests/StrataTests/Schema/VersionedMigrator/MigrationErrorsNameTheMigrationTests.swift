// A migration that fails says which one, and where in it, while the error stays the
// `SQLiteError` SQLite reported (same code, same failing SQL), and the database stays as it was.
import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct MigrationErrorsNameTheMigrationTests {
    /// Every schema entry and every recorded migration, to compare before and after a failure.
    static func snapshot(_ db: Connection) throws -> [String] {
        let entries: [String] = try db.query("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY 1")
        guard try db.schemaReader.table(named: "strata_migrations") != nil else { return entries }
        let applied: [String] = try db.query("SELECT identifier FROM strata_migrations ORDER BY rowid")
        return entries + applied
    }

    static func v1(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v1", sql: "CREATE TABLE bookmark(id INTEGER PRIMARY KEY, url TEXT NOT NULL, rating REAL)")
    }

    @Test func aFrozenSQLMigrationNamesItselfAndTheStatement() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(storageLocation: .onDisk(directory.path("app.sqlite")))
        var migrator = DatabaseMigrator()
        Self.v1(&migrator)
        try migrator.migrate(db)
        try db.execute("INSERT INTO bookmark(url) VALUES ('https://swift.org')")
        let before = try Self.snapshot(db)

        migrator.registerMigration(
            "v2",
            sql: """
                CREATE INDEX bookmark_url ON bookmark(url);
                ALTER TABLE bookmark ADD COLUMN rating REAL;
                """)
        let error = try #require(sqliteError { try migrator.migrate(db) })
        #expect(error.message == #"migration "v2", statement 2: duplicate column name: rating"#)
        #expect(error.code == SQLITE_ERROR)
        #expect(error.resultCode == .error)
        #expect(error.sql?.contains("ADD COLUMN rating") == true)
        #expect(error.localizedDescription.contains(#"migration "v2""#))
        // Nothing of v2 is kept: not its index, not its record.
        #expect(try Self.snapshot(db) == before)
        #expect(try migrator.appliedIdentifiers(db) == ["v1"])
        #expect(try db.query("SELECT count(*) FROM bookmark") as Int? == 1)
    }

    @Test func aClosureMigrationIsNamedAndOtherErrorsPassThrough() throws {
        let db = try Connection(storageLocation: .inMemory)
        var migrator = DatabaseMigrator()
        Self.v1(&migrator)
        migrator.registerMigration("add rating") { try $0.execute("ALTER TABLE bookmark ADD COLUMN rating REAL") }
        let error = try #require(sqliteError { try migrator.migrate(db) })
        #expect(error.message == #"migration "add rating": duplicate column name: rating"#)
        #expect(error.code == SQLITE_ERROR)
        #expect(try db.schemaReader.userTableNames().isEmpty)

        // An error of the app's own is the app's: thrown as it was.
        struct Refused: Error, Equatable {}
        var own = DatabaseMigrator()
        Self.v1(&own)
        own.registerMigration("v2") { _ in throw Refused() }
        #expect(throws: Refused()) { try own.migrate(db) }
        #expect(try db.schemaReader.userTableNames().isEmpty)
    }

    /// SQift's `Migrator` still throws `SQLiteError`, code unchanged, caught as SQift code
    /// catches it; the message names the version, and the statement for SQL text.
    @Test func sqiftsMigratorNamesTheVersion() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("sqift.sqlite")))
        let sql: (UInt64) -> String = { version in
            version == 1 ? "CREATE TABLE bookmark(id INTEGER PRIMARY KEY, url TEXT, rating REAL)" : "ALTER TABLE bookmark ADD COLUMN rating REAL"
        }
        try Migrator(connection: connection, desiredSchemaVersion: 1).runMigrationsIfNecessary(migrationSQLForSchemaVersion: sql)
        let before = try Self.snapshot(connection)
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
        do {
            try migrator.runMigrationsIfNecessary(migrationSQLForSchemaVersion: sql)
            Issue.record("version 2 should have failed")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_ERROR)
            #expect(error.message == "migration to schema version 2, statement 1: duplicate column name: rating")
        }
        #expect(migrator.currentSchemaVersion == 1)
        #expect(try Self.snapshot(connection) == before)

        let error = sqliteError {
            try migrator.runMigrationsIfNecessary(migrateDatabaseToSchemaVersion: { _, connection in
                try connection.execute("INSERT INTO missing VALUES (1)")
            })
        }
        #expect(error?.message == "migration to schema version 2: no such table: missing")
        #expect(migrator.currentSchemaVersion == 1)
    }

    @Test func theSchemaDSLNamesTheVersionAndStep() throws {
        let db = try Connection(storageLocation: .inMemory)
        let schema = Schema { schema in
            schema.version(1) { v1 in
                v1.createTable("bookmark") { table in
                    table.primaryKey("id")
                    table.column("url", type: .Text)
                }
            }
            schema.version(2) { v2 in
                v2.execute { db in try db.execute("INSERT INTO bookmark(url) VALUES ('a')") }
                v2.execute { db in try db.execute("INSERT INTO missing VALUES (1)") }
            }
        }
        try schema.migrate(db, toVersion: 1)
        let error = try #require(sqliteError { try schema.migrate(db) })
        #expect(error.message == "schema version 2, step 2: no such table: missing")
        #expect(try db.query("PRAGMA user_version") as Int? == 1)
        #expect(try db.query("SELECT count(*) FROM bookmark") as Int? == 0)
    }
}
