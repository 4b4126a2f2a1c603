import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// A token's deliveries do not depend on Swift's cooperative pool, whose threads synchronous
/// callers may block with a semaphore (issue 40).
///
/// Blocking the whole pool stalls every test running beside it (and fails those that time
/// themselves), so it runs in a process of its own: `STRATA_POOL_TESTS=1` (.ci/run sets it).
@Suite struct ObservationTokenDeliveryTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POOL_TESTS"] != nil))
    func aTokenDeliversWhileTheCooperativePoolIsBlocked() throws {
        let directory = try TemporaryDirectory()
        let database = try ObservationTests.makeDatabase(directory)
        try database.executeWrite { try $0.execute("CREATE TABLE t(x)") }
        // Occupy every thread of the pool this test is not running on, as synchronous code that
        // waits on a semaphore does.
        let width = ProcessInfo.processInfo.activeProcessorCount
        let release = DispatchSemaphore(value: 0)
        let blocking = Locked(0)
        for _ in 0..<width {
            Task.detached {
                blocking.withLock { $0 += 1 }
                release.wait()
            }
        }
        defer { for _ in 0..<width { release.signal() } }
        let started = Date()
        while blocking.current < width - 1, Date().timeIntervalSince(started) < 5 { usleep(1_000) }
        usleep(20_000)

        let delivered = Locked<[Int]>([])
        let token = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { result in
            if case .success(let count) = result { delivered.withLock { $0.append(count) } }
        }
        defer { token.cancel() }
        try database.executeWrite { try $0.run("INSERT INTO t VALUES(1)") }
        let deadline = Date().addingTimeInterval(60)
        while delivered.current.last != 1, Date() < deadline { usleep(2_000) }
        #expect(delivered.current.last == 1, "delivered while the pool was blocked: \(delivered.current)")
    }

    /// More blocked fetches than cores (a busy database, a caller's semaphore) stall no other
    /// observation: each runs on a thread of its own. A concurrent dispatch queue shared by all
    /// tokens ran on one thread a core, and async-sequence fetches ran on the cooperative pool,
    /// so two blocked fetches on a two-core CI machine stalled every observation of the test run.
    ///
    /// The deadlines are generous and nothing is timed from the test's start: beside a thousand
    /// other tests on two cores, the tasks that iterate the sequences (which start on the
    /// cooperative pool, as a user's would) can wait seconds for a thread. What is asserted is
    /// the order: the new observation delivers while every blocked fetch is still blocked.
    @Test func blockedFetchesBeyondTheCoreCountStallNoOtherObservation() async throws {
        let clock = ContinuousClock()
        let directory = try TemporaryDirectory()
        let blocked = ProcessInfo.processInfo.activeProcessorCount + 2
        let release = DispatchSemaphore(value: 0)
        let entered = Locked<[String]>([])
        let leftEarly = Locked(0)
        var tokens: [ObservationToken] = []
        var iterations: [Task<Void, Never>] = []
        defer {
            for _ in 0..<blocked { release.signal() }
            tokens.forEach { $0.cancel() }
            iterations.forEach { $0.cancel() }
        }
        // One database each: fetches of one database share its fetch lanes and would wait there.
        for index in 0..<blocked {
            let database = try Database(path: directory.path("blocked-\(index).sqlite"))
            let kind = index.isMultiple(of: 2) ? "token \(index)" : "sequence \(index)"
            let fetch: @Sendable (Connection) throws -> Int = { _ in
                entered.withLock { $0.append(kind) }
                if release.wait(timeout: .now() + 180) == .timedOut { leftEarly.withLock { $0 += 1 } }
                return 0
            }
            if index.isMultiple(of: 2) {
                tokens.append(database.observe(fetch) { _ in })
            } else {
                let observation = database.observe(fetch)
                iterations.append(Task(priority: .high) { do { for try await _ in observation {} } catch {} })
            }
        }
        let allBlocked = clock.now + .seconds(60)
        while entered.current.count < blocked, clock.now < allBlocked { try await Task.sleep(for: .milliseconds(5)) }
        try #require(entered.current.count == blocked, "every blocking fetch started; these did: \(entered.current)")

        let database = try await ObservationTests.makeDatabase(directory, schema: "CREATE TABLE t(x)")
        let delivered = Locked<[Int]>([])
        let token = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { result in
            if case .success(let count) = result { delivered.withLock { $0.append(count) } }
        }
        defer { token.cancel() }
        let observed = ObservedValues(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? -1 })
        defer { observed.cancel() }
        try await database.write { try $0.execute("INSERT INTO t VALUES(1)") }
        let deadline = clock.now + .seconds(60)
        while delivered.current.last != 1 || observed.values.last != 1, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(delivered.current.last == 1, "the token delivered: \(delivered.current)")
        #expect(observed.values.last == 1, "the sequence delivered: \(observed.values)")
        // A stalled run delivers only once the blocked fetches give up (after 180 s).
        #expect(leftEarly.current == 0, "delivered while the others were blocked")
    }
}
