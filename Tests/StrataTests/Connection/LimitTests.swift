import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct LimitTests {
    @Test func tooBigValuesThrow() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(v)")
        sqlite3_limit(db.handle, SQLITE_LIMIT_LENGTH, 100)
        let text = sqliteError { try db.run("INSERT INTO t VALUES(?)", String(repeating: "x", count: 200)) }
        #expect(text?.code == SQLITE_TOOBIG)
        #expect(text?.message.hasPrefix("Could not bind parameter 1") == true)
        let blob = sqliteError { try db.run("INSERT INTO t VALUES(?)", Data(count: 200)) }
        #expect(blob?.code == SQLITE_TOOBIG)
        #expect(try db.query("SELECT count(*) FROM t") == 0)
    }
}
