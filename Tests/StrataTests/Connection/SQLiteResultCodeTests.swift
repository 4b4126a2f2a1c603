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

/// Named result codes, matched against the errors real SQLite statements throw.
@Suite struct SQLiteResultCodeTests {
    /// A connection with every kind of constraint to break.
    func makeConstrainedConnection() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE team(code TEXT PRIMARY KEY);
            CREATE TABLE player(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT NOT NULL,
                                score INTEGER CHECK (score >= 0), team TEXT REFERENCES team(code));
            CREATE TABLE typed(n INTEGER) STRICT;
            CREATE TRIGGER no_bots BEFORE INSERT ON player WHEN new.name = 'bot'
                BEGIN SELECT RAISE(ABORT, 'no bots'); END;
            INSERT INTO team VALUES ('red');
            INSERT INTO player VALUES (1, 'ann@example.com', 'Ann', 3, 'red');
            """)
        return db
    }

    @Test(
        arguments: [
            ("INSERT INTO team VALUES ('red')", SQLiteResultCode.constraintPrimaryKey, 1555),
            ("INSERT INTO player(id, name) VALUES (1, 'Bob')", .constraintPrimaryKey, 1555),
            ("INSERT INTO player(email, name) VALUES ('ann@example.com', 'Bob')", .constraintUnique, 2067),
            ("INSERT INTO player(name) VALUES (NULL)", .constraintNotNull, 1299),
            ("INSERT INTO player(name, team) VALUES ('Bob', 'blue')", .constraintForeignKey, 787),
            ("INSERT INTO player(name, score) VALUES ('Bob', -1)", .constraintCheck, 275),
            ("INSERT INTO player(name) VALUES ('bot')", .constraintTrigger, 1811),
            ("INSERT INTO typed VALUES ('many')", .constraintDataType, 3091)
        ] as [(String, SQLiteResultCode, Int32)])
    func constraintErrorsCarryTheirExtendedCode(sql: String, expected: SQLiteResultCode, raw: Int32) throws {
        let db = try makeConstrainedConnection()
        let error = try #require(sqliteError { try db.execute(sql) })
        #expect(error.resultCode == expected)
        #expect(error.resultCode.rawValue == raw)
        #expect(error.resultCode.rawValue == error.extendedCode)
        #expect(error.resultCode.primary == .constraint)
        #expect(error.resultCode.primary.rawValue == error.code)
        #expect(error.resultCode.isExtended)
        #expect(error.resultCode != .constraint)
    }

    @Test func matchesInSwitchesAndPatterns() throws {
        let db = try makeConstrainedConnection()
        let error = try #require(sqliteError { try db.run("INSERT INTO player(email, name) VALUES (?, ?)", "ann@example.com", "Bob") })
        let verdict: String
        switch error.resultCode {
        case .constraintPrimaryKey: verdict = "key"
        case .constraintUnique: verdict = "taken"
        default: verdict = "other"
        }
        #expect(verdict == "taken")
        if case .constraintUnique = error.resultCode {} else { Issue.record("case pattern did not match") }
        switch error.resultCode.primary {
        case .constraint: break
        default: Issue.record("primary is \(error.resultCode.primary)")
        }
        do {
            try db.run("INSERT INTO player(name) VALUES (?)", nil as String?)
            Issue.record("expected NOT NULL to fail")
        } catch let error as SQLiteError where error.resultCode == .constraintNotNull {
            #expect(error.message == "NOT NULL constraint failed: player.name")
        }
    }

    @Test func otherErrorsAreNamedToo() throws {
        let db = try makeConstrainedConnection()
        let syntax = try #require(sqliteError { try db.execute("SELEC 1") })
        #expect(syntax.resultCode == .error)
        #expect(syntax.resultCode.primary == .error)
        #expect(!syntax.resultCode.isExtended)
        let mismatch = try #require(sqliteError { try db.execute("INSERT INTO player(id, name) VALUES ('x', 'Bob')") })
        #expect(mismatch.resultCode == .mismatch)

        let directory = try TemporaryDirectory()
        let cantOpen = try #require(sqliteError { _ = try Connection(storageLocation: .onDisk(directory.path("missing/db.sqlite"))) })
        #expect(cantOpen.resultCode.primary == .cantOpen)

        try Data("this is not a database, only text that is long enough to fill a header".utf8)
            .write(to: URL(fileURLWithPath: directory.path("text.db")))
        let text = try Connection(storageLocation: .onDisk(directory.path("text.db")))
        let notADatabase = try #require(sqliteError { try text.execute("SELECT * FROM sqlite_master") })
        #expect(notADatabase.resultCode == .notADatabase)

        let path = directory.path("read-only.db")
        try Connection(storageLocation: .onDisk(path)).execute("CREATE TABLE t(x)")
        let readOnly = try Connection(storageLocation: .onDisk(path), readOnly: true)
        let refused = try #require(sqliteError { try readOnly.execute("INSERT INTO t VALUES (1)") })
        #expect(refused.resultCode == .readOnly)
    }

    @Test func busyAndBusySnapshotBetweenTwoConnections() throws {
        let files = try TwoConnections(named: "busy.db") { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        let (writer, other) = (files.mine, files.other)
        try other.busyHandler(.defaultBehavior)

        try writer.execute("BEGIN IMMEDIATE")
        let busy = try #require(sqliteError { try other.execute("BEGIN IMMEDIATE") })
        #expect(busy.resultCode == .busy)
        #expect(busy.resultCode.primary == .busy)
        try writer.execute("COMMIT")

        // A read transaction whose snapshot a later commit made stale cannot start writing.
        try other.execute("BEGIN")
        let _: Int? = try other.query("SELECT count(*) FROM t")
        try writer.execute("INSERT INTO t VALUES (2)")
        let stale = try #require(sqliteError { try other.execute("INSERT INTO t VALUES (3)") })
        #expect(stale.resultCode == .busySnapshot)
        #expect(stale.resultCode.primary == .busy)
        #expect(stale.code == SQLITE_BUSY)
        try other.execute("ROLLBACK")
    }

    @Test func rawValuesMatchSQLiteHeader() {
        // The primary codes are importable from SQLite3; the extended ones are C macros that are not.
        #expect(SQLiteResultCode.ok.rawValue == SQLITE_OK)
        #expect(SQLiteResultCode.busy.rawValue == SQLITE_BUSY)
        #expect(SQLiteResultCode.internal.rawValue == SQLITE_INTERNAL)
        #expect(SQLiteResultCode.protocol.rawValue == SQLITE_PROTOCOL)
        #expect(SQLiteResultCode.notADatabase.rawValue == SQLITE_NOTADB)
        #expect(SQLiteResultCode.warning.rawValue == SQLITE_WARNING)
        #expect(SQLiteResultCode.row.rawValue == SQLITE_ROW)
        #expect(SQLiteResultCode.done.rawValue == SQLITE_DONE)
        #expect(SQLiteResultCode.ioErrorShortRead.rawValue == 522)
        #expect(SQLiteResultCode.ioErrorCorruptFS.rawValue == 8458)
        #expect(SQLiteResultCode.busyTimeout.rawValue == 773)
        #expect(SQLiteResultCode.readOnlyDatabaseMoved.rawValue == 1032)
        #expect(SQLiteResultCode.lockedSharedCache.rawValue == 262)
        #expect(SQLiteResultCode.constraintRowID.rawValue == 2579)
        #expect(SQLiteResultCode.okSymlink.rawValue == 512)
    }

    @Test func everyNamedCodeHasOneNameAndItsPrimary() {
        let codes = SQLiteResultCode.named.map(\.0)
        #expect(Set(codes).count == codes.count)
        #expect(Set(SQLiteResultCode.named.map(\.1)).count == codes.count)
        for (code, name) in SQLiteResultCode.named {
            #expect(code.description == name)
            #expect(code.primary.rawValue == code.rawValue & 0xFF)
            // Each extended code is named after its primary code.
            #expect(name.hasPrefix(code.primary.description), "\(name)")
            // SQLite's own English text exists for each primary code.
            #expect(!String(cString: sqlite3_errstr(code.rawValue)).isEmpty)
        }
        #expect(codes.count == 31 + 77)
        #expect(SQLiteResultCode.constraintPrimaryKey.primary == .constraint)
        #expect(SQLiteResultCode.busy.primary == .busy)
        #expect("\(SQLiteResultCode.constraintPrimaryKey)" == "constraintPrimaryKey")
        #expect(SQLiteResultCode(rawValue: 19 | 99 << 8).description == "code 25363 (constraint)")
        #expect(SQLiteResultCode(rawValue: 99).description == "code 99")
        #expect(SQLiteResultCode(rawValue: 1555) == .constraintPrimaryKey)
    }

    @Test func errorsStrataBuildsAreNamedByTheirCode() {
        let error = SQLiteError(code: 19, message: "m", extendedCode: 2067)
        #expect(error.resultCode == .constraintUnique)
        #expect(SQLiteError(code: 5, message: "m").resultCode == .busy)
    }
}
