import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Counts concurrent users of something; records the maximum and any overlap.
final class UsageCounter: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var active: Set<ObjectIdentifier> = []
    private(set) var overlaps = 0
    private(set) var maximum = 0

    func enter(_ object: AnyObject) {
        lock.withLock {
            if !active.insert(ObjectIdentifier(object)).inserted { overlaps += 1 }
            maximum = max(maximum, active.count)
        }
    }

    func leave(_ object: AnyObject) { _ = lock.withLock { active.remove(ObjectIdentifier(object)) } }
}

@Suite struct ConnectionQueueTests {
    @Test func readmeExample() throws {
        let directory = try TemporaryDirectory()
        let queue = try ConnectionQueue(connection: Connection(storageLocation: .onDisk(directory.path("db"))))
        try queue.execute { connection in
            try connection.execute("PRAGMA foreign_keys = true")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        }
        try queue.executeInTransaction { connection in
            try connection.execute("INSERT INTO cars VALUES(1, 'Audi', 52642)")
            try connection.execute("INSERT INTO cars VALUES(2, 'Mercedes', 57127)")
        }
        #expect(try queue.execute { try $0.query("SELECT count(*) FROM cars") as Int? } == 2)
        try queue.executeInSavepoint("drop_cars_table") { connection in
            try connection.execute("DROP TABLE cars")
        }
        #expect(try queue.execute { try $0.query("SELECT count(*) FROM sqlite_master WHERE name = 'cars'") as Int? } == 0)
        #expect(queue == queue)
        #expect(queue != ConnectionQueue(connection: try Connection()))
    }

    @Test func failuresRollBackAndReentryDoesNotDeadlock() throws {
        let queue = ConnectionQueue(connection: try Connection())
        try queue.execute { try $0.execute("CREATE TABLE t(x)") }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try queue.executeInTransaction(transactionType: .immediate) { connection in
                try connection.run("INSERT INTO t VALUES(1)")
                throw Abort()
            }
        }
        #expect(throws: Abort.self) {
            try queue.executeInSavepoint(named: "s") { connection in
                try connection.run("INSERT INTO t VALUES(2)")
                throw Abort()
            }
        }
        let nested = try queue.execute { _ in try queue.execute { try $0.query("SELECT count(*) FROM t") as Int? } }
        #expect(nested == 0)
    }

    @Test func serializesThreads() throws {
        let queue = ConnectionQueue(connection: try Connection())
        try queue.execute { try $0.execute("CREATE TABLE t(x)") }
        let counter = UsageCounter()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            try? queue.execute { connection in
                counter.enter(connection)
                defer { counter.leave(connection) }
                try connection.run("INSERT INTO t VALUES(?)", index)
            }
        }
        #expect(counter.overlaps == 0)
        #expect(try queue.execute { try $0.query("SELECT count(*) FROM t") as Int? } == 200)
    }

    @Test func asyncTwins() async throws {
        let queue = ConnectionQueue(connection: try Connection())
        try await queue.perform { try $0.execute("CREATE TABLE t(x)") }
        try await queue.performInTransaction { try $0.run("INSERT INTO t VALUES(1)") }
        try await queue.performInSavepoint(named: "s") { try $0.run("INSERT INTO t VALUES(2)") }
        await #expect(throws: SQLiteError.self) {
            try await queue.performInTransaction { connection in
                try connection.run("INSERT INTO t VALUES(3)")
                try connection.run("INSERT INTO nope VALUES(3)")
            }
        }
        let sum = try await queue.perform { try $0.query("SELECT sum(x) FROM t") as Int? }
        #expect(sum == 3)
    }
}

@Suite struct ConnectionPoolTests {
    func makeDatabase(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("db")
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.execute("PRAGMA journal_mode = WAL; CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO cars(name) VALUES('Audi')")
        return path
    }

    @Test func readmeExampleAndReadOnly() throws {
        let directory = try TemporaryDirectory()
        let pool = ConnectionPool(storageLocation: .onDisk(try makeDatabase(directory)))
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
        let pool = ConnectionPool(storageLocation: .onDisk(try makeDatabase(directory)), availableConnectionDrainDelay: 5) { connection in
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
        let pool = ConnectionPool(storageLocation: .onDisk(try makeDatabase(directory)))
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
        let pool = ConnectionPool(storageLocation: .onDisk(try makeDatabase(directory)), availableConnectionDrainDelay: 0.1)
        let queues = try (0..<4).map { _ in try pool.dequeueConnectionForUse() }
        queues.forEach(pool.enqueueConnectionForReuse)
        #expect(pool.availableConnections.count == 4)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(pool.availableConnections.count == 1)
    }

    @Test func missingFileThrows() {
        let pool = ConnectionPool(storageLocation: .onDisk("/nonexistent/dir/db.sqlite"))
        #expect(throws: SQLiteError.self) { try pool.execute { _ in } }
        #expect(pool.busyConnections.isEmpty)
    }
}

@Suite struct DatabaseTests {
    @Test func readmeExample() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")))
        try database.executeWrite { connection in
            try connection.execute("PRAGMA foreign_keys = true")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        }
        try database.executeRead { connection in
            let count: Int? = try connection.query("SELECT count(*) FROM cars")
            #expect(count == 0)
        }
        try await database.write { try $0.run("INSERT INTO cars(name, price) VALUES(?, ?)", "Audi", 52_642) }
        try await database.writeInTransaction { try $0.run("INSERT INTO cars(name, price) VALUES(?, ?)", "Kia", 1) }
        let names = try await database.read { try $0.query("SELECT name FROM cars ORDER BY id") as [String] }
        #expect(names == ["Audi", "Kia"])
        #expect(throws: SQLiteError.self) { try database.executeRead { try $0.execute("DELETE FROM cars") } }
    }

    @Test func inMemoryReadsSeeWrites() throws {
        let database = try Database()
        try database.executeWrite { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        #expect(try database.executeRead { try $0.query("SELECT x FROM t") as Int? } == 1)
        let flagged = try Database(storageLocation: .inMemory, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX)
        #expect(try flagged.executeRead { $0.threadSafe })
    }

    @Test func preparationsRun() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(
            storageLocation: .onDisk(directory.path("db")),
            writerConnectionPreparation: { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t(x)") },
            readerConnectionPreparation: { try $0.addScalarFunction(named: "answer", argumentCount: 0) { _, _ in .integer(42) } }
        )
        #expect(try database.executeRead { try $0.query("SELECT answer() FROM (SELECT 1)") as Int? } == 42)
    }

    @Test func sharedCacheTableLocksPoll() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")), tableLockPolicy: .poll(0.005), sharedCache: true)
        try database.executeWrite { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            try? database.executeWrite { connection in
                try connection.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(2)")
                holding.signal()
                release.wait()
                try connection.execute("COMMIT")
            }
        }.start()
        holding.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { release.signal() }
        let count = try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? }
        #expect(count == 2)
    }

    /// 8 reader threads and 1 writer moving money between accounts: every read sees the same
    /// total, and the final balances are what the writer committed.
    @Test func readersSeeConsistentStateUnderWrites() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("bank")), drainDelay: 0.2)
        let accounts = 20
        try database.executeWrite { connection in
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
            try connection.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
            try connection.transaction {
                for id in 0..<accounts { try connection.run("INSERT INTO accounts VALUES(?, 1000)", id) }
            }
        }
        let deadline = Date().addingTimeInterval(2)
        let errors = UsageCounter()
        let failureLock = NSLock()
        nonisolated(unsafe) var failures: [String] = []
        nonisolated(unsafe) var transfers = 0
        nonisolated(unsafe) var reads = 0
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                defer { group.leave() }
                while Date() < deadline {
                    do {
                        let total = try database.executeRead { try $0.query("SELECT sum(balance) FROM accounts") as Int? }
                        failureLock.withLock {
                            reads += 1
                            if total != accounts * 1000 { failures.append("total \(String(describing: total))") }
                        }
                    } catch {
                        failureLock.withLock { failures.append("\(error)") }
                    }
                }
            }.start()
        }
        group.enter()
        Thread {
            defer { group.leave() }
            var generator = SystemRandomNumberGenerator()
            while Date() < deadline {
                let from = Int.random(in: 0..<accounts, using: &generator)
                let to = Int.random(in: 0..<accounts, using: &generator)
                let amount = Int.random(in: 1...50, using: &generator)
                do {
                    try database.writerConnectionQueue.executeInTransaction(transactionType: .immediate) { connection in
                        try connection.run("UPDATE accounts SET balance = balance - ? WHERE id = ?", amount, from)
                        try connection.run("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, to)
                    }
                    failureLock.withLock { transfers += 1 }
                } catch {
                    failureLock.withLock { failures.append("\(error)") }
                }
            }
        }.start()
        group.wait()
        _ = errors
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(transfers > 10 && reads > 100)
        let total = try database.executeRead { try $0.query("SELECT sum(balance) FROM accounts") as Int? }
        #expect(total == accounts * 1000)
        #expect(database.readerConnectionPool.busyConnections.isEmpty)
    }
}

@Suite struct AsyncDatabaseTests {
    /// Many concurrent async reads, each holding its connection for a while: they run in
    /// parallel on their own connections instead of queueing on the cooperative pool's threads.
    @Test func asyncReadsDoNotHoldCooperativeThreads() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")), drainDelay: 0.2)
        try await database.write { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let running = UsageCounter()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await database.read { connection in
                        running.enter(connection)
                        defer { running.leave(connection) }
                        Thread.sleep(forTimeInterval: 0.1)
                        return try connection.query("SELECT x FROM t") ?? 0
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: 1, count: 16))
        #expect(running.overlaps == 0)
        // More reads ran at once than this machine's cooperative pool has threads (2), so none
        // of them held a cooperative thread while it waited.
        #expect(running.maximum > ProcessInfo.processInfo.activeProcessorCount, "at most \(running.maximum) at once")
        #expect(database.readerConnectionPool.busyConnections.isEmpty)
    }

    @Test func asyncWritesAndReadsInterleave() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")))
        try await database.write { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x INTEGER)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 1...50 {
                group.addTask { try await database.writeInTransaction { try $0.run("INSERT INTO t VALUES(?)", value) } }
                group.addTask {
                    let count = try await database.read { try $0.query("SELECT count(*) FROM t") as Int? } ?? -1
                    #expect((0...50).contains(count))
                }
            }
            try await group.waitForAll()
        }
        let sum = try await database.read { try $0.query("SELECT sum(x) FROM t") as Int? }
        #expect(sum == 1275)
    }
}
