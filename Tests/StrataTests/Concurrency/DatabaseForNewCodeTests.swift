import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
#if canImport(SQLite3)
import SQLite3
#endif

/// `Database(path:configuration:)`: configured connections, transactional `write`, snapshot
/// `read`, and `close()` leaving the data in the database file alone. Real files throughout.
@Suite struct DatabaseForNewCodeTests {
    /// The pragmas a connection reports: foreign_keys, journal_mode, synchronous, busy_timeout.
    struct Pragmas: Sendable, Equatable {
        var foreignKeys: Int?
        var journalMode: String?
        var synchronous: Int?
        var busyTimeout: Int?

        init(foreignKeys: Int?, journalMode: String?, synchronous: Int?, busyTimeout: Int?) {
            self.foreignKeys = foreignKeys
            self.journalMode = journalMode
            self.synchronous = synchronous
            self.busyTimeout = busyTimeout
        }

        init(_ connection: Connection) throws {
            foreignKeys = try connection.query("PRAGMA foreign_keys")
            journalMode = try connection.query("PRAGMA journal_mode")
            synchronous = try connection.query("PRAGMA synchronous")
            busyTimeout = try connection.query("PRAGMA busy_timeout")
        }
    }

    static func count(_ connection: Connection) throws -> Int {
        try connection.query("SELECT count(*) FROM t") ?? -1
    }

    static func walSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size].flatMap { ($0 as? NSNumber)?.intValue }
    }

    // MARK: - Configuration

    @Test func defaultsAreAppliedToTheWriterAndEveryReader() async throws {
        let configuration = Database.Configuration()
        #expect(configuration.foreignKeys)
        #expect(configuration.journalMode == .wal)
        #expect(configuration.busyTimeout == 5)
        #expect(configuration.synchronous == .normal)
        #expect(configuration.maximumReaderCount == 5)

        let temporary = try makeDatabase()
        let database = temporary.database
        let expected = Pragmas(foreignKeys: 1, journalMode: "wal", synchronous: 1, busyTimeout: 5000)
        #expect(try await database.writeWithoutTransaction { try Pragmas($0) } == expected)
        #expect(try await database.read { try Pragmas($0) } == expected)
        #expect(try database.executeRead { try Pragmas($0) } == expected)
        // Two readers at once: the second is a connection of its own, set up the same way.
        let nested = try database.executeRead { _ in try database.executeRead { try Pragmas($0) } }
        #expect(nested == expected)
        #expect(database.readerConnectionPool.maximumConnectionCount == 5)
        try await database.close()
    }

    @Test func everySettingOfAConfigurationIsApplied() async throws {
        var configuration = Database.Configuration()
        configuration.foreignKeys = false
        configuration.journalMode = .truncate
        configuration.synchronous = .full
        configuration.busyTimeout = 1.5
        configuration.maximumReaderCount = 2
        let temporary = try makeDatabase(configuration: configuration)
        let database = temporary.database
        let expected = Pragmas(foreignKeys: 0, journalMode: "truncate", synchronous: 2, busyTimeout: 1500)
        #expect(try await database.writeWithoutTransaction { try Pragmas($0) } == expected)
        #expect(try await database.read { try Pragmas($0) } == expected)
        #expect(database.readerConnectionPool.maximumConnectionCount == 2)
        try await database.close()
    }

    @Test(arguments: DatabaseKind.allCases) func foreignKeysAreEnforcedByDefault(kind: DatabaseKind) async throws {
        let temporary = try makeDatabase(kind)
        let database = temporary.database
        try await database.write { db in
            try db.execute("CREATE TABLE author(id INTEGER PRIMARY KEY); CREATE TABLE book(author INTEGER REFERENCES author(id))")
        }
        let error = await #expect(throws: SQLiteError.self) {
            try await database.write { try $0.run("INSERT INTO book VALUES(?)", 42) }
        }
        #expect(error?.code == SQLITE_CONSTRAINT)
        try await database.close()
    }

    /// SQift's initializers keep SQift's behaviour: SQLite's defaults, a bare `executeWrite`
    /// and `writeWithoutTransaction`, and a `read` whose statements each see the latest commit.
    /// SQift's opener keeps SQLite's own settings and bare `executeWrite`, but its `read` is one
    /// snapshot like every `Database`'s (issue 83: the same behaviour whatever opened it).
    @Test func sqiftInitializersKeepSQiftsSettingsAndSnapshotReads() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sqift.sqlite")
        let database = try Database(storageLocation: .onDisk(path))
        let pragmas = try await database.writeWithoutTransaction { try Pragmas($0) }
        #expect(pragmas.foreignKeys == 0)
        #expect(pragmas.journalMode == "delete")
        #expect(try database.executeWrite { $0.isInTransaction } == false)
        #expect(try await database.writeWithoutTransaction { $0.isInTransaction } == false)
        try await database.writeWithoutTransaction { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let counts = try await database.read { db in
            let before = try Self.count(db)
            let other = try Connection(storageLocation: .onDisk(path))
            try other.execute("INSERT INTO t VALUES(2)")
            return [before, try Self.count(db)]
        }
        #expect(counts == [1, 1])
        #expect(try database.executeRead { try Self.count($0) } == 2)
    }

    /// The trap issue 67 removed: `write` on a `Database` made by SQift's initializer was bare,
    /// so a failing second statement left the first one committed. Now it is one IMMEDIATE
    /// transaction there too, and the first statement is rolled back with the second.
    @Test(arguments: [false, true]) func writeIsATransactionWhicheverInitializerMadeTheDatabase(sqift: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = sqift ? try Database(storageLocation: .onDisk(path)) : try Database(path: path)
        try await database.write { try $0.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)") }
        #expect(try await database.write { $0.isInTransaction })
        let error = await #expect(throws: SQLiteError.self) {
            try await database.write { db in
                try db.run("INSERT INTO t VALUES(?)", 1)
                try db.run("INSERT INTO t VALUES(?)", 1) // a duplicate key: SQLITE_CONSTRAINT
            }
        }
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(try await database.read { try Self.count($0) } == 0)
        #expect(try Connection(storageLocation: .onDisk(path)).query("SELECT count(*) FROM t") == 0)
        // writeInTransaction's default is IMMEDIATE too: the lock is held before anything is written.
        let lockHeld = try await database.writeInTransaction { _ -> Bool in
            let other = try Connection(storageLocation: .onDisk(path))
            try other.busyHandler(.timeout(0))
            return sqliteError({ try other.execute("BEGIN IMMEDIATE") })?.code == SQLITE_BUSY
        }
        #expect(lockHeld)
        try await database.close()
    }

    // MARK: - write

    @Test func writeRunsInOneImmediateTransaction() async throws {
        let temporary = try makeDatabase()
        let (database, path) = (temporary.database, temporary.path)
        try await database.writeWithoutTransaction { try $0.execute("CREATE TABLE t(x)") }
        let observed = try await database.write { db -> [String] in
            var observed: [String] = []
            if db.isInTransaction { observed.append("in transaction") }
            // Before this closure wrote anything, the write lock is already taken: IMMEDIATE.
            let other = try Connection(storageLocation: .onDisk(path))
            try other.busyHandler(.timeout(0))
            if sqliteError({ try other.execute("BEGIN IMMEDIATE") })?.code == SQLITE_BUSY { observed.append("lock held") }
            try db.run("INSERT INTO t VALUES(?)", 1)
            // Not committed until the closure returns.
            observed.append("others see \(try Self.count(other))")
            return observed
        }
        #expect(observed == ["in transaction", "lock held", "others see 0"])
        #expect(try await database.read { try Self.count($0) } == 1)
        try await database.close()
    }

    @Test(arguments: DatabaseKind.allCases) func writeRollsBackWhenItsClosureThrows(kind: DatabaseKind) async throws {
        struct Failure: Error {}
        let temporary = try makeDatabase(kind)
        let database = temporary.database
        try await database.write { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        await #expect(throws: Failure.self) {
            try await database.write { db in
                try db.run("INSERT INTO t VALUES(?)", 2)
                try db.run("DELETE FROM t WHERE x = ?", 1)
                throw Failure()
            }
        }
        #expect(try await database.read { db in try db.query("SELECT x FROM t") as [Int] } == [1])
        #expect(try await database.writeWithoutTransaction { $0.isInTransaction } == false)
        try await database.close()
    }

    @Test func writeWithoutTransactionCanVacuum() async throws {
        let temporary = try makeDatabase()
        let database = temporary.database
        try await database.write { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        // VACUUM cannot run inside a transaction, which `write` always opens.
        await #expect(throws: SQLiteError.self) { try await database.write { try $0.execute("VACUUM") } }
        try await database.writeWithoutTransaction { db in try db.execute("VACUUM") }
        let mode = try await database.writeWithoutTransaction { db -> String? in
            #expect(!db.isInTransaction)
            return try db.query("PRAGMA journal_mode = WAL")
        }
        #expect(mode == "wal")
        // writeInTransaction stays, with its own transaction type.
        try await database.writeInTransaction(transactionType: .exclusive) { try $0.run("INSERT INTO t VALUES(?)", 2) }
        #expect(try await database.read { try Self.count($0) } == 2)
        try await database.close()
    }

    // MARK: - read

    @Test func readSeesOneSnapshotWhileAnotherConnectionCommits() async throws {
        let temporary = try makeDatabase()
        let (database, path) = (temporary.database, temporary.path)
        try await database.write { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let counts = try await database.read { db in
            let before = try Self.count(db)
            let other = try Connection(storageLocation: .onDisk(path))
            try other.execute("INSERT INTO t VALUES(2)") // committed between the two queries
            return [before, try Self.count(db), try Self.count(other)]
        }
        #expect(counts == [1, 1, 2])
        #expect(try await database.read { try Self.count($0) } == 2)
        // Writes of the database itself, between two queries of one read, stay unseen too.
        let writes = try await database.read { db in
            let before = try Self.count(db)
            try database.executeWrite { try $0.execute("INSERT INTO t VALUES(3)") }
            return [before, try Self.count(db)]
        }
        #expect(writes == [2, 2])
        try await database.close()
    }

    // MARK: - close

    @Test func closeLeavesEveryRowInTheDatabaseFileAlone() async throws {
        let temporary = try makeDatabase()
        let (database, path) = (temporary.database, temporary.path)
        try await database.write { db in
            try db.execute("CREATE TABLE t(x)")
            for value in 1...200 { try db.run("INSERT INTO t VALUES(?)", String(repeating: "v", count: value)) }
        }
        // The rows are in the WAL, not yet in the database file.
        #expect((Self.walSize(path) ?? 0) > 0)
        _ = try await database.read { try Self.count($0) }
        try await database.close()
        #expect(Self.walSize(path) ?? 0 == 0)
        #expect(database.readerConnectionPool.availableConnections.isEmpty)
        #expect(database.isClosed)

        let copy = temporary.directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let copied = try Connection(storageLocation: .onDisk(copy))
        #expect(try Self.count(copied) == 200)
    }

    /// Once released after `close()`, the writer's handle closes too, and SQLite removes the WAL.
    @Test func aClosedDatabaseReleasedLeavesNoWALFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        weak var released: Database?
        do {
            let database = try Database(path: path)
            released = database
            try await database.write { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
            _ = try await database.read { try Self.count($0) }
            try await database.close()
        }
        #expect(released == nil)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try Self.count(try Connection(storageLocation: .onDisk(path))) == 1)
    }

    @Test(arguments: DatabaseKind.allCases) func everyCallAfterCloseThrowsClosed(kind: DatabaseKind) async throws {
        let temporary = try makeDatabase(kind)
        let database = temporary.database
        try await database.write { try $0.execute("CREATE TABLE t(x)") }
        try await database.close()
        await #expect(throws: DatabaseError.closed) { try await database.write { try $0.execute("INSERT INTO t VALUES(1)") } }
        await #expect(throws: DatabaseError.closed) { try await database.writeWithoutTransaction { try $0.execute("VACUUM") } }
        await #expect(throws: DatabaseError.closed) { try await database.writeInTransaction { try $0.execute("INSERT INTO t VALUES(1)") } }
        await #expect(throws: DatabaseError.closed) { try await database.read { try Self.count($0) } }
        #expect(throws: DatabaseError.closed) { try database.executeRead { try Self.count($0) } }
        #expect(throws: DatabaseError.closed) { try database.executeWrite { try $0.execute("INSERT INTO t VALUES(1)") } }
        // The writer's own queue, and the reader pool, refuse too: nothing writes the WAL again.
        #expect(throws: DatabaseError.closed) { try database.writerConnectionQueue.execute { try $0.execute("INSERT INTO t VALUES(1)") } }
        await #expect(throws: DatabaseError.closed) { try await database.readerConnectionPool.perform { try Self.count($0) } }
        #expect(DatabaseError.closed.description.contains("close()"))
        #expect(DatabaseError.closed.localizedDescription.contains("close() was called"))
        #expect(DatabaseError.closed.resultCode == .misuse)

        // Closing again is fine, and so are several closes at once.
        try await database.close()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { try await database.close() } }
            try await group.waitForAll()
        }
    }

    @Test func closeWaitsForTheCallsAlreadyRunning() async throws {
        let temporary = try makeDatabase()
        let (database, path) = (temporary.database, temporary.path)
        try await database.write { try $0.execute("CREATE TABLE t(x)") }
        let started = DispatchSemaphore(value: 0)
        let running = Task {
            try await database.write { db in
                started.signal()
                try db.run("INSERT INTO t VALUES(?)", 1)
                Thread.sleep(forTimeInterval: 0.3)
                try db.run("INSERT INTO t VALUES(?)", 2)
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // A thread of its own: on Linux the global queue is the cooperative pool's, whose threads
            // (two on two cores) a semaphore wait would hold.
            Thread.detachNewThread {
                started.wait(); continuation.resume()
            }
        }
        try await database.close()
        try await running.value // it finished, committed, before the close's checkpoint
        #expect(Self.walSize(path) ?? 0 == 0)
        let copy = temporary.directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(try Self.count(try Connection(storageLocation: .onDisk(copy))) == 2)
    }

    /// While Litestream replicates the database (its lock table exists), close checkpoints
    /// PASSIVE: every commit reaches the database file, and the WAL stays for Litestream.
    @Test func closeUnderLitestreamCheckpointsPassive() async throws {
        let temporary = try makeDatabase()
        let (database, path) = (temporary.database, temporary.path)
        try await database.write { db in
            try db.execute("CREATE TABLE _litestream_lock(id INTEGER); CREATE TABLE t(x)")
            for value in 1...50 { try db.run("INSERT INTO t VALUES(?)", value) }
        }
        try await database.close()
        #expect((Self.walSize(path) ?? 0) > 0)
        let copy = temporary.directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(try Self.count(try Connection(storageLocation: .onDisk(copy))) == 50)
    }

    @Test func closeWorksForADatabaseMadeBySQiftsInitializer() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sqift.sqlite")
        let database = try Database(storageLocation: .onDisk(path))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        #expect(try database.executeRead { try Self.count($0) } == 1)
        #expect((Self.walSize(path) ?? 0) > 0)
        try await database.close()
        #expect(Self.walSize(path) ?? 0 == 0)
        #expect(throws: DatabaseError.closed) { try database.executeWrite { try $0.execute("INSERT INTO t VALUES(2)") } }
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(try Self.count(try Connection(storageLocation: .onDisk(copy))) == 1)
    }
}

/// A TRUNCATE checkpoint empties the WAL, so SQLite reports "0 of 0 frames" however many it wrote
/// back; the counting checkpoint that `close()`, the server's shutdown and `strata checkpoint`
/// use reports the frames.
@Suite struct CheckpointFrameCountTests {
    final class CheckpointEvents: DatabaseEventHandler, @unchecked Sendable {
        // @unchecked Sendable: `modes` is only reached under `lock`.
        private let lock = NSLock()
        private var modes: [Connection.CheckpointMode] = []
        func checkpointDidFinish(_ event: DatabaseCheckpointEvent) { lock.withLock { modes.append(event.mode) } }
        var seen: [Connection.CheckpointMode] { lock.withLock { modes } }
    }

    @Test func aCountedTruncateReportsTheFramesItWroteBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let connection = try makeConnection(.onDisk(path), executing: "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(randomblob(5000))")
        // SQift's checkpoint reports SQLite's numbers, as before.
        #expect(try connection.checkpoint(mode: .truncate) == Connection.CheckpointResult(logFrames: 0, checkpointedFrames: 0))

        try connection.execute("INSERT INTO t VALUES(randomblob(5000))")
        let counted = try connection.checkpointCountingFrames(mode: .truncate)
        #expect(counted.logFrames > 0)
        #expect(counted.checkpointedFrames == counted.logFrames)
        #expect(DatabaseForNewCodeTests.walSize(path) == 0)
        // Other modes are SQLite's own report.
        try connection.execute("INSERT INTO t VALUES(1)")
        let passive = try connection.checkpointCountingFrames(mode: .passive)
        #expect(passive.logFrames > 0 && passive.checkpointedFrames == passive.logFrames)

        let rollback = try makeConnection(.onDisk(directory.path("rollback.sqlite")), executing: "CREATE TABLE t(x)")
        #expect(try rollback.checkpointCountingFrames(mode: .truncate).logFrames == -1)
    }

    @Test func aRefusedTruncateRunsNoCheckpointAtAll() throws {
        let directory = try TemporaryDirectory()
        let connection = try makeConnection(
            .onDisk(directory.path("app.sqlite")), executing: "PRAGMA journal_mode = WAL; CREATE TABLE _litestream_lock(id INTEGER); CREATE TABLE t(x)")
        let events = CheckpointEvents()
        connection.setEventHandler(events)
        #expect(throws: ReplicationError.checkpointWouldResetWAL(mode: "TRUNCATE")) { try connection.checkpointCountingFrames(mode: .truncate) }
        #expect(events.seen.isEmpty)
        _ = try connection.checkpointCountingFrames(mode: .truncate, force: true)
        #expect(events.seen == [.passive, .truncate])
    }
}

/// `Database(path: ":memory:")`: one private database, read on the writer, still transactional.
@Suite struct DatabaseForNewCodeInMemoryTests {
    @Test func anInMemoryPathReadsOnTheWriterInTransactions() async throws {
        let database = try Database(path: ":memory:")
        try await database.write { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let seen = try await database.read { db in [try DatabaseForNewCodeTests.count(db), db.isInTransaction ? 1 : 0] }
        #expect(seen == [1, 1])
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await database.write { db in
                try db.execute("DELETE FROM t"); throw Failure()
            }
        }
        #expect(try await database.read { try DatabaseForNewCodeTests.count($0) } == 1)
        try await database.close()
        await #expect(throws: DatabaseError.closed) { try await database.read { _ in 1 } }
    }
}
