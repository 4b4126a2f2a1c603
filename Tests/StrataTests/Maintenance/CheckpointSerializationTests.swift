import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// What the second checkpoint's thread reports back.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false
    private var error: (any Error)?
    let done = DispatchSemaphore(value: 0)

    func finish(_ error: (any Error)?) {
        lock.withLock {
            finished = true; self.error = error
        }
        done.signal()
    }
    var isFinished: Bool { lock.withLock { finished } }
    var failure: (any Error)? { lock.withLock { error } }
}

/// Lets a non-Sendable connection cross to the thread that checkpoints with it; the test's
/// thread does not use it meanwhile.
private struct Handed: @unchecked Sendable { let connection: Connection }

@Suite struct CheckpointSerializationTests {
    /// SQLite before 3.51.3 can corrupt a WAL database when two connections checkpoint at once
    /// (the WAL-reset bug): a second Strata connection's checkpoint of the same file waits for
    /// the first to finish. Here the first (FULL) waits in its busy handler for a writer; the
    /// second (PASSIVE) ran meanwhile, and failed with SQLITE_BUSY, before checkpoints were
    /// serialized.
    @Test func twoConnectionsNeverCheckpointOneFileAtOnce() throws {
        let files = try TwoConnections(named: "db") {
            try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)")
        }
        let (first, second) = (files.mine, files.other)
        let writer = try makeConnection(.onDisk(files.path), executing: "BEGIN IMMEDIATE; INSERT INTO t VALUES(3)")

        let outcome = Outcome()
        let handed = Handed(connection: second)
        var finishedWhileFirstHeld: Bool?
        let started = Date()
        try first.busyHandler(
            .custom { count in
                if count == 0 {
                    Thread.detachNewThread {
                        do {
                            _ = try handed.connection.checkpoint(mode: .passive)
                            outcome.finish(nil)
                        } catch {
                            outcome.finish(error)
                        }
                    }
                    return true
                }
                Thread.sleep(forTimeInterval: 0.01)
                if finishedWhileFirstHeld == nil, Date().timeIntervalSince(started) > 0.3 {
                    finishedWhileFirstHeld = outcome.isFinished
                    // Let the first checkpoint through: the writer commits.
                    try? writer.execute("COMMIT")
                }
                return count < 1_000
            })
        let result = try first.checkpoint(mode: .full)
        #expect(result.logFrames == result.checkpointedFrames)
        #expect(finishedWhileFirstHeld == false)
        #expect(outcome.done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.failure == nil, "\(String(describing: outcome.failure))")
        #expect(try first.query("SELECT count(*) FROM t") as Int? == 3)
    }

    /// The warning `strata check` prints and `Database`'s documentation gives: present exactly
    /// for a SQLite older than 3.51.3.
    @Test func walResetWarningMatchesTheSQLiteInUse() {
        let old = sqlite3_libversion_number() < 3_051_003
        #expect((Connection.walResetBugWarning != nil) == old)
        if let warning = Connection.walResetBugWarning {
            #expect(warning.contains(String(cString: sqlite3_libversion())))
            #expect(warning.contains("3.51.3"))
        }
    }
}
