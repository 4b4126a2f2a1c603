import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// The reader pool is bounded, its preparation closure is never called concurrently, and its
/// internal sets stay as SQift's tests use them.
@Suite struct ConnectionPoolLimitTests {
    @Test func synchronousCallersWaitPastTheMaximum() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 5, maximumConnectionCount: 2)
        let counter = UsageCounter()
        let opened = Locked(Set<ObjectIdentifier>())
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            try? pool.execute { connection in
                counter.enter(connection)
                defer { counter.leave(connection) }
                opened.withLock { _ = $0.insert(ObjectIdentifier(connection)) }
                let _: Int? = try connection.query("SELECT count(*) FROM cars")
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        #expect(counter.overlaps == 0)
        #expect(counter.maximum <= 2)
        #expect(opened.current.count <= 2)
        #expect(pool.busyConnections.isEmpty)
        #expect(pool.availableConnections.count <= 2)
    }

    @Test func asyncCallersSuspendPastTheMaximum() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), maximumReaderCount: 3)
        let counter = UsageCounter()
        let counts = try await counter.concurrentReads(24, of: database, holding: 0.005, "SELECT count(*) FROM cars").reduce(0, +)
        #expect(counts == 24)
        #expect(counter.overlaps == 0)
        #expect(counter.maximum <= 3)
        #expect(database.readerConnectionPool.maximumConnectionCount == 3)
        #expect(database.readerConnectionPool.availableConnections.count <= 3)
    }

    @Test func aFailedOpenLetsTheNextWaiterTry() throws {
        let directory = try TemporaryDirectory()
        let path = try makeWALCarsFile(in: directory)
        let attempts = Locked(0)
        let pool = ConnectionPool(storageLocation: .onDisk(path), maximumConnectionCount: 1) { _ in
            let attempt = attempts.withLock { count -> Int in
                count += 1; return count
            }
            if attempt == 1 { throw SQLiteError(code: 1, message: "first preparation fails") }
        }
        #expect(throws: SQLiteError.self) { try pool.execute { _ in } }
        #expect(try pool.execute { try $0.query("SELECT count(*) FROM cars") as Int? } == 1)
        #expect(attempts.current == 2)
    }

    @Test func preparationCallsNeverOverlap() throws {
        let directory = try TemporaryDirectory()
        let inside = Locked(0)
        let overlaps = Locked(0)
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 5, maximumConnectionCount: 8) {
            connection in
            // Not thread-safe on purpose: SQift-era preparations assume one call at a time.
            if inside.withLock({ value -> Int in
                value += 1; return value
            }) > 1 {
                overlaps.withLock { $0 += 1 }
            }
            Thread.sleep(forTimeInterval: 0.01)
            try connection.execute("PRAGMA cache_size = 100")
            inside.withLock { $0 -= 1 }
        }
        let start = DispatchSemaphore(value: 0)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            if index == 0 { for _ in 0..<7 { start.signal() } } else { start.wait() }
            try? pool.execute { connection in
                Thread.sleep(forTimeInterval: 0.02)
                _ = try connection.query("SELECT 1") as Int?
            }
        }
        #expect(overlaps.current == 0)
    }

    /// SQift's own pool tests reset these sets through `@testable import`.
    @Test func availableAndBusyConnectionsAreSettable() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)))
        let queue = try pool.dequeueConnectionForUse()
        #expect(pool.busyConnections == [queue])
        pool.busyConnections = []
        pool.availableConnections = [queue]
        #expect(pool.availableConnections == [queue])
        #expect(try pool.dequeueConnectionForUse() === queue)
        pool.enqueueConnectionForReuse(queue)
        pool.availableConnections = []
        #expect(pool.availableConnections.isEmpty)
        #expect(try pool.execute { try $0.query("SELECT count(*) FROM cars") as Int? } == 1)
    }
}
