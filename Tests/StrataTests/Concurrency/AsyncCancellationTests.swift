import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Cancelling an async call on a ``Database`` interrupts that call's own statement (and only it):
/// the call throws `CancellationError` promptly, and the connection is fine afterwards.
@Suite struct AsyncCancellationTests {
    /// How soon a cancelled call must return. The statements cancelled here never end by
    /// themselves, so any bound shows the interruption; it is 1 s because this suite runs beside
    /// every other one on two cores (a loaded run saw 0.2 s), and 5 s under a sanitizer (`.ci/run`
    /// sets `STRATA_SANITIZER` for its ThreadSanitizer pass, which slows every Swift instruction).
    /// How fast it is belongs to the benchmark, not to a unit test.
    // The queries cancelled here never end on their own, so any bound shows the interrupt works;
    // it is generous because the suite runs beside 600 other tests on a shared 2-core machine.
    // Tests that hold threads of the cooperative pool (two on this machine) can delay the
    // cancelled task's resumption by seconds; 30 s still tells an interrupt from none.
    static let promptCancellation: Duration = ProcessInfo.processInfo.environment["STRATA_SANITIZER"] == nil ? .seconds(30) : .seconds(60)

    static func makeDatabase(_ directory: TemporaryDirectory) throws -> Database {
        let database = try Database(path: directory.path("cancelled.sqlite"))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL") }
        return database
    }

    @Test func cancellingALongQueryReturnsPromptly() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE x < 0"
        let task = Task { try await database.read { try $0.query(endless) as Int? } }
        try await Task.sleep(for: .milliseconds(300))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let elapsed = ContinuousClock.now - cancelled
        #expect(elapsed < Self.promptCancellation, "returned \(elapsed) after cancel")
        // The reader is fine afterwards.
        #expect(try await database.read { try $0.query("SELECT 1") as Int? } == 1)
    }

    /// SQLite forgets an interrupt that arrives while no statement runs; the cancellation must
    /// still stop the closure's next statement (here a long but finite one, so a regression fails
    /// instead of hanging).
    @Test func aCancellationBetweenTwoStatementsStopsTheNextOne() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let long = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000000) SELECT count(*) FROM c"
        let between = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let task = Task {
            try await database.read { connection in
                _ = try connection.query("SELECT 1") as Int?
                between.signal()
                cancelled.wait()
                return try connection.query(long) as Int?
            }
        }
        await withCheckedContinuation { continuation in
            // A thread of its own: on Linux the global queue is the cooperative pool's, whose threads
            // (two on two cores) a semaphore wait would hold.
            Thread.detachNewThread {
                between.wait(); continuation.resume()
            }
        }
        task.cancel()
        let start = ContinuousClock.now
        cancelled.signal()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < Self.promptCancellation)
        #expect(try await database.read { try $0.query("SELECT 1") as Int? } == 1)
    }

    @Test func cancellingAWriteLeavesTheDatabaseAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        try await database.write { try $0.execute("CREATE TABLE t(v INTEGER); INSERT INTO t VALUES(1)") }
        let slowInsert = """
            INSERT INTO t SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c) WHERE x < 0 LIMIT 1
            """
        let task = Task {
            try await database.writeInTransaction { connection in
                try connection.run("INSERT INTO t VALUES(2)")
                try connection.run(slowInsert)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await database.read { try $0.query("SELECT v FROM t") as [Int] } == [1])
        #expect(try await database.writeWithoutTransaction { $0.isInTransaction } == false)
    }
}
