import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Kernel members the other suites do not reach on their own.
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
}
