import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
#if canImport(SQLite3)
import SQLite3
#endif

/// Any busy timeout is accepted and clamped; none traps.
@Suite struct BusyHandlerTests {
    @Test(arguments: [TimeInterval.infinity, -.infinity, .nan, -5, 0, 1e300, Double(Int32.max), .greatestFiniteMagnitude])
    func everyTimeoutIsAccepted(seconds: TimeInterval) throws {
        let connection = try Connection()
        try connection.busyHandler(.timeout(seconds))
        #expect(try connection.query("SELECT 1") as Int? == 1)
    }

    @Test func timeoutsClampToWhatSQLiteTakes() {
        #expect(Connection.BusyHandler.milliseconds(.infinity) == Int32.max)
        #expect(Connection.BusyHandler.milliseconds(1e300) == Int32.max)
        #expect(Connection.BusyHandler.milliseconds(.nan) == 0)
        #expect(Connection.BusyHandler.milliseconds(-1) == 0)
        #expect(Connection.BusyHandler.milliseconds(-.infinity) == 0)
        #expect(Connection.BusyHandler.milliseconds(1.5) == 1500)
        #expect(TableLockPolicy.poll(.infinity).pollIntervalMicroseconds == 60_000_000)
        #expect(TableLockPolicy.poll(.nan).pollIntervalMicroseconds == 0)
        #expect(TableLockPolicy.poll(-1).pollIntervalMicroseconds == 0)
        #expect(TableLockPolicy.fastFail.pollIntervalMicroseconds == nil)
    }

    @Test func negativeTimeoutFailsAtOnceAndInfiniteWaitsForTheLock() throws {
        let files = try TwoConnections(named: "db") {
            try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
            try $0.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(1)")
        }
        let (writer, other) = (files.mine, files.other)
        try other.busyHandler(.timeout(-1))
        #expect(sqliteError { try other.execute("INSERT INTO t VALUES(2)") }?.code == SQLITE_BUSY)

        try other.busyHandler(.timeout(.infinity))
        nonisolated(unsafe) let heldWriter = writer
        let committer = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            try? heldWriter.execute("COMMIT")
        }
        committer.start()
        try other.execute("INSERT INTO t VALUES(2)") // waits for the commit instead of failing
        #expect(try other.query("SELECT count(*) FROM t") as Int? == 2)
    }
}
