import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// The external-change poller's interval, at the edges of what a `Duration` holds.
@Suite struct ExternalChangePollerTests {
    @Test func intervalsAreClampedToWhatATimerTakes() {
        #expect(ExternalChangePoller.nanoseconds(of: .milliseconds(100)) == 100_000_000)
        #expect(ExternalChangePoller.nanoseconds(of: .seconds(2) + .nanoseconds(5)) == 2_000_000_005)
        #expect(ExternalChangePoller.nanoseconds(of: .zero) == 1_000_000)
        #expect(ExternalChangePoller.nanoseconds(of: .seconds(-5)) == 1_000_000)
        // Over about 292 years the nanoseconds overflow Int64; counting them used to trap.
        #expect(ExternalChangePoller.nanoseconds(of: .seconds(Int64.max)) == Int(Int64.max))
        #expect(ExternalChangePoller.nanoseconds(of: .seconds(Int64.min)) == 1_000_000)
        #expect(ExternalChangePoller.nanoseconds(of: .seconds(9_223_372_037)) == Int(Int64.max))
    }

    /// `observe(externalChanges: .seconds(Int64.max))` used to crash the process when the poller
    /// scheduled its timer. It still delivers its first value and the database's own commits.
    @Test func anIntervalTooLongToCountStillObserves() async throws {
        let directory = try TemporaryDirectory()
        let database = try await ObservationTests.makeDatabase(directory, schema: "CREATE TABLE t(v INTEGER)")
        let observed = ObservedValues(
            database.observe(externalChanges: .seconds(Int64.max)) {
                try $0.query("SELECT count(*) FROM t") as Int? ?? 0
            })
        await observed.wait { $0 == [0] }
        try await database.write { try $0.run("INSERT INTO t VALUES(1)") }
        await observed.waitThenCancel { $0.last == 1 }
        await observed.task.value
    }

    /// A poll refused while another connection held its EXCLUSIVE lock (a rollback-journal
    /// database) reopened the poller's connection, whose first `data_version` was compared with the
    /// old connection's last one: both count per connection, so the commit made meanwhile could go
    /// unseen for good. Seen once in CI as an article example that never printed its second value.
    @Test func aCommitMadeWhileAPollWasRefusedIsSeen() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("rollback.sqlite")
        let database = try Database(path: path)
        try await database.writeWithoutTransaction { try $0.execute("CREATE TABLE t(v INTEGER)") }
        let observed = ObservedValues(
            database.observe(externalChanges: .milliseconds(10)) {
                try $0.query("SELECT count(*) FROM t") as Int? ?? 0
            })
        await observed.wait { $0 == [0] }
        let other = try makeConnection(.onDisk(path), executing: "BEGIN EXCLUSIVE")
        try other.run("INSERT INTO t VALUES(?)", 1)
        // Long enough for polls to be refused while the lock is held.
        try await Task.sleep(for: .milliseconds(300))
        try other.execute("COMMIT")
        await observed.wait(seconds: 30) { $0.last == 1 }
        observed.cancel()
        await observed.task.value
        try await database.close()
    }
}
