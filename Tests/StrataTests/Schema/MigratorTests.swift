import Foundation
import Testing
@testable import Strata

@Suite struct MigratorTests {
    @Test func readmeExample() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("db")))
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
        #expect(migrator.currentSchemaVersion == 0)
        #expect(migrator.migrationRequired)
        #expect(!migrator.migrationTableExists)
        var log: [String] = []
        let ran = try migrator.runMigrationsIfNecessary(
            migrationSQLForSchemaVersion: { version in
                var SQL: String = ""
                switch version {
                case 1: return "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)"
                case 2: return "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, address TEXT)"
                default: break
                }
                SQL = ""
                return SQL
            },
            willMigrateToSchemaVersion: { version in log.append("Will migrate to schema version: \(version)") },
            didMigrateToSchemaVersion: { version in log.append("Did migrate to schema version: \(version)") }
        )
        #expect(ran == 2)
        #expect(log == ["Will migrate to schema version: 1", "Did migrate to schema version: 1",
                        "Will migrate to schema version: 2", "Did migrate to schema version: 2"])
        #expect(migrator.currentSchemaVersion == 2)
        #expect(!migrator.migrationRequired)
        let timestamps: [String] = try connection.query("SELECT migration_timestamp FROM schema_migrations ORDER BY version")
        #expect(timestamps.count == 2 && timestamps.allSatisfy { $0.count == 23 })
        #expect(try migrator.runMigrationsIfNecessary(migrationSQLForSchemaVersion: { _ in "bad sql" }) == 0)
    }

    @Test func failingVersionStopsAtTheLastGoodOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db")
        do {
            let connection = try Connection(storageLocation: .onDisk(path))
            let migrator = Migrator(connection: connection, desiredSchemaVersion: 3)
            var did: [UInt64] = []
            #expect(throws: SQLiteError.self) {
                try migrator.runMigrationsIfNecessary(
                    migrateDatabaseToSchemaVersion: { version, connection in
                        try connection.execute("CREATE TABLE v\(version)(x)")
                        if version == 2 { try connection.execute("INSERT INTO missing VALUES(1)") }
                    },
                    didMigrateToSchemaVersion: { did.append($0) }
                )
            }
            #expect(did == [1])
        }
        let reopened = try Connection(storageLocation: .onDisk(path))
        let migrator = Migrator(connection: reopened, desiredSchemaVersion: 3)
        #expect(migrator.currentSchemaVersion == 1)
        let tables: [String] = try reopened.query("SELECT name FROM sqlite_master WHERE name LIKE 'v%' ORDER BY name")
        #expect(tables == ["v1"])
        try migrator.runMigrationsIfNecessary(migrateDatabaseToSchemaVersion: { version, connection in
            try connection.execute("CREATE TABLE v\(version)(x)")
        })
        #expect(migrator.currentSchemaVersion == 3)
    }

    @Test func newerDatabaseIsLeftUntouched() throws {
        let connection = try Connection()
        try Migrator(connection: connection, desiredSchemaVersion: 3)
            .runMigrationsIfNecessary(migrationSQLForSchemaVersion: { "CREATE TABLE t\($0)(x)" })
        let older = Migrator(connection: connection, desiredSchemaVersion: 2)
        #expect(throws: MigratorError.databaseNewerThanCode(current: 3, desired: 2)) {
            try older.runMigrationsIfNecessary(migrationSQLForSchemaVersion: { _ in "DROP TABLE t1" })
        }
        #expect(try connection.query("SELECT count(*) FROM sqlite_master WHERE name LIKE 't%'") == 3)
        #expect(MigratorError.databaseNewerThanCode(current: 3, desired: 2).description.contains("left untouched"))
    }
}
