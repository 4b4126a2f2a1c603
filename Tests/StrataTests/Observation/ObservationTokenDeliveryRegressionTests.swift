import Foundation
import Testing
@testable import Strata

/// A token's deliveries do not depend on Swift's cooperative pool, whose threads synchronous
/// callers may block with a semaphore (issue 40).
///
/// Blocking the whole pool stalls every test running beside it (and fails those that time
/// themselves), so it runs in a process of its own: `STRATA_POOL_TESTS=1` (.ci/run sets it).
@Suite struct ObservationTokenDeliveryRegressionTests {
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
        let deadline = Date().addingTimeInterval(5)
        while delivered.current.last != 1, Date() < deadline { usleep(2_000) }
        #expect(delivered.current.last == 1, "delivered while the pool was blocked: \(delivered.current)")
    }
}
