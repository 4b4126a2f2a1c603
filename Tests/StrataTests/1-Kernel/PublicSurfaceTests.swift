import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Members the other suites do not reach on their own.
@Suite struct PublicSurfaceTests {
    @Test func prepareFormsAndZeroArgumentBind() throws {
        let db = try makeCarsConnection()
        let named = try db.prepare("SELECT name FROM cars WHERE id = :id", [":id": 2])
        #expect(try named.query() as String? == "Mercedes")
        let positional = try db.prepare("SELECT name FROM cars WHERE id = ?", [3])
        #expect(try positional.query() as String? == "Skoda")
        let noParameters = try db.prepare("SELECT count(*) FROM cars")
        try noParameters.bind()
        #expect(try noParameters.query() as Int? == 4)
        #expect(sqliteError { try positional.bind().run() }?.message == "Bind expected 1 parameters, instead received 0")
        #expect(noParameters.description == "SELECT count(*) FROM cars")
        #expect(db.description == "Connection(in-memory or temporary)")
    }

    @Test func statementAnyValueAndStep() throws {
        let db = try Connection()
        let statement = try db.prepare("SELECT 1, 2.5, 'x', x'00', NULL")
        #expect(try statement.step())
        #expect(statement.anyValue(at: 0) as? Int64 == 1)
        #expect(statement.anyValue(at: 1) as? Double == 2.5)
        #expect(statement.anyValue(at: 2) as? String == "x")
        #expect(statement.anyValue(at: 3) as? Data == Data([0]))
        #expect(statement.anyValue(at: 4) == nil)
        #expect(statement.anyValue(at: 9) == nil)
        #expect(statement.value(at: 0, as: Int.self) == 1)
        #expect(try !statement.step())
    }

    @Test func errorsDescribeThemselves() throws {
        let error = SQLiteError(code: SQLITE_MISUSE, message: "boom", sql: "SELECT ?")
        #expect(error.errorDescription == "SQLite error 21 (bad parameter or other API misuse): boom [SQL: SELECT ?]")
        #expect(SQLiteError(code: SQLITE_BUSY, message: "database is locked").errorDescription == "SQLite error 5 (database is locked): database is locked")
        #expect(error.extendedCode == SQLITE_MISUSE)
        #expect(error == SQLiteError(code: SQLITE_MISUSE, message: "boom", sql: "SELECT ?"))
    }

    @Test func legacyTraceAndFunctionDates() throws {
        let db = try Connection()
        var traced: [String] = []
        db.trace { traced.append($0) }
        try db.run("CREATE TABLE t(d TEXT)")
        try db.run("INSERT INTO t VALUES(?)", "2001-01-01T00:00:00.000")
        db.trace(nil)
        try db.run("DELETE FROM t")
        #expect(traced == ["CREATE TABLE t(d TEXT)", "INSERT INTO t VALUES('2001-01-01T00:00:00.000')"])
        try db.addScalarFunction(named: "year_of", argumentCount: 1) { _, values in
            guard let date = values[0].date else { return .null }
            return .integer(Int32(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(secondsFromGMT: 0)!, from: date).year ?? 0))
        }
        #expect(try db.query("SELECT year_of('1999-12-31T23:59:59.999')") == 1999)
        #expect(try db.query("SELECT year_of('nonsense')") as Int? == nil)
        #expect(try db.query("SELECT year_of(12)") as Int? == nil)
    }

    @Test func optionalBindingsAndExactIntegers() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a, b)")
        let some: Int? = 5
        let none: String? = nil
        try db.prepare("INSERT INTO t VALUES(?, ?)").bind(some, none).run()
        #expect(try db.query("SELECT a FROM t WHERE b IS NULL") == 5)
        #expect(Optional<Int>.none.bindingValue == .null)
        #expect(Optional(3).bindingValue == .integer(3))
        #expect(Int16.fromBindingValue(Int64(40_000)) == nil)
        #expect(UInt64.fromBindingValue(Int64(-1)) == UInt64.max)
        #expect(Bool.fromBindingValue(Int64(2)) == true)
        #expect(Double.fromBindingValue("2.5") == nil)
        #expect(Double.fromBindingValue(2.5) == 2.5)
        #expect(Float.fromBindingValue(Int64(2)) == 2) // INTEGER storage reads as floating point
        #expect(Float.fromBindingValue(2.0) == 2)
        #expect(URL.fromBindingValue("https://x.y") == URL(string: "https://x.y"))
        #expect(Date.fromBindingValue("2001-01-01T00:00:00.000") == Date(timeIntervalSinceReferenceDate: 0))
        #expect(Data.fromBindingValue("ab") == nil)
        #expect(Data.fromBindingValue(Data("ab".utf8)) == Data("ab".utf8))
    }
}
