import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct SQLTextEdgeCaseTests {
    @Test func unicodeAcrossSeveralStatements() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(v TEXT); INSERT INTO t VALUES('😀 ü'); /* ünïcode comment */ INSERT INTO t VALUES('é')")
        let values: [String] = try db.query("SELECT v FROM t ORDER BY rowid")
        #expect(values == ["😀 ü", "é"])
    }

    @Test func nulInSQLIsRejectedNotTruncated() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(v)")
        let error = sqliteError { try db.execute("INSERT INTO t VALUES(1);\0DROP TABLE t") }
        #expect(error?.code == SQLITE_MISUSE)
        #expect(error?.message == "SQL contains a NUL character")
        #expect(sqliteError { _ = try db.prepare("SELECT 1\0") }?.code == SQLITE_MISUSE)
        #expect(try db.query("SELECT count(*) FROM t") == 0)
        // NUL inside bound values is fine: values never pass through the SQL text.
        try db.run("INSERT INTO t VALUES(?)", "a\0b")
        #expect(try db.query("SELECT length(CAST(v AS BLOB)) FROM t") == 3)
    }
}
