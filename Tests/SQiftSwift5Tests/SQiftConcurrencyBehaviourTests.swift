import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// The concurrency types (Database, ConnectionQueue, ConnectionPool) and their full initialiser
// forms, as SQift code writes them, in Swift 5 mode.
@Suite struct SQiftConcurrencyBehaviourTests {
    @Test func concurrencyTypes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("x.db")
        let database = try Database(storageLocation: .onDisk(path))
        try database.executeWrite { try $0.execute("CREATE TABLE t(a)") }
        try database.executeRead { connection in
            let n: Int = try connection.query("SELECT count(*) FROM t")
            #expect(n == 0)
        }
        _ = database.writerConnectionQueue
        _ = database.readerConnectionPool
        let d2 = try Database(storageLocation: .onDisk(path), tableLockPolicy: .fastFail, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        _ = d2
        let d3 = try Database()
        _ = d3
        let queue = ConnectionQueue(connection: try Connection())
        try queue.execute { _ in }
        try queue.executeInTransaction(transactionType: .exclusive) { _ in }
        try queue.executeInSavepoint(named: "x") { _ in }
        let pool = ConnectionPool(storageLocation: .onDisk(path), availableConnectionDrainDelay: 0.1) { _ in }
        try pool.execute { _ in }
    }

    /// SQift's drain test: reads in parallel from a utility queue (four at once here, so four
    /// connections open), then the pool is back down to one idle connection after the delay.
    @Test func poolDrainsToOneConnectionAfterTheDelay() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("drain.db")
        let writer = try Connection(storageLocation: .onDisk(path))
        try writer.execute("CREATE TABLE agents(id INTEGER PRIMARY KEY); INSERT INTO agents VALUES (1), (2)")
        let pool = ConnectionPool(storageLocation: .onDisk(path), availableConnectionDrainDelay: 0.1)
        let group = DispatchGroup()
        let seen = Locked<[Int]>([])
        let allIn = DispatchSemaphore(value: 0)
        let entered = Locked(0)
        let busyAtOnce = Locked(0)
        for _ in 0..<4 {
            DispatchQueue.global(qos: .utility).async(group: group) {
                try? pool.execute { connection in
                    let count: Int = try connection.query("SELECT count(*) FROM agents")
                    seen.withLock { $0.append(count) }
                    if entered.withLock({
                        $0 += 1; return $0
                    }) == 4 {
                        busyAtOnce.withLock { $0 = pool.busyConnections.count }
                        for _ in 0..<4 { allIn.signal() }
                    }
                    _ = allIn.wait(timeout: .now() + 30)
                }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(busyAtOnce.current == 4)
        let deadline = Date().addingTimeInterval(60)
        while pool.availableConnections.count > 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(pool.availableConnections.count == 1)
        #expect(seen.current == Array(repeating: 2, count: 4))
    }

    @Test func databaseInitialiserForms() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("d.db")
        var writerPrepared = 0
        var readerPrepared = 0
        let database = try Database(
            storageLocation: .onDisk(path),
            tableLockPolicy: .poll(0.01),
            multiThreaded: true,
            sharedCache: false,
            drainDelay: 0.1,
            writerConnectionPreparation: { connection in
                writerPrepared += 1
                try connection.execute("PRAGMA journal_mode = WAL")
            },
            readerConnectionPreparation: { _ in readerPrepared += 1 }
        )
        try database.executeWrite { try $0.execute("CREATE TABLE t(a); INSERT INTO t VALUES(1)") }
        let n: Int = try database.readerConnectionPool.execute { try $0.query("SELECT count(*) FROM t") }
        #expect(n == 1)
        #expect(writerPrepared == 1)
        #expect(readerPrepared == 1)
        let flagged = try Database(
            storageLocation: .onDisk(path),
            tableLockPolicy: .fastFail,
            flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
            drainDelay: 0.1,
            writerConnectionPreparation: nil,
            readerConnectionPreparation: nil
        )
        try flagged.executeRead { connection in
            #expect(connection.readOnly)
        }
        try flagged.writerConnectionQueue.executeInTransaction { try $0.execute("INSERT INTO t VALUES(2)") }
        let failing = ConnectionPool(storageLocation: .onDisk(path)) { _ in
            throw SQLiteError(code: SQLITE_ERROR, message: "nope")
        }
        #expect(throws: SQLiteError.self) { try failing.execute { _ in } }
    }
}
