import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

@Suite struct ConnectionPoolTests {
    @Test func readmeExampleAndReadOnly() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)))
        try pool.execute { connection in
            let count: Int? = try connection.query("SELECT count(*) FROM cars")
            #expect(count == 1)
            #expect(connection.readOnly)
        }
        #expect(throws: SQLiteError.self) { try pool.execute { try $0.execute("DELETE FROM cars") } }
        #expect(pool.busyConnections.isEmpty)
        #expect(pool.availableConnections.count == 1)
    }

    @Test func neverSharesAConnectionAndPreparesEachOnce() throws {
        let directory = try TemporaryDirectory()
        let prepared = UsageCounter()
        nonisolated(unsafe) var preparations = 0
        let lock = NSLock()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 5) { connection in
            lock.withLock { preparations += 1 }
            try connection.execute("PRAGMA cache_size = 100")
        }
        let counter = UsageCounter()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            try? pool.execute { connection in
                counter.enter(connection)
                defer { counter.leave(connection) }
                let _: Int? = try connection.query("SELECT count(*) FROM cars")
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        _ = prepared
        #expect(counter.overlaps == 0)
        #expect(counter.maximum >= 1)
        #expect(preparations == pool.availableConnections.count)
        #expect(pool.busyConnections.isEmpty)
    }

    @Test func thrownErrorsReturnTheConnection() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)))
        struct Failure: Error {}
        for _ in 0..<5 { #expect(throws: Failure.self) { try pool.execute { _ in throw Failure() } } }
        #expect(pool.busyConnections.isEmpty)
        #expect(pool.availableConnections.count == 1)
        let queue = try pool.dequeueConnectionForUse()
        #expect(pool.busyConnections == [queue])
        pool.enqueueConnectionForReuse(queue)
        #expect(pool.availableConnections.contains(queue))
    }

    @Test func drainsToOneIdleConnection() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 0.1)
        let queues = try (0..<4).map { _ in try pool.dequeueConnectionForUse() }
        queues.forEach(pool.enqueueConnectionForReuse)
        #expect(pool.availableConnections.count == 4)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(pool.availableConnections.count == 1)
    }

    /// Check-ins share one drain timer: a busy pool used to put one on libdispatch's heap per
    /// call, each waking a thread when it fired.
    @Test func checkInsShareOneDrainTimer() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 60)
        for _ in 0..<1_000 { try pool.execute { _ in } }
        let queues = try (0..<3).map { _ in try pool.dequeueConnectionForUse() }
        queues.forEach(pool.enqueueConnectionForReuse)
        #expect(pool.drainTimersStarted == 1)
        #expect(pool.availableConnections.count == 3)
    }

    /// The drain comes the delay after the latest check-in, not the first: a timer that fires
    /// early waits for the rest.
    @Test func theDrainWaitsForTheDelayAfterTheLatestCheckIn() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 1)
        let queues = try (0..<3).map { _ in try pool.dequeueConnectionForUse() }
        queues.forEach(pool.enqueueConnectionForReuse)
        Thread.sleep(forTimeInterval: 0.6)
        let latest = ContinuousClock.now
        try pool.execute { _ in }
        Thread.sleep(forTimeInterval: 0.6)
        let idle = pool.availableConnections.count
        // Only meaningful while less than the delay has passed since the latest check-in (a
        // loaded machine may oversleep); the first timer fired 1 s after the first check-ins.
        if ContinuousClock.now - latest < .milliseconds(900) { #expect(idle == 3) }
        let deadline = ContinuousClock.now + .seconds(60)
        while pool.availableConnections.count > 1 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(pool.availableConnections.count == 1)
        #expect(pool.drainTimersStarted >= 2)
    }

    /// While a connection is out the pool does not drain; it does once everything is back.
    @Test func aBusyPoolDrainsOnceEverythingIsBack() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: 0.05)
        let queues = try (0..<3).map { _ in try pool.dequeueConnectionForUse() }
        pool.enqueueConnectionForReuse(queues[0])
        pool.enqueueConnectionForReuse(queues[1])
        Thread.sleep(forTimeInterval: 0.3)
        #expect(pool.availableConnections.count == 2)
        pool.enqueueConnectionForReuse(queues[2])
        let deadline = ContinuousClock.now + .seconds(60)
        while pool.availableConnections.count > 1 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(pool.availableConnections.count == 1)
    }

    /// A delay of 0 (or less) with a connection out re-arms at most once a millisecond, not in a
    /// loop that keeps a core busy.
    @Test(arguments: [0.0, -1.0, 1e-12])
    func aZeroDelayDoesNotSpinWhileAConnectionIsOut(delay: Double) throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: delay)
        let queues = try (0..<2).map { _ in try pool.dequeueConnectionForUse() }
        pool.enqueueConnectionForReuse(queues[0])
        Thread.sleep(forTimeInterval: 0.3)
        // 300 at most at one a millisecond; the loop this replaces started about a million.
        #expect(pool.drainTimersStarted <= 400)
        pool.enqueueConnectionForReuse(queues[1])
        let deadline = ContinuousClock.now + .seconds(60)
        while pool.availableConnections.count > 1 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(pool.availableConnections.count == 1)
    }

    /// A delay that never ends (NaN, infinity) never drains and starts no timer, as Dispatch
    /// never fired one scheduled that far.
    @Test(arguments: [Double.nan, Double.infinity])
    func aDelayThatNeverEndsNeverDrains(delay: Double) throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeWALCarsFile(in: directory)), availableConnectionDrainDelay: delay)
        let queues = try (0..<3).map { _ in try pool.dequeueConnectionForUse() }
        queues.forEach(pool.enqueueConnectionForReuse)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(pool.availableConnections.count == 3)
        #expect(pool.drainTimersStarted == 0)
    }

    @Test func missingFileThrows() {
        let pool = ConnectionPool(storageLocation: .onDisk("/nonexistent/dir/db.sqlite"))
        #expect(throws: SQLiteError.self) { try pool.execute { _ in } }
        #expect(pool.busyConnections.isEmpty)
    }

    /// A connection comes back to the pool with no transaction and no statement running, so the
    /// next caller reads the latest commit.
    @Test func returnedConnectionsAreCleanedUp() async throws {
        let directory = try TemporaryDirectory()
        let path = try makeWALCarsFile(in: directory)
        let pool = ConnectionPool(storageLocation: .onDisk(path), maximumConnectionCount: 1)
        let writer = try Connection(storageLocation: .onDisk(path))
        try pool.execute { try $0.execute("BEGIN; SELECT count(*) FROM cars") }
        let leftover = try pool.execute { db in
            #expect(!db.isInTransaction)
            let statement = try db.prepare("SELECT name FROM cars")
            _ = try statement.step()
            return statement
        }
        try withExtendedLifetime(leftover) {
            try writer.run("INSERT INTO cars(name) VALUES(?)", "Kia")
            #expect(try pool.execute { try $0.query("SELECT count(*) FROM cars") as Int? } == 2)
        }
        // Cached statements too (a convenience query's), through the async path.
        try await pool.perform { db in
            try db.execute("BEGIN")
            _ = try db.query("SELECT count(*) FROM cars") as Int?
        }
        try writer.run("INSERT INTO cars(name) VALUES(?)", "Fiat")
        #expect(try await pool.perform { try $0.query("SELECT count(*) FROM cars") as Int? } == 3)
    }
}
