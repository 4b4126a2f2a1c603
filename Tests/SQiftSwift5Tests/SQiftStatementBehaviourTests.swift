import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// Statement forms as SQift code writes them, in Swift 5 mode.

struct Employee2: Codable, Equatable {
    let id: Int64
    let name: String
}

extension Employee2: ExpressibleByRow {
    init(row: Row) throws {
        guard let id: Int64 = row["id"], let name: String = row["name"] else {
            throw ExpressibleByRowError(type: Employee2.self, row: row)
        }
        self.id = id
        self.name = name
    }
}

@Suite struct SQiftStatementBehaviourTests {
    @Test func statementForms() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)")
        let insert = try db.prepare("INSERT INTO employees VALUES(?, ?)")
        try insert.bind(1, "Bill").run()
        try insert.bind([2, "Phil"]).run()
        let statement = try Statement(connection: db, sql: "SELECT * FROM employees ORDER BY id")
        #expect(statement.sql == "SELECT * FROM employees ORDER BY id")
        #expect(statement.isReadOnly)
        #expect(statement.isBusy == false)
        _ = statement.expandedSQL
        let e: Employee2? = try statement.query()
        #expect(e?.name == "Bill")
        let rest: [Employee2] = try statement.query()
        #expect(rest.map { $0.name } == ["Phil"])
        #expect(statement.columnCount == 2)
        #expect(statement.columnNames == ["id", "name"])
        #expect(statement.columnIndex(forName: "name") == 1)
        let s2 = try db.prepare("SELECT name FROM employees ORDER BY id")
        let names: [String] = try s2.query { row -> String in row[0] }
        #expect(names == ["Bill", "Phil"])
        let s3 = try db.prepare("SELECT id FROM employees WHERE id = ?")
        do {
            try s3.bind(1, 2)
            Issue.record("expected misuse")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_MISUSE)
            #expect(error.message == "Bind expected 1 parameters, instead received 2")
        }
        do {
            try db.prepare("SELECT :a").bind([":b": 1])
            Issue.record("expected misuse")
        } catch let error as SQLiteError {
            #expect(error.message == "Bind could not find index for key: ':b'")
        }
        let s4 = try db.prepare("SELECT id FROM employees")
        #expect(try s4.step() == true)
    }
}
