import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct NamedPairBindingTests {
    @Test func bindsPairsAndLeavesOthersNull() throws {
        let connection = try makeCarsConnection()
        let insert = try connection.prepare("INSERT INTO cars(id, name, price) VALUES(:id, :name, :price)")
        try insert.bind(named: (":id", 10), (":name", "Lada"), (":price", 1_000)).run()
        try insert.bind(named: (":price", 2_000), (":id", 11), (":name", "Trabant")).run()
        try insert.bind(named: (":id", 12), (":name", "Ghost")).run()
        let rows: [String] = try connection.query("SELECT name || ':' || ifnull(price, 'NULL') FROM cars WHERE id >= 10 ORDER BY id")
        #expect(rows == ["Lada:1000", "Trabant:2000", "Ghost:NULL"])
        let unknown = sqliteError { try insert.bind(named: (":id", 13), (":cost", 1)).run() }
        #expect(unknown?.code == SQLITE_MISUSE)
        #expect(unknown?.message == "Bind could not find index for key: ':cost'")
        #expect(try connection.query("SELECT count(*) FROM cars WHERE id = 13") == 0)
    }
}

/// Named binds set the parameters they name and NULL the others, as clearing first would, in
/// every form: pairs, dictionaries, after a failed bind, and past 64 parameters.
@Suite struct NamedBindCoverageTests {
    private func row(_ statement: Statement) throws -> [String] {
        #expect(try statement.step())
        return (0..<Int(sqlite3_column_count(statement.handle))).map { column in
            sqlite3_column_type(statement.handle, Int32(column)) == SQLITE_NULL ? "NULL" : String(cString: sqlite3_column_text(statement.handle, Int32(column)))
        }
    }

    @Test func parametersANamedBindLeavesOutAreNull() throws {
        let db = try Connection(storageLocation: .inMemory)
        let select = try db.prepare("SELECT :a, :b, :c, :a")
        try select.bind(named: (":a", 1), (":b", 2), (":c", 3))
        #expect(try row(select) == ["1", "2", "3", "1"])
        try select.bind(named: (":c", 30))
        #expect(try row(select) == ["NULL", "NULL", "30", "NULL"])
        try select.bind([":b": 20])
        #expect(try row(select) == ["NULL", "20", "NULL", "NULL"])
        try select.bind([":a": 7, ":b": nil, ":c": "x"])
        #expect(try row(select) == ["7", "NULL", "x", "7"])
    }

    @Test func aFailedBindLeavesEveryParameterNull() throws {
        let db = try Connection(storageLocation: .inMemory)
        let select = try db.prepare("SELECT :a, :b")
        try select.bind(named: (":a", 1), (":b", 2))
        #expect(throws: SQLiteError.self) { try select.bind(named: (":a", 5), (":nope", 6)) }
        #expect(try row(select) == ["NULL", "NULL"])
    }

    @Test func statementsWithMoreThan64ParametersAreClearedFirst() throws {
        let db = try Connection(storageLocation: .inMemory)
        let names = (1...70).map { ":p\($0)" }
        let select = try db.prepare("SELECT " + names.joined(separator: ", "))
        try select.bind(Dictionary(uniqueKeysWithValues: names.map { ($0, $0 as Bindable?) }))
        #expect(try row(select) == names)
        try select.bind(named: (":p70", 70), (":p1", 1))
        let values = try row(select)
        #expect(values.first == "1" && values.last == "70")
        #expect(values.dropFirst().dropLast().allSatisfy { $0 == "NULL" })
    }
}
