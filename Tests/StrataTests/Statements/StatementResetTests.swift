import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// A statement that ran to `SQLITE_DONE` is reset at once, not at its next step: Apple builds
/// SQLite with `SQLITE_OMIT_AUTORESET`, where stepping or binding a finished statement is
/// `SQLITE_MISUSE`. SQLite refuses a bind to a statement that is not reset on every build, which
/// is what tells here whether Strata reset it.
@Suite struct StatementResetTests {
    @Test func aFinishedStatementIsResetAndRunsAgain() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(x)")
        let insert = try connection.prepare("INSERT INTO t VALUES(?)")
        try insert.bind(1).run()
        #expect(sqlite3_bind_int64(insert.handle, 1, 2) == SQLITE_OK)
        try insert.run()
        try insert.bind(3).run()
        #expect(try connection.query("SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)") as String? == "1,2,3")

        let select = try connection.prepare("SELECT x FROM t WHERE x > ? ORDER BY x")
        try select.bind(1)
        var seen: [Int64] = []
        while try select.step() { seen.append(select.value(at: 0, as: Int64.self) ?? -1) }
        #expect(seen == [2, 3])
        #expect(sqlite3_bind_int64(select.handle, 1, 2) == SQLITE_OK)
        seen = []
        while try select.step() { seen.append(select.value(at: 0, as: Int64.self) ?? -1) }
        #expect(seen == [3])
        // A query that found nothing, then the same statement again.
        let none: Int64? = try select.bind(99).query()
        #expect(none == nil)
        #expect(sqlite3_bind_int64(select.handle, 1, 0) == SQLITE_OK)
    }

    @Test func aCachedWriteIsResetAfterEachRun() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(x)")
        for value in 1...3 { try connection.run("INSERT INTO t VALUES(?)", value) }
        #expect(try connection.query("SELECT count(*) FROM t") as Int? == 3)
    }
}
