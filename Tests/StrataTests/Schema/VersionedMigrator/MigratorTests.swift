import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
#if canImport(SQLite3)
import SQLite3
#endif

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
        #expect(
            log == [
                "Will migrate to schema version: 1", "Did migrate to schema version: 1",
                "Will migrate to schema version: 2", "Did migrate to schema version: 2"
            ])
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
                    migrationSQLForSchemaVersion: { version in
                        version == 2 ? "CREATE TABLE v2(x); INSERT INTO missing VALUES(1)" : "CREATE TABLE v\(version)(x)"
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

    /// SQift's closure form is not wrapped in a transaction: the closure may open its own.
    @Test func closureFormMayOpenItsOwnTransactions() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("db")))
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
        var inTransaction: [Bool] = []
        try migrator.runMigrationsIfNecessary(migrateDatabaseToSchemaVersion: { version, connection in
            inTransaction.append(connection.isInTransaction)
            try connection.transaction {
                try connection.execute("CREATE TABLE t\(version)(x)")
            }
            // The closure's own work is committed; the version is recorded after it returns.
            #expect(Migrator(connection: connection, desiredSchemaVersion: 2).currentSchemaVersion == version - 1)
        })
        #expect(inTransaction == [false, false])
        #expect(migrator.currentSchemaVersion == 2)

        // A closure that throws after committing its own transaction: its work stays, the version
        // is not recorded.
        let next = Migrator(connection: connection, desiredSchemaVersion: 3)
        #expect(throws: SQLiteError.self) {
            try next.runMigrationsIfNecessary(migrateDatabaseToSchemaVersion: { _, connection in
                try connection.transaction { try connection.execute("CREATE TABLE t3(x)") }
                try connection.execute("INSERT INTO missing VALUES(1)")
            })
        }
        #expect(next.currentSchemaVersion == 2)
        #expect(try connection.query("SELECT count(*) FROM sqlite_master WHERE name = 't3'") == 1)
    }

    @Test func unreadableVersionIsThrownNotTakenAsZero() throws {
        let directory = try TemporaryDirectory()
        let connection = try makeConnection(.onDisk(directory.path("db")), executing: "CREATE TABLE schema_migrations(something_else TEXT)")
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 1)
        var ran = false
        let error = sqliteError {
            try migrator.runMigrationsIfNecessary(migrateDatabaseToSchemaVersion: { _, _ in ran = true })
        }
        #expect(error?.message == "no such column: version")
        #expect(!ran)

        let garbage = directory.path("not-a-database")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notADatabase = Migrator(connection: try Connection(storageLocation: .onDisk(garbage)), desiredSchemaVersion: 1)
        let notADatabaseError = sqliteError {
            try notADatabase.runMigrationsIfNecessary(migrationSQLForSchemaVersion: { _ in "CREATE TABLE t(x)" })
        }
        #expect(notADatabaseError?.code == SQLITE_NOTADB)
    }
}
