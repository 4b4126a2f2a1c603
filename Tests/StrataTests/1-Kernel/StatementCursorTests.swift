import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// The kernel's one walk over multi-statement SQL.
@Suite struct StatementCursorTests {
    @Test func laterStatementsUseWhatEarlierOnesCreated() throws {
        let db = try Connection(storageLocation: .inMemory)
        let cursor = db.statements(in: """
            -- a script as a user writes it
            CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO cars(name) VALUES('Audi'), ('Volvo');;
            /* the last one returns rows */ SELECT name FROM cars ORDER BY id; -- trailing comment
            """)
        var seen: [(sql: String, last: Bool)] = []
        var names: [String] = []
        while let statement = try cursor.next() {
            seen.append((statement.sql.trimmingCharacters(in: .whitespacesAndNewlines), cursor.isAtLastStatement))
            if cursor.isAtLastStatement {
                names = try statement.query()
            } else {
                try statement.run()
            }
        }
        #expect(seen.map(\.last) == [false, false, true])
        #expect(seen.last?.sql.hasSuffix("SELECT name FROM cars ORDER BY id;") == true)
        #expect(names == ["Audi", "Volvo"])
        #expect(try cursor.next() == nil)
    }

    @Test func aStatementThatFailsToCompileThrowsAndEarlierOnesStayDone() throws {
        let db = try Connection(storageLocation: .inMemory)
        let cursor = db.statements(in: "CREATE TABLE t(a); INSERT INTO t VALUES(1); SELEC oops; INSERT INTO t VALUES(2)")
        try cursor.next()?.run()
        try cursor.next()?.run()
        #expect(throws: SQLiteError.self) { try cursor.next() }
        #expect(try db.query("SELECT count(*) FROM t") as Int? == 1)
    }

    @Test func triggerBodiesWithSemicolonsStayWhole() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("""
            CREATE TABLE t(a); CREATE TABLE log(a);
            CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.a); INSERT INTO log VALUES(-new.a); END;
            INSERT INTO t VALUES(7);
            """)
        #expect(try db.query("SELECT group_concat(a) FROM (SELECT a FROM log ORDER BY rowid)") as String? == "7,-7")
    }

    @Test func emptyScriptsHaveNoStatement() throws {
        let db = try Connection(storageLocation: .inMemory)
        for script in ["", "  ", ";;", "-- only a comment", "/* unterminated", "/* c */ ; -- x\n"] {
            #expect(try db.statements(in: script).next() == nil, "\(script)")
        }
    }

    @Test func prepareRefusesASecondStatementWithoutCompilingIt() throws {
        let db = try Connection(storageLocation: .inMemory)
        // The second statement names a table that does not exist: the error is about two statements.
        let error = sqliteError { _ = try db.prepare("SELECT 1; SELECT * FROM missing") }
        #expect(error?.code == SQLITE_MISUSE)
        #expect(error?.message.contains("more than one statement") == true)
        #expect(try db.prepare("SELECT 1; -- done").query() as Int? == 1)
    }

    @Test func sqlTextHasStatementReadsCommentsAsSQLiteDoes() {
        #expect(!sqlTextHasStatement(" \n\t;"))
        #expect(!sqlTextHasStatement("-- x\n/* y */;"))
        #expect(sqlTextHasStatement("-- x\nSELECT 1"))
        #expect(sqlTextHasStatement("/* y */ x"))
        #expect(sqlTextHasStatement("-x"))
        #expect(!sqlTextHasStatement("/* a * / b"))
    }
}

extension StatementCursorTests {
    @Test func readmeScriptExample() throws {
        let db = try Connection(storageLocation: .inMemory)
        let cursor = db.statements(in: """
            CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO cars(name) VALUES('Audi'), ('Volvo');
            SELECT name FROM cars ORDER BY id;
            """)
        var names: [String] = []
        while let statement = try cursor.next() {
            if cursor.isAtLastStatement { names = try statement.query() } else { try statement.run() }
        }
        #expect(names == ["Audi", "Volvo"])
    }
}
