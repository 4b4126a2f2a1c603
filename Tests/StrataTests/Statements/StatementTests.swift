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

@Suite struct StatementTests {
    @Test func readmeBindingExamples() throws {
        let connection = try makeConnection(executing: "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)").bind(1, "Audi", 52_642).run()
        try connection.prepare("INSERT INTO cars VALUES(:id, :name, :price)").bind([":id": 2, ":name": "BMW", ":price": 52_642]).run()
        try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 3, "Audi", 52_642)
        try connection.run("INSERT INTO cars VALUES(:id, :name, :price)", parameters: [":id": 4, ":name": "Audi", ":price": 52_642])
        try connection.run("INSERT INTO cars VALUES(?, ?, ?)", [5, "Kia", nil])
        let names: [String] = try connection.query("SELECT name FROM cars ORDER BY id")
        #expect(names == ["Audi", "BMW", "Audi", "Audi", "Kia"])
        #expect(try connection.query("SELECT price FROM cars WHERE id = 5") as Int? == nil)
    }

    @Test func statementProperties() throws {
        let connection = try makeCarsConnection()
        let select = try connection.prepare("SELECT name, price FROM cars WHERE id = ?", 1)
        #expect(select.sql == "SELECT name, price FROM cars WHERE id = ?")
        #expect(select.expandedSQL == "SELECT name, price FROM cars WHERE id = 1")
        #expect(select.isReadOnly)
        #expect(!select.isBusy)
        #expect(select.columnCount == 2)
        #expect(select.columnNames == ["name", "price"])
        #expect(select.columnIndex(forName: "price") == 1)
        #expect(select.columnIndex(forName: "nope") == nil)
        #expect(select.parameterCount == 1)
        #expect(try select.step())
        #expect(select.isBusy)
        #expect(try !select.step())
        let insert = try connection.prepare("INSERT INTO cars(name) VALUES(?)")
        #expect(!insert.isReadOnly)
        try insert.bind("it's").run()
        #expect(insert.expandedSQL == "INSERT INTO cars(name) VALUES('it''s')")
    }

    @Test func wrongParameterCountThrowsMisuse() throws {
        let connection = try makeCarsConnection()
        let statement = try connection.prepare("INSERT INTO cars(name, price) VALUES(?, ?)")
        let tooFew = sqliteError { try statement.bind("x").run() }
        #expect(tooFew?.code == SQLITE_MISUSE)
        #expect(tooFew?.message == "Bind expected 2 parameters, instead received 1")
        let tooMany = sqliteError { try connection.run("INSERT INTO cars(name, price) VALUES(?, ?)", "x", 1, 2) }
        #expect(tooMany?.message == "Bind expected 2 parameters, instead received 3")
        let optionalForm = sqliteError { try statement.bind(nil).run() }
        #expect(optionalForm?.message == "Bind expected 2 parameters, instead received 1")
        #expect(try connection.query("SELECT count(*) FROM cars") == 4)
    }

    @Test func unknownNamedParameterThrows() throws {
        let connection = try makeCarsConnection()
        let error = sqliteError { try connection.run("UPDATE cars SET price = :price", [":cost": 1]) }
        #expect(error?.code == SQLITE_MISUSE)
        #expect(error?.message == "Bind could not find index for key: ':cost'")
        #expect(try connection.query("SELECT sum(price) FROM cars") == 147_769)
        try connection.run("UPDATE cars SET price = $p WHERE id = @id", ["$p": 1, "@id": 1])
        #expect(try connection.query("SELECT price FROM cars WHERE id = 1") == 1)
    }

    @Test func badSQLThrows() throws {
        let connection = try makeCarsConnection()
        let syntax = sqliteError { _ = try connection.prepare("SELEC * FROM cars") }
        #expect(syntax?.code == SQLITE_ERROR)
        #expect(syntax?.message == "near \"SELEC\": syntax error")
        let missing = sqliteError { try connection.run("SELECT * FROM nowhere") }
        #expect(missing?.message == "no such table: nowhere")
        let empty = sqliteError { _ = try connection.prepare("   ") }
        #expect(empty?.code == SQLITE_MISUSE)
        let two = sqliteError { _ = try connection.prepare("SELECT 1; SELECT 2") }
        #expect(two?.code == SQLITE_MISUSE)
        #expect(two?.message.contains("more than one statement") == true)
        // A trailing semicolon or comment is one statement.
        _ = try connection.prepare("SELECT 1; -- done")
    }

    @Test func readmeTransactionExampleRollsBack() throws {
        let connection = try makeConnection(executing: "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        let error = sqliteError {
            try connection.transaction {
                try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)").bind(1, "Audi", 52642).run()
                try connection.prepare("INSERT IN cars VALUES(?, ?, ?)").bind(2, "Mercedes", 57127).run()
            }
        }
        #expect(error?.message == "near \"IN\": syntax error")
        #expect(try connection.query("SELECT count(*) FROM cars") == 0)
        #expect(!connection.isInTransaction)
    }

    @Test func statementCacheReusesAndBounds() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(x)")
        for value in 0..<10 { try connection.run("INSERT INTO t VALUES(?)", value) }
        #expect(connection.cachedStatementCount == 1)
        for value in 0..<100 { let _: Int? = try connection.query("SELECT \(value)") }
        #expect(connection.cachedStatementCount == connection.statementCache.capacity)
        // A nested call with the same SQL gets its own statement instead of disturbing the outer one.
        let pairs: [[Int]] = try connection.query("SELECT x FROM t WHERE x < ? ORDER BY x", 3) { row in
            let inner: [Int] = try connection.query("SELECT x FROM t WHERE x < ? ORDER BY x", 2)
            return [row[0]] + inner
        }
        #expect(pairs == [[0, 0, 1], [1, 0, 1], [2, 0, 1]])
        // No parameters given: earlier bindings do not leak into the next use.
        let none: Int? = try connection.query("SELECT ?")
        let one: Int? = try connection.query("SELECT ?", 1)
        let noneAgain: Int? = try connection.query("SELECT ?")
        #expect(none == nil && one == 1 && noneAgain == nil)
    }

    @Test func cachedStatementsReleaseLocks() throws {
        let files = try TwoConnections(named: "db") { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1), (2), (3)") }
        let (writer, reader) = (files.mine, files.other)
        let first: Int? = try reader.query("SELECT x FROM t ORDER BY x")
        #expect(first == 1)
        // The reader's statement was reset, so it holds no SHARED lock blocking this write.
        try writer.execute("DELETE FROM t")
        #expect(try reader.query("SELECT count(*) FROM t") == 0)
    }

    @Test func tableLockPolicyFastFailAndPoll() throws {
        let directory = try TemporaryDirectory()
        let uri = directory.path("shared.db")
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_SHAREDCACHE
        let writer = try Connection(storageLocation: .onDisk(uri), flags: flags)
        try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        let fastFail = try Connection(storageLocation: .onDisk(uri), flags: flags)
        try writer.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(2)")
        let locked = sqliteError { let _: Int? = try fastFail.query("SELECT count(*) FROM t") }
        #expect(locked?.code == SQLITE_LOCKED)

        let polling = try Connection(storageLocation: .onDisk(uri), tableLockPolicy: .poll(0.005), flags: flags)
        nonisolated(unsafe) let sharedWriter = writer
        let committer = Thread {
            Thread.sleep(forTimeInterval: 0.1)
            try? sharedWriter.execute("COMMIT")
        }
        committer.start()
        let count: Int? = try polling.query("SELECT count(*) FROM t")
        #expect(count == 2)
    }
}
