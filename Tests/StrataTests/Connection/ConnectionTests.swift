import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct ConnectionTests {
    @Test func opensEachStorageLocation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let onDisk = try Connection(storageLocation: .onDisk(path))
        let inMemory = try Connection(storageLocation: .inMemory)
        let temporary = try Connection(storageLocation: .temporary)
        #expect(onDisk.fileName == path)
        #expect(inMemory.fileName == "")
        #expect(temporary.fileName == "")
        #expect(StorageLocation.inMemory.path == ":memory:")
        #expect(StorageLocation.temporary.path == "")
        #expect(StorageLocation.onDisk("x").path == "x")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func flagConveniences() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try Connection(storageLocation: .onDisk(path)).execute("CREATE TABLE t(a)")
        let connection = try Connection(storageLocation: .onDisk(path), readOnly: true, multiThreaded: false, sharedCache: false)
        #expect(connection.readOnly)
        #expect(connection.threadSafe)
        #expect(connection.tableLockPolicy == .fastFail)
        let error = sqliteError { try connection.execute("INSERT INTO t VALUES(1)") }
        #expect(error?.code == SQLITE_READONLY)
        #expect(error?.message.contains("readonly") == true)

        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let explicit = try Connection(storageLocation: .onDisk(path), tableLockPolicy: .poll(0.01), flags: flags)
        #expect(!explicit.readOnly)
        #expect(explicit.tableLockPolicy == .poll(0.01))
    }

    @Test func unopenablePathsThrow() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing/nested/db.sqlite")
        let error = sqliteError { _ = try Connection(storageLocation: .onDisk(missing)) }
        #expect(error?.code == SQLITE_CANTOPEN)
        #expect(error?.message.contains("unable to open") == true)

        let readOnlyMissing = sqliteError { _ = try Connection(storageLocation: .onDisk(directory.path("nope.sqlite")), readOnly: true) }
        #expect(readOnlyMissing?.code == SQLITE_CANTOPEN)

        // A directory is not a database.
        let directoryError = sqliteError {
            let connection = try Connection(storageLocation: .onDisk(directory.url.path))
            try connection.execute("CREATE TABLE t(a)")
        }
        #expect(directoryError != nil)

        // A file that is not a database fails on first use, with SQLite's message.
        let garbage = directory.path("garbage.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notADatabase = sqliteError {
            let connection = try Connection(storageLocation: .onDisk(garbage))
            try connection.execute("SELECT * FROM sqlite_master")
        }
        #expect(notADatabase?.code == SQLITE_NOTADB)
    }

    @Test func readmeExecuteExample() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("db")))
        try createReadmeCarsTable(on: connection)
        try insertReadmeCars(on: connection)
        try connection.execute("UPDATE cars SET name = 'Honda' where id = 1")
        // The README writes 61_999; digit separators need SQLite 3.46, so older libraries reject them.
        if sqlite3_libversion_number() < 3_046_000 {
            #expect(throws: SQLiteError.self) { try connection.execute("UPDATE cars SET price = 61_999 where name = 'Mercedes'") }
        }
        try connection.execute("UPDATE cars SET price = 61999 where name = 'Mercedes'")
        #expect(try connection.query("SELECT name FROM cars WHERE id = 1") == "Honda")
        #expect(try connection.query("SELECT price FROM cars WHERE id = 2") == 61_999)
        try connection.execute("DELETE FROM cars where name = 'Mercedes'")
        #expect(try connection.query("SELECT count(*) FROM cars") == 1)
        try connection.execute("DROP TABLE cars")
        #expect(try connection.query("SELECT count(*) FROM sqlite_master WHERE name = 'cars'") == 0)
        #expect(try connection.query("PRAGMA journal_mode") == "wal")
    }

    @Test func executeRunsSeveralStatementsAndReportsTheFailingOne() throws {
        let connection = try Connection()
        try connection.execute("CREATE TABLE a(x); -- comment\n INSERT INTO a VALUES(1); INSERT INTO a VALUES(2);  ")
        #expect(try connection.query("SELECT sum(x) FROM a") == 3)
        let error = sqliteError { try connection.execute("INSERT INTO a VALUES(3); INSERT INTO missing VALUES(1)") }
        #expect(error?.message == "no such table: missing")
        #expect(error?.sql?.contains("missing") == true)
        try connection.execute("")
        try connection.execute("  -- only a comment")
    }

    @Test func propertiesTrackChanges() throws {
        let connection = try makeCarsConnection()
        #expect(connection.lastInsertRowID == 4)
        try connection.run("UPDATE cars SET price = price + 1 WHERE type = ?", "Sedan")
        #expect(connection.changes == 2)
        #expect(connection.totalChanges == 6)
        #expect(!connection.isInTransaction)
    }

    @Test func attachAndDetach() throws {
        let directory = try TemporaryDirectory()
        let other = try Connection(storageLocation: .onDisk(directory.path("other.db")))
        try other.execute("CREATE TABLE things(name TEXT); INSERT INTO things VALUES('lamp')")
        let connection = try Connection()
        try connection.attachDatabase(from: .onDisk(directory.path("other.db")), withName: "ot'her")
        #expect(try connection.query("SELECT name FROM \"ot'her\".things") == "lamp")
        try connection.detachDatabase(named: "ot'her")
        #expect(sqliteError { try connection.execute("SELECT name FROM \"ot'her\".things") } != nil)
        #expect(sqliteError { try connection.detachDatabase(named: "never") }?.message.contains("no such database") == true)
    }

    @Test func interruptStopsALongQuery() throws {
        let connection = try Connection()
        nonisolated(unsafe) let shared = connection
        let thread = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            shared.interrupt()
        }
        thread.start()
        let error = sqliteError {
            let _: Int? = try connection.query(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
            )
        }
        #expect(error?.code == SQLITE_INTERRUPT)
        #expect(error?.message == "interrupted")
    }

    @Test func checkThrowsConnectionError() throws {
        let connection = try Connection()
        #expect(try connection.check(SQLITE_OK) == SQLITE_OK)
        #expect(try connection.check(SQLITE_DONE) == SQLITE_DONE)
        #expect(throws: SQLiteError.self) { try connection.check(SQLITE_ERROR) }
    }

    @Test func errorDescriptionAndCodes() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(c TEXT NOT NULL)")
        let error = try #require(sqliteError { try connection.run("INSERT INTO t VALUES(?)", nil) })
        #expect(error.code == SQLITE_CONSTRAINT)
        #expect(error.extendedCode == 1299 /* SQLITE_CONSTRAINT_NOTNULL */)
        #expect(error.message == "NOT NULL constraint failed: t.c")
        #expect(error.codeDescription == "constraint failed")
        #expect(error.sql == "INSERT INTO t VALUES(?)")
        #expect(error.description == "{ message=\"NOT NULL constraint failed: t.c\", code=19, codeDescription=\"constraint failed\" }")
        #expect(try connection.query("SELECT count(*) FROM t") == 0)
    }

    @Test func escapesStrings() {
        #expect("it's".sqift.addingSQLEscapes() == "'it''s'")
        #expect("".sqift.addingSQLEscapes() == "''")
        #expect("a''b".sqift.addingSQLEscapes() == "'a''''b'")
    }
}
