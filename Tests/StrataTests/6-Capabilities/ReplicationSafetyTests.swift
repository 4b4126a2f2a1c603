import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct ReplicationSafetyTests {
    @Test func oneCallConfiguresWALTimeoutsAndImmediateWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("replicated.sqlite")
        let database = try Database(storageLocation: .onDisk(path), replicationSafety: .litestream)
        try database.executeWrite { db in
            #expect(try db.query("PRAGMA journal_mode") as String? == "wal")
            #expect(try db.query("PRAGMA busy_timeout") as Int? == 5_000)
            #expect(try db.query("PRAGMA wal_autocheckpoint") as Int? == 1_000)
            // NORMAL (1): no fsync between a commit frame and its publication in the WAL index.
            #expect(try db.query("PRAGMA synchronous") as Int? == 1)
            try db.execute("CREATE TABLE t(v)")
        }
        #expect(try database.executeRead { try $0.query("PRAGMA busy_timeout") as Int? } == 5_000)

        // A DEFERRED transaction on the writer takes the write lock at BEGIN: another writer that
        // does not wait is refused before this one has written anything.
        let other = try Connection(storageLocation: .onDisk(path))
        try database.executeWrite { db in
            try db.transaction(transactionType: .deferred) {
                let error = sqliteError { try other.execute("BEGIN IMMEDIATE") }
                #expect(error?.code == SQLITE_BUSY)
            }
        }
        // Outside the transaction, the other writer gets the lock.
        try other.execute("BEGIN IMMEDIATE; ROLLBACK")
    }

    @Test func automaticCheckpointsCanBeLeftToTheReplicator() throws {
        let directory = try TemporaryDirectory()
        let off = try Database(storageLocation: .onDisk(directory.path("a.sqlite")), replicationSafety: .litestreamHeavyWrites)
        #expect(try off.executeWrite { try $0.query("PRAGMA wal_autocheckpoint") as Int? } == 0)
        let custom = ReplicationSafety(busyTimeout: 1.5, automaticCheckpoints: .everyPages(250))
        let every = try Database(storageLocation: .onDisk(directory.path("b.sqlite")), replicationSafety: custom)
        #expect(try every.executeWrite { try $0.query("PRAGMA wal_autocheckpoint") as Int? } == 250)
        #expect(try every.executeWrite { try $0.query("PRAGMA busy_timeout") as Int? } == 1_500)
    }

    @Test func badConfigurationsAreRefused() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: ReplicationSafetyError.self) { try Database(storageLocation: .inMemory, replicationSafety: .litestream) }
        #expect(throws: ReplicationSafetyError.self) {
            try Database(storageLocation: .onDisk(directory.path("c.sqlite")), replicationSafety: ReplicationSafety(automaticCheckpoints: .everyPages(0)))
        }
        #expect(throws: ReplicationSafetyError.self) {
            try Database(storageLocation: .onDisk(directory.path("d.sqlite")), replicationSafety: ReplicationSafety(busyTimeout: .infinity))
        }
    }

    @Test func strataRunsNoTruncateOrRestartCheckpointWhileLitestreamHoldsItsLock() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("e.sqlite")), replicationSafety: .litestream)
        try database.executeWrite { db in
            try db.execute("CREATE TABLE _litestream_seq(id INTEGER PRIMARY KEY, seq INTEGER); CREATE TABLE _litestream_lock(id INTEGER)")
            #expect(throws: ReplicationError.self) { try db.checkpoint(mode: .truncate) }
            #expect(throws: ReplicationError.self) { try db.checkpoint(mode: .restart) }
            _ = try db.checkpoint(mode: .passive)
        }
    }
}
