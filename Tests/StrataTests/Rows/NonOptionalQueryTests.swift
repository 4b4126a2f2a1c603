import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

// Swift 6 mode: the non-optional single-value query forms (SQift README's `let count: Int = try
// connection.query(...)`) resolve without ambiguity next to the optional ones, and throw instead
// of trapping when there is nothing to return.
@Suite struct NonOptionalQueryTests {
    @Test func nonOptionalFormsReadAValue() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a); INSERT INTO t VALUES(1), (2)")
        let count: Int = try db.query("SELECT count(*) FROM t")
        let viaArray: Int = try db.query("SELECT count(*) FROM t WHERE a > ?", [1])
        let viaNames: Int = try db.query("SELECT count(*) FROM t WHERE a > :a", [":a": 0])
        #expect(count == 2 && viaArray == 1 && viaNames == 2)
        let optional: Int? = try db.query("SELECT a FROM t WHERE a > 5")
        #expect(optional == nil)
    }

    @Test func missingValuesThrowMisuse() throws {
        let db = try Connection()
        for sql in ["SELECT 1 WHERE 0", "SELECT NULL", "SELECT 'text'"] {
            do {
                let _: Int = try db.query(sql)
                Issue.record("expected an error for \(sql)")
            } catch let error as SQLiteError {
                #expect(error.code == SQLITE_MISUSE)
                #expect(error.message.contains("Int"))
            }
        }
    }
}
