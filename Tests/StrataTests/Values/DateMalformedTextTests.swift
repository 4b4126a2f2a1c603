import Foundation
import StrataSQift
import Testing
import StrataTestSupport
import Strata

/// Text that is no date in the default format reads as nil through SQift's `Date` extraction, as
/// its contract says: a date followed by a combining mark, a NUL or invalid UTF-8 once reached
/// Foundation's formatter, which trapped on Linux.
@Suite struct DateMalformedTextTests {
    @Test(arguments: ["2026-11-27\u{301}", "2026-11-27T07:52:00.000\u{301}", "2026-11-27\0", "'\u{301}"])
    func textThatIsNoDefaultFormatDateReadsAsNil(text: String) throws {
        let db = try makeConnection(executing: "CREATE TABLE t(d TEXT)")
        try db.run("INSERT INTO t VALUES (?)", text)
        let read: Date? = try db.query("SELECT d FROM t")
        #expect(read == nil)
        let row = try #require(try db.query("SELECT d FROM t") as Row?)
        #expect((row.value(at: 0) as Date?) == nil)
    }

    @Test func invalidUTF8ReadsAsNil() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(d TEXT)")
        try db.execute("INSERT INTO t VALUES (CAST(x'323032362d31312d3237ff' AS TEXT))")
        let read: Date? = try db.query("SELECT d FROM t")
        #expect(read == nil)
    }

    @Test func theDefaultFormatStillReads() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(d TEXT)")
        let date = Date(timeIntervalSince1970: 1_795_765_920.25)
        try db.run("INSERT INTO t VALUES (?)", date)
        let read: Date? = try db.query("SELECT d FROM t")
        #expect(read == date)
    }
}
