import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Walks `cursor` as a script runner does: every statement but the last runs, and the last one's
/// rows are the names returned; `visit` sees each statement first, and whether it is the last.
private func runScript(_ cursor: StatementCursor, visiting visit: (Statement, Bool) -> Void = { _, _ in }) throws -> [String] {
    var names: [String] = []
    while let statement = try cursor.next() {
        visit(statement, cursor.isAtLastStatement)
        if cursor.isAtLastStatement { names = try statement.query() } else { try statement.run() }
    }
    return names
}

/// The kernel's one walk over multi-statement SQL.
@Suite struct StatementCursorTests {
    @Test func laterStatementsUseWhatEarlierOnesCreated() throws {
        let db = try Connection(storageLocation: .inMemory)
        let cursor = db.statements(
            in: """
                -- a script as a user writes it
                CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT);
                INSERT INTO cars(name) VALUES('Audi'), ('Volvo');;
                /* the last one returns rows */ SELECT name FROM cars ORDER BY id; -- trailing comment
                """)
        var seen: [(sql: String, last: Bool)] = []
        let names = try runScript(cursor) { statement, last in
            seen.append((statement.sql.trimmingCharacters(in: .whitespacesAndNewlines), last))
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
        try db.execute(
            """
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
        let cursor = db.statements(
            in: """
                CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT);
                INSERT INTO cars(name) VALUES('Audi'), ('Volvo');
                SELECT name FROM cars ORDER BY id;
                """)
        #expect(try runScript(cursor) == ["Audi", "Volvo"])
    }
}

/// Scripts are walked in one pass: each statement compiles in place, and errors name only it.
extension StatementCursorTests {
    /// 20,000 statements: each used to copy and scan the whole rest of the script (quadratic,
    /// 66 s in a debug build); how fast it is belongs to the benchmark's `execute-script` row.
    @Test func aLongScriptRunsEveryStatement() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        let script = (1...20_000).map { "INSERT INTO t(v) VALUES('row \($0)');" }.joined(separator: "\n")
        try db.transaction { try db.execute(script) }
        #expect(try db.query("SELECT count(*) FROM t") as Int? == 20_000)
        #expect(try db.query("SELECT v FROM t WHERE id = 20000") as String? == "row 20000")
    }

    @Test func aCompileErrorCarriesOnlyTheFailingStatement() throws {
        let db = try Connection()
        let cases: [(script: String, failing: String)] = [
            ("CREATE TABLE t(a);\n  INSERT INTO missing VALUES(2);\nINSERT INTO t VALUES(3);", "INSERT INTO missing VALUES(2);"),
            ("SELECT 1; -- fine\n SELEC oops ; SELECT 2; SELECT 3", "SELEC oops ;"),
            ("SELECT 1; SELECT 'a;b' FROM nowhere; SELECT 2", "SELECT 'a;b' FROM nowhere;"),
            ("SELECT 1; SELECT * FROM last_one  ", "SELECT * FROM last_one  "),
            (
                "SELECT 1;\nCREATE TRIGGER tr AFTER INSERT ON nope BEGIN SELECT 1; SELECT 2; END; SELECT 3;",
                "CREATE TRIGGER tr AFTER INSERT ON nope BEGIN SELECT 1; SELECT 2; END;"
            ),
            ("SELECT 1; INSERT INTO x VALUES('unterminated; SELECT 2;", "INSERT INTO x VALUES('unterminated; SELECT 2;")
        ]
        for (script, failing) in cases {
            let error = sqliteError { try db.execute(script) }
            #expect(error?.code == SQLITE_ERROR, "\(script)")
            #expect(error?.sql == failing, "\(script)")
        }
    }

    @Test func aRunErrorCarriesOnlyTheFailingStatement() throws {
        let db = try Connection()
        let error = sqliteError {
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY);\n  INSERT INTO t VALUES(1);\n  INSERT INTO t VALUES(1); INSERT INTO t VALUES(2);")
        }
        #expect(error?.extendedCode == 1555 /* SQLITE_CONSTRAINT_PRIMARYKEY */)
        #expect(error?.sql == "INSERT INTO t VALUES(1);")
        #expect(try db.query("SELECT count(*) FROM t") as Int? == 1)
    }

    @Test func remainingSQLFollowsTheStatementsReturned() throws {
        let db = try Connection()
        let cursor = db.statements(in: "SELECT 'é'; /* ü */ SELECT 2;\n")
        #expect(try cursor.next()?.sql == "SELECT 'é';")
        #expect(cursor.remainingSQL == " /* ü */ SELECT 2;\n")
        #expect(!cursor.isAtLastStatement)
        #expect(try cursor.next()?.sql == "SELECT 2;")
        #expect(cursor.remainingSQL == "\n")
        #expect(cursor.isAtLastStatement)
        #expect(try cursor.next() == nil)
        #expect(cursor.remainingSQL == "")
    }

    @Test func sqlStatementEndReadsQuotesCommentsAndTriggers() {
        func firstStatement(_ text: String) -> String {
            let bytes = Substring(text).utf8
            return String(decoding: bytes[..<sqlStatementEnd(in: bytes)], as: UTF8.self)
        }
        #expect(firstStatement("SELECT 1; SELECT 2") == "SELECT 1;")
        #expect(firstStatement("SELECT ';', \";\", `;`, [;] -- ;\n /* ; */ ; x") == "SELECT ';', \";\", `;`, [;] -- ;\n /* ; */ ;")
        #expect(firstStatement("SELECT 'it''s;'; x") == "SELECT 'it''s;';")
        #expect(
            firstStatement("create temp trigger t after insert on a begin select 1; end; x")
                == "create temp trigger t after insert on a begin select 1; end;")
        #expect(
            firstStatement("EXPLAIN CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END ; x")
                == "EXPLAIN CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END ;")
        #expect(firstStatement("CREATE TABLE trigger(a); x") == "CREATE TABLE trigger(a);")
        #expect(firstStatement("SELECT 1 -- no end") == "SELECT 1 -- no end")
        #expect(firstStatement("SELECT 'open; x") == "SELECT 'open; x")
    }
}
