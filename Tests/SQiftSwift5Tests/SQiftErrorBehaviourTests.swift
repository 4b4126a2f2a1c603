import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// The errors SQift code catches and prints, in Swift 5 mode.
@Suite struct SQiftErrorBehaviourTests {
    @Test func errors() throws {
        let db = try Connection()
        do {
            try db.execute("SELEC 1")
            Issue.record("expected error")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_ERROR)
            #expect(error.codeDescription == "SQL logic error")
            #expect(error.description == #"{ message="near "SELEC": syntax error", code=1, codeDescription="SQL logic error" }"#)
        }
        let missing: Int? = try? db.query("SELECT 1 WHERE 0")
        #expect(missing == nil)
        #expect(throws: SQLiteError.self) { let _: Int = try db.query("SELECT 1 WHERE 0") }
        #expect(throws: SQLiteError.self) { let _: Int = try db.query("SELECT NULL", []) }
        #expect(throws: SQLiteError.self) { let _: Int = try db.query("SELECT :a", [":a": nil]) }
    }
}
