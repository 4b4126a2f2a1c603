import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

// The concurrency types (Database, ConnectionQueue, ConnectionPool) and their full initialiser
// forms, as SQift code writes them, in Swift 5 mode.
@Suite struct SQiftProbeConcurrencyTests {
    @Test func concurrencyTypes() throws {
        let directory = try TestDirectory()
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

    @Test func databaseInitialiserForms() throws {
        let directory = try TestDirectory()
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
