import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

private struct TracedEmployee: ExpressibleByRow {
    let id: Int
    let name: String
    init(row: Row) throws {
        guard let id: Int = row[0], let name: String = row[1] else {
            throw ExpressibleByRowError(type: TracedEmployee.self, row: row)
        }
        self.id = id
        self.name = name
    }
}

/// Trace events carry SQift's text: the expanded SQL in `statement`, the SQL as written in `sql`.
@Suite struct TraceTests {
    @Test func readmeTracing() throws {
        let connection = try Connection()
        var expanded: [String] = []
        var written: [String] = []
        connection.traceEvent { event in
            if case .statement(let statement, let sql) = event {
                expanded.append(statement)
                written.append(sql)
            }
        }
        try connection.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)")
        try connection.prepare("INSERT INTO employees VALUES(?, ?)").bind(1, "Bill Bowerman").run()
        try connection.prepare("INSERT INTO employees VALUES(?, ?)").bind(2, "Phil Knight").run()
        let employees: [TracedEmployee] = try connection.query("SELECT * FROM employees")
        #expect(employees.map(\.name) == ["Bill Bowerman", "Phil Knight"])
        #expect(
            expanded == [
                "CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO employees VALUES(1, 'Bill Bowerman')",
                "INSERT INTO employees VALUES(2, 'Phil Knight')",
                "SELECT * FROM employees"
            ])
        #expect(
            written == [
                "CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO employees VALUES(?, ?)",
                "INSERT INTO employees VALUES(?, ?)",
                "SELECT * FROM employees"
            ])
        connection.traceEvent(closure: nil)
    }

    @Test func profileAndRowCarryExpandedSQL() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1), (2), (3)")
        var events: [String] = []
        connection.traceEvent(mask: Connection.TraceEvent.profileMask | Connection.TraceEvent.rowMask) { event in
            switch event {
            case .profile(let statement, let seconds): events.append("profile \(statement) \(seconds >= 0)")
            case .row(let statement): events.append("row \(statement)")
            default: events.append("other")
            }
        }
        let ids: [Int] = try connection.query("SELECT id FROM t WHERE id > ?", 1)
        #expect(ids == [2, 3])
        #expect(
            events == [
                "row SELECT id FROM t WHERE id > 1",
                "row SELECT id FROM t WHERE id > 1",
                "profile SELECT id FROM t WHERE id > 1 true"
            ])
        #expect(Connection.TraceEvent.statement(statement: "a", sql: "b").description.contains("sql: \"b\""))
    }

    @Test func internalStatementsAreNotDelivered() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 2), (3, 4); CREATE INDEX i ON t(a)")
        var events: [Connection.TraceEvent] = []
        connection.traceEvent { events.append($0) }
        // VACUUM and ALTER TABLE run statements of SQLite's own, which have no SQL text.
        try connection.execute("VACUUM")
        try connection.execute("ALTER TABLE t RENAME COLUMN a TO c")
        let texts = events.map { event -> String in
            switch event {
            case .statement(let statement, _), .profile(let statement, _), .row(let statement): return statement
            case .connectionClosed: return "closed"
            }
        }
        #expect(texts == ["VACUUM", "VACUUM", "ALTER TABLE t RENAME COLUMN a TO c", "ALTER TABLE t RENAME COLUMN a TO c"])
    }

    @Test(arguments: ["x", "2001-01-01T00:00:00.000"])
    func legacyTraceGetsExpandedSQL(value: String) throws {
        let db = try Connection()
        var traced: [String] = []
        db.trace { traced.append($0) }
        try db.run("CREATE TABLE t(d TEXT)")
        try db.run("INSERT INTO t VALUES(?)", value)
        db.trace(nil)
        try db.run("DELETE FROM t")
        #expect(traced == ["CREATE TABLE t(d TEXT)", "INSERT INTO t VALUES('\(value)')"])
    }

    @Test func functionDates() throws {
        let db = try Connection()
        try db.addScalarFunction(named: "year_of", argumentCount: 1) { _, values in
            guard let date = values[0].date else { return .null }
            return .integer(Int32(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(secondsFromGMT: 0)!, from: date).year ?? 0))
        }
        #expect(try db.query("SELECT year_of('1999-12-31T23:59:59.999')") == 1999)
        #expect(try db.query("SELECT year_of('nonsense')") as Int? == nil)
        #expect(try db.query("SELECT year_of(12)") as Int? == nil)
    }
}
