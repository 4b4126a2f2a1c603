import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// `Database.readOnCallingThread(_:)`: the closure runs on a reader, on the calling task's own
/// thread, with `read(_:)`'s transactions, waiting, cancellation, errors and events. Real files.
@Suite struct ReadOnCallingThreadTests {
    /// Runs every job of the tasks that prefer it on a dispatch queue, with a mark in the
    /// running thread's dictionary for the length of the job: code that sees the mark ran on the
    /// calling task's thread while its job ran (a `sync` onto another queue keeps the thread).
    final class MarkedExecutor: TaskExecutor {
        static let mark = "strata.tests.calling-task"
        let queue = DispatchQueue(label: "strata.tests.calling-task")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async {
                Thread.current.threadDictionary[Self.mark] = true
                defer { Thread.current.threadDictionary[Self.mark] = nil }
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }

        static var isOnCallingTask: Bool { Thread.current.threadDictionary[mark] != nil }
    }

    static func makeDatabase(_ directory: TemporaryDirectory, readers: Int = 5) throws -> Database {
        let database = try Database(
            path: directory.path("app.sqlite"),
            configuration: {
                var configuration = Database.Configuration()
                configuration.maximumReaderCount = readers
                return configuration
            }())
        try database.executeWrite { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
            try db.run("INSERT INTO t(v) VALUES (?), (?), (?)", "a", "b", "c")
        }
        return database
    }

    static func count(_ db: Connection) throws -> Int { try db.query("SELECT count(*) FROM t") ?? -1 }

    @Test func theClosureRunsOnTheCallingTasksThreadOnAReader() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let executor = MarkedExecutor()
        let (inline, queued) = try await withTaskExecutorPreference(executor) {
            #expect(MarkedExecutor.isOnCallingTask)
            let inline = try await database.readOnCallingThread { db in
                (MarkedExecutor.isOnCallingTask, db.readOnly, try Self.count(db))
            }
            let queued = try await database.read { db in (MarkedExecutor.isOnCallingTask, db.readOnly, try Self.count(db)) }
            return (inline, queued)
        }
        #expect(inline == (true, true, 3))
        // The difference the method exists for: `read` goes to the reader's queue.
        #expect(queued == (false, true, 3))
    }

    @Test func aDatabaseForNewCodeReadsOneSnapshot() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let (inTransaction, before, after) = try await database.readOnCallingThread { db in
            let before = try Self.count(db)
            // Committed by the writer while this read holds its snapshot.
            try database.executeWrite { try $0.run("INSERT INTO t(v) VALUES (?)", "d") }
            return (db.isInTransaction, before, try Self.count(db))
        }
        #expect(inTransaction)
        #expect(before == 3 && after == 3)
        // The snapshot ended with the call: the next read sees the row.
        #expect(try await database.readOnCallingThread { (try Self.count($0), $0.isInTransaction) } == (4, true))
        #expect(try database.executeRead { $0.isInTransaction } == false)
    }

    /// Issue 83: a `Database` behaves the same whatever opened it, so SQift's opener reads in a
    /// snapshot too; only SQift's own `executeRead` stays bare.
    @Test func sqiftsDatabaseReadsInASnapshotToo() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("sqift.sqlite")))
        try database.executeWrite { db in
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a')")
        }
        #expect(try await database.readOnCallingThread { ($0.isInTransaction, try Self.count($0)) } == (true, 1))
        #expect(try database.executeRead { $0.isInTransaction } == false)
    }

    @Test func anInMemoryDatabaseReadsOnItsWriter() async throws {
        let database = try Database(storageLocation: .inMemory)
        try await database.writeWithoutTransaction { try $0.execute("CREATE TABLE t(v); INSERT INTO t VALUES (7)") }
        #expect(try await database.readOnCallingThread { ($0.readOnly, try $0.query("SELECT v FROM t") as Int?) } == (false, 7))
    }

    @Test func aCallWaitsForAFreeReaderWithoutHoldingIt() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory, readers: 1)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await database.read { db -> Int in
                holding.signal()
                release.wait()
                return try Self.count(db)
            }
        }
        await withCheckedContinuation { continuation in
            // A thread of its own: on Linux the global queue is the cooperative pool's, whose threads
            // (two on two cores) a semaphore wait would hold.
            Thread.detachNewThread {
                holding.wait(); continuation.resume()
            }
        }
        let finished = Locked(false)
        let waiter = Task {
            let value = try await database.readOnCallingThread { try Self.count($0) }
            finished.withLock { $0 = true }
            return value
        }
        try await Task.sleep(for: .milliseconds(200))
        // The only reader is held: the call is still waiting for it.
        #expect(finished.current == false)
        release.signal()
        #expect(try await holder.value == 3)
        #expect(try await waiter.value == 3)
        #expect(database.readerConnectionPool.maximumConnectionCount == 1)
    }

    @Test func aThrowingClosureRethrowsAndGivesTheReaderBack() async throws {
        struct Refused: Error, Equatable {}
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory, readers: 1)
        await #expect(throws: Refused.self) {
            try await database.readOnCallingThread { db -> Int in
                _ = try Self.count(db)
                throw Refused()
            }
        }
        await #expect(throws: SQLiteError.self) {
            try await database.readOnCallingThread { try $0.query("SELECT nope FROM t") as Int? }
        }
        // The one reader came back, out of its transaction.
        #expect(try await database.readOnCallingThread { try Self.count($0) } == 3)
        #expect(try database.executeRead { $0.isInTransaction } == false)
    }

    @Test func aCancelledTaskDoesNotRunTheClosure() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let ran = Locked(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await database.readOnCallingThread { db in
                ran.withLock { $0 = true }
                return try Self.count(db)
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.current == false)
        #expect(try await database.readOnCallingThread { try Self.count($0) } == 3)
    }

    @Test func cancellingInterruptsTheStatementRunningOnTheCallersThread() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory, readers: 1)
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE x < 0"
        let started = DispatchSemaphore(value: 0)
        let task = Task {
            try await database.readOnCallingThread { db -> Int? in
                started.signal()
                return try db.query(endless)
            }
        }
        // The statement holds the task's thread, so the cancel comes from a thread of its own.
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                started.wait()
                Thread.sleep(forTimeInterval: 0.1)
                task.cancel()
                continuation.resume()
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await database.readOnCallingThread { try Self.count($0) } == 3)
    }

    @Test func aClosedDatabaseRefusesTheCall() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        try await database.close()
        await #expect(throws: DatabaseError.closed) { try await database.readOnCallingThread { try Self.count($0) } }
    }

    @Test func theCallIsReportedAsAReadOnAReader() async throws {
        final class Recorder: DatabaseEventHandler {
            let works = Locked<[(DatabaseWork.Kind, Bool, Bool)]>([])
            let statements = Locked<[String]>([])
            func workDidStart(_ work: DatabaseWork) { works.withLock { $0.append((work.kind, work.connection.readOnly, true)) } }
            func workDidEnd(_ work: DatabaseWork, error: (any Error)?) { works.withLock { $0.append((work.kind, work.connection.readOnly, false)) } }
            func statementDidFinish(_ event: DatabaseStatementEvent) { statements.withLock { $0.append(event.sql) } }
        }
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let recorder = Recorder()
        database.setEventHandler(recorder)
        #expect(try await database.readOnCallingThread { try Self.count($0) } == 3)
        let works = recorder.works.current
        #expect(works.count == 2)
        #expect(works.allSatisfy { $0.0 == .read && $0.1 })
        #expect(works.map(\.2) == [true, false])
        #expect(recorder.statements.current.contains("SELECT count(*) FROM t"))
    }
}
