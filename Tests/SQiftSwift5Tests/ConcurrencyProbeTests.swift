import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

// Full initialiser forms of the concurrency types, as SQift code writes them.
@Suite struct SQiftProbeConcurrencyTests {
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
