import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct ReplicationSafetyTests {
    @Test func oneCallConfiguresWALTimeoutsAndImmediateWrites() throws {
        let replicated = try TemporaryDatabase(named: "replicated.sqlite") { try replicatedDatabase($0, .litestream) }
        let database = replicated.database
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
        let other = try Connection(storageLocation: .onDisk(replicated.path))
        try database.executeWrite { db in
            try db.transaction(transactionType: .deferred) {
                let error = sqliteError { try other.execute("BEGIN IMMEDIATE") }
                #expect(error?.code == SQLITE_BUSY)
            }
        }
        // Outside the transaction, the other writer gets the lock.
        try other.execute("BEGIN IMMEDIATE; ROLLBACK")
    }

    /// The flag is public: the writer says it begins IMMEDIATE, and a connection configured by
    /// hand gets the same behaviour, savepoints included; a BEGIN executed as SQL stays the user's.
    @Test func immediateTransactionsAreAStatedSettingOfTheConnection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("stated.sqlite")
        let database = try replicatedDatabase(path, .litestream)
        #expect(try database.executeWrite { $0.beginsDeferredTransactionsImmediately })
        #expect(try database.executeRead { $0.beginsDeferredTransactionsImmediately } == false)

        let writer = try Connection(storageLocation: .onDisk(path))
        #expect(writer.beginsDeferredTransactionsImmediately == false)
        writer.beginsDeferredTransactionsImmediately = true
        let other = try Connection(storageLocation: .onDisk(path))
        try writer.transaction(transactionType: .deferred) {
            #expect(sqliteError { try other.execute("BEGIN IMMEDIATE") }?.code == SQLITE_BUSY)
        }
        try writer.savepoint(named: "outer") {
            #expect(sqliteError { try other.execute("BEGIN IMMEDIATE") }?.code == SQLITE_BUSY)
        }
        try writer.execute("BEGIN DEFERRED")
        try other.execute("BEGIN IMMEDIATE; ROLLBACK")
        try writer.execute("ROLLBACK")

        writer.beginsDeferredTransactionsImmediately = false
        try writer.transaction(transactionType: .deferred) {
            try other.execute("BEGIN IMMEDIATE; ROLLBACK")
        }
    }

    @Test func automaticCheckpointsCanBeLeftToTheReplicator() throws {
        let directory = try TemporaryDirectory()
        let off = try replicatedDatabase(directory.path("a.sqlite"), .litestreamHeavyWrites)
        #expect(try off.executeWrite { try $0.query("PRAGMA wal_autocheckpoint") as Int? } == 0)
        let custom = ReplicationSafety(busyTimeout: 1.5, automaticCheckpoints: .everyPages(250))
        let every = try replicatedDatabase(directory.path("b.sqlite"), custom)
        #expect(try every.executeWrite { try $0.query("PRAGMA wal_autocheckpoint") as Int? } == 250)
        #expect(try every.executeWrite { try $0.query("PRAGMA busy_timeout") as Int? } == 1_500)
    }

    @Test func badConfigurationsAreRefused() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: ReplicationSafetyError.self) { try replicatedDatabase(":memory:", .litestream) }
        #expect(throws: ReplicationSafetyError.self) {
            try replicatedDatabase(directory.path("c.sqlite"), ReplicationSafety(automaticCheckpoints: .everyPages(0)))
        }
        #expect(throws: ReplicationSafetyError.self) {
            try replicatedDatabase(directory.path("d.sqlite"), ReplicationSafety(busyTimeout: .infinity))
        }
    }

    @Test func strataRunsNoTruncateOrRestartCheckpointWhileLitestreamHoldsItsLock() throws {
        let directory = try TemporaryDirectory()
        let database = try replicatedDatabase(directory.path("e.sqlite"), .litestream)
        try database.executeWrite { db in
            try db.execute("CREATE TABLE _litestream_seq(id INTEGER PRIMARY KEY, seq INTEGER); CREATE TABLE _litestream_lock(id INTEGER)")
            #expect(throws: ReplicationError.self) { try db.checkpoint(mode: .truncate) }
            #expect(throws: ReplicationError.self) { try db.checkpoint(mode: .restart) }
            _ = try db.checkpoint(mode: .passive)
        }
    }

    /// A top-level savepoint on the writer takes the write lock at once, as its transactions do:
    /// another writer that does not wait is refused before the savepoint has written anything.
    @Test func topLevelSavepointsBeginImmediate() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("f.sqlite")
        let database = try replicatedDatabase(path, .litestream)
        try database.executeWrite { try $0.execute("CREATE TABLE t(v)") }
        let other = try Connection(storageLocation: .onDisk(path))
        func expectWriteLockHeld() {
            #expect(sqliteError { try other.execute("BEGIN IMMEDIATE; ROLLBACK") }?.code == SQLITE_BUSY)
        }
        try database.executeWrite { db in
            try db.savepoint(named: "sqift") {
                expectWriteLockHeld()
                try db.run("INSERT INTO t VALUES(?)", 1)
            }
            #expect(!db.isInTransaction)
            // The savepoint primitives every other form (Squeal's in StrataSqueal too) goes through.
            try db.openSavepoint("manual")
            expectWriteLockHeld()
            try db.releaseSavepoint(named: "manual")
            #expect(!db.isInTransaction)
        }
        try database.writerConnectionQueue.executeInSavepoint("queue") { _ in expectWriteLockHeld() }
        try await database.writerConnectionQueue.performInSavepoint(named: "async") { _ in
            #expect(sqliteError { try Connection(storageLocation: .onDisk(path)).execute("BEGIN IMMEDIATE; ROLLBACK") }?.code == SQLITE_BUSY)
        }
        // Released: the other writer gets the lock.
        try other.execute("BEGIN IMMEDIATE; ROLLBACK")
        #expect(try other.query("SELECT count(*) FROM t") as Int? == 1)
    }

    /// Beginning the outermost savepoint IMMEDIATE keeps SQLite's savepoint semantics: its release
    /// commits, an inner release does not, rolling back to it keeps it open, a failure in it
    /// undoes it whole, and one opened inside a transaction leaves the transaction to its owner.
    @Test func immediateSavepointsKeepSavepointSemantics() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("g.sqlite")
        let database = try replicatedDatabase(path, .litestream)
        try database.executeWrite { try Self.exerciseSavepoints(on: $0) }
        let reader = try Connection(storageLocation: .onDisk(path))
        #expect(try reader.query("SELECT group_concat(v) FROM (SELECT v FROM t ORDER BY v)") as String? == "1,2,7,8")
    }

    /// The body of ``immediateSavepointsKeepSavepointSemantics()`` (a function of its own: as one
    /// closure it crashed the Swift 6.3.1 compiler's SendNonSendable pass).
    static func exerciseSavepoints(on db: Connection) throws {
        try db.execute("CREATE TABLE t(v)")
        try db.savepoint(named: "a") {
            try db.run("INSERT INTO t VALUES(?)", 1)
            try db.savepoint(named: "A") { try db.run("INSERT INTO t VALUES(?)", 2) } // same name, any case
            #expect(db.isInTransaction)
            #expect(throws: Abort.self) {
                try db.savepoint(named: "b") {
                    try db.run("INSERT INTO t VALUES(?)", 3)
                    throw Abort()
                }
            }
            #expect(db.isInTransaction)
        }
        #expect(!db.isInTransaction)
        #expect(throws: Abort.self) {
            try db.savepoint(named: "c") {
                try db.run("INSERT INTO t VALUES(?)", 4)
                throw Abort()
            }
        }
        #expect(!db.isInTransaction)

        try db.openSavepoint("m")
        try db.run("INSERT INTO t VALUES(?)", 5)
        try db.openSavepoint("n")
        try db.run("INSERT INTO t VALUES(?)", 6)
        try db.rollbackToSavepoint(named: "m") // undoes 5 and 6, keeps m open, n gone
        #expect(db.isInTransaction)
        #expect(throws: SQLiteError.self) { try db.releaseSavepoint(named: "n") }
        try db.run("INSERT INTO t VALUES(?)", 7)
        try db.releaseSavepoint(named: "m")
        #expect(!db.isInTransaction)

        try db.transaction {
            try db.savepoint(named: "inside") { try db.run("INSERT INTO t VALUES(?)", 8) }
            #expect(db.isInTransaction)
            try db.openSavepoint("rolled back")
            try db.run("INSERT INTO t VALUES(?)", 9)
            try db.rollbackToSavepoint(named: "rolled back")
            try db.releaseSavepoint(named: "rolled back")
            #expect(db.isInTransaction)
        }
        #expect(!db.isInTransaction)
    }
}

private struct Abort: Error {}

/// A database opened as new code opens one under a replicator: the safety as a configuration field.
func replicatedDatabase(_ path: String, _ safety: ReplicationSafety) throws -> Database {
    var configuration = Database.Configuration()
    configuration.replicationSafety = safety
    return try Database(path: path, configuration: configuration)
}
