import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Observation fetches go through the `Database`'s work tracker like every other call, so a
/// graceful shutdown counts them, waits for them and refuses new ones (issue 40).
@Suite struct ObservationWorkTrackerTests {
    struct Refused: Error, Equatable {}

    @Test func aFetchIsCountedWhileItRunsAndRefusedAfterShutdownBegins() async throws {
        let directory = try TemporaryDirectory()
        let database = try await ObservationTests.makeDatabase(directory, schema: "CREATE TABLE t(x)")
        database.trackWork()

        // Polled, not waited on: a blocking wait here would hold one of the cooperative pool's
        // threads (two on a two-core machine), which the fetch may need under a loaded test run.
        let entered = Locked(false)
        let release = DispatchSemaphore(value: 0)
        let delivered = Locked<[Result<Int, any Error>]>([])
        let token = database.observe({ connection -> Int in
            entered.withLock { $0 = true }
            _ = release.wait(timeout: .now() + 60)
            return try connection.query("SELECT count(*) FROM t") as Int? ?? -1
        }) { result in delivered.withLock { $0.append(result) } }
        defer { token.cancel() }
        let started = ContinuousClock.now + .seconds(60)
        while !entered.current, ContinuousClock.now < started { try await Task.sleep(for: .milliseconds(5)) }
        #expect(entered.current, "the fetch started")
        #expect(database.runningWorkCount == 1, "the running fetch is counted")
        release.signal()
        let deadline = ContinuousClock.now + .seconds(60)
        while delivered.current.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(database.runningWorkCount == 0)

        database.refuseNewWork(throwing: Refused())
        let refused = Locked<[Result<Int, any Error>]>([])
        let late = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { result in
            refused.withLock { $0.append(result) }
        }
        defer { late.cancel() }
        while refused.current.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        guard case .failure(let error)? = refused.current.first else {
            Issue.record("a fetch after the shutdown began ran: \(refused.current)")
            return
        }
        #expect(error is Refused)
    }
}
