import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

private final class Marker {}

@Suite struct CollationTests {
    @Test func refusedRegistrationThrowsAndReleasesItsClosure() throws {
        let connection = try Connection()
        connection.createCollation(named: "REVERSED") { lhs, rhs in rhs.compare(lhs) }
        try connection.execute("CREATE TABLE t(x TEXT COLLATE REVERSED); INSERT INTO t VALUES('a'), ('b'), ('c')")
        let running = try connection.prepare("SELECT x FROM t ORDER BY x")
        #expect(try running.query() as String? == "c") // now running, so its collation is in use

        weak var released: Marker?
        do {
            let marker = Marker()
            released = marker
            let error = sqliteError {
                try connection.addCollation(named: "REVERSED") { lhs, rhs in
                    _ = marker; return lhs.compare(rhs)
                }
            }
            #expect(error?.code == SQLITE_BUSY)
        }
        #expect(released == nil)
        // SQift's non-throwing form is silent about the refusal, and leaves the old collation.
        connection.createCollation(named: "REVERSED") { lhs, rhs in lhs.compare(rhs) }
        try running.bind()
        #expect(try running.query() as [String] == ["c", "b", "a"])
    }
}
