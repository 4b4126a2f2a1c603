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

@Suite struct BusyCheckpointBackupTests {
    @Test func busyTimeoutEndsInDatabaseIsLocked() throws {
        let files = try TwoConnections(named: "db") {
            try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
            try $0.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(1)")
        }
        let (writer, other) = (files.mine, files.other)
        try other.busyHandler(.timeout(0.2))
        let start = Date()
        let error = sqliteError { try other.execute("INSERT INTO t VALUES(2)") }
        #expect(error?.code == SQLITE_BUSY)
        #expect(error?.message == "database is locked")
        #expect(Date().timeIntervalSince(start) >= 0.15)

        var attempts: [Int32] = []
        try other.busyHandler(
            .custom { count in
                attempts.append(count); return count < 3
            })
        #expect(sqliteError { try other.execute("INSERT INTO t VALUES(2)") }?.code == SQLITE_BUSY)
        #expect(attempts == [0, 1, 2, 3])
        try other.busyHandler(.defaultBehavior)
        #expect(sqliteError { try other.execute("INSERT INTO t VALUES(2)") }?.code == SQLITE_BUSY)
        try writer.execute("COMMIT")
        try other.execute("INSERT INTO t VALUES(2)")
    }

    @Test func readmeCheckpointAndBlockedCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db")
        let connection = try makeConnection(.onDisk(path), executing: "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        try connection.busyHandler(.timeout(1.0))
        let checkpointResult = try connection.checkpoint(mode: .truncate)
        #expect(checkpointResult == Connection.CheckpointResult(logFrames: 0, checkpointedFrames: 0))
        try connection.execute("VACUUM")

        let reader = try makeConnection(.onDisk(path), executing: "BEGIN")
        #expect(try reader.query("SELECT count(*) FROM t") == 1)
        try connection.execute("INSERT INTO t VALUES(2)")
        try connection.busyHandler(.timeout(0.1))
        let blocked = sqliteError { _ = try connection.checkpoint(mode: .truncate) }
        #expect(blocked?.code == SQLITE_BUSY)
        let passive = try connection.checkpoint(mode: .passive)
        #expect(passive.logFrames > 0)
        try reader.execute("COMMIT")
        let done = try connection.checkpoint(attachedDatabaseName: nil, mode: .full)
        #expect(done.logFrames == done.checkpointedFrames)
    }

    func waitForBackup(_ body: (@escaping (Connection.BackupResult) -> Void) throws -> Progress) throws -> (Connection.BackupResult?, Progress) {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Connection.BackupResult?>(nil)
        let progress = try body { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        return (outcome.current, progress)
    }

    @Test func backupToSecondConnectionWhileWritten() throws {
        let directory = try TemporaryDirectory()
        let source = try makeConnection(.onDisk(directory.path("source")), executing: "PRAGMA journal_mode = WAL; CREATE TABLE t(x, payload BLOB)")
        try source.transaction {
            for index in 0..<2000 { try source.run("INSERT INTO t VALUES(?, ?)", index, Data(count: 512)) }
        }
        let writer = try Connection(storageLocation: .onDisk(directory.path("source")))
        let destination = try Connection(storageLocation: .onDisk(directory.path("copy")))
        let queue = DispatchQueue(label: "completion")
        nonisolated(unsafe) let sharedWriter = writer
        let stop = DispatchSemaphore(value: 0)
        let writing = Thread {
            var index = 2000
            while stop.wait(timeout: .now()) == .timedOut {
                try? sharedWriter.run("INSERT INTO t VALUES(?, ?)", index, Data(count: 512))
                index += 1
                // Every write by another connection restarts the backup: leave it room to finish
                // on a loaded machine, where a tight loop starved it past the timeout.
                usleep(1_000)
            }
        }
        writing.start()
        let (result, progress) = try waitForBackup { completion in
            try source.backup(to: destination, pageSize: 10, completionQueue: queue, completion: completion)
        }
        stop.signal()
        #expect(result?.isSuccess == true)
        #expect(progress.totalUnitCount > 0)
        #expect(progress.completedUnitCount == progress.totalUnitCount)
        #expect(try destination.query("PRAGMA integrity_check") == "ok")
        let copied: Int = try destination.query("SELECT count(*) FROM t") ?? 0
        let maxIndex: Int = try destination.query("SELECT max(x) FROM t") ?? -1
        #expect(copied >= 2000 && copied == maxIndex + 1)
    }

    /// A backup's source: an in-memory table of `count` 4 KiB blobs.
    static func blobs(_ count: Int) throws -> Connection {
        let source = try makeConnection(executing: "CREATE TABLE t(payload BLOB)")
        for _ in 0..<count { try source.run("INSERT INTO t VALUES(?)", Data(count: 4096)) }
        return source
    }

    @Test func cancelledBackupLeavesDestinationUsable() throws {
        let source = try Self.blobs(200)
        let destination = try Connection()
        let queue = DispatchQueue(label: "completion")
        let backupQueue = DispatchQueue(label: "backup")
        backupQueue.suspend()
        let (result, _) = try waitForBackup { completion in
            let progress = try source.backup(to: destination, pageSize: 1, backupQueue: backupQueue, completionQueue: queue, completion: completion)
            progress.cancel()
            backupQueue.resume()
            return progress
        }
        #expect(result?.isCancelled == true)
        try destination.execute("CREATE TABLE mine(x); INSERT INTO mine VALUES(1)")
        #expect(try destination.query("SELECT x FROM mine") == 1)
    }

    @Test func pausedBackupWaitsForResume() throws {
        let source = try Self.blobs(50)
        let destination = try Connection()
        let backupQueue = DispatchQueue(label: "backup")
        backupQueue.suspend()
        let (result, progress) = try waitForBackup { completion in
            let progress = try source.backup(
                to: destination, pageSize: 5, backupQueue: backupQueue, completionQueue: DispatchQueue(label: "c"), completion: completion)
            progress.pause()
            backupQueue.resume()
            Thread.sleep(forTimeInterval: 0.1)
            #expect(progress.completedUnitCount == 0)
            progress.resume()
            return progress
        }
        #expect(result?.isSuccess == true)
        #expect(progress.completedUnitCount == progress.totalUnitCount && progress.totalUnitCount > 50)
        #expect(try destination.query("SELECT count(*) FROM t") == 50)
    }

    /// A pause that lands after the copy ended (SQift's pause test races it so) cannot leave
    /// `isPaused` true: nothing is left to pause and no step would ever resume it.
    @Test func aPauseAfterTheCopyEndedLeavesTheBackupUnpaused() throws {
        let source = try makeConnection(executing: "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        let destination = try Connection()
        let (result, progress) = try waitForBackup { completion in
            try source.backup(to: destination, completionQueue: DispatchQueue(label: "c"), completion: completion)
        }
        #expect(result?.isSuccess == true)
        progress.pause()
        #expect(progress.isPaused == false)
        #expect(progress.isFinished)
        // Paused while it runs, it is paused until resumed, and unpaused once the copy has ended.
        let (second, secondProgress) = try waitForBackup { completion in
            let backupQueue = DispatchQueue(label: "b")
            backupQueue.suspend() // the copy cannot end before the pause
            let progress = try source.backup(
                to: destination, pageSize: 1, backupQueue: backupQueue,
                completionQueue: DispatchQueue(label: "c"), completion: completion)
            progress.pause()
            backupQueue.resume()
            Thread.sleep(forTimeInterval: 0.05)
            #expect(progress.isPaused)
            #expect(progress.completedUnitCount == 0)
            progress.resume()
            return progress
        }
        #expect(second?.isSuccess == true)
        #expect(secondProgress.isPaused == false)
    }

    @Test func backupOntoItselfThrows() throws {
        let connection = try Connection()
        let error = sqliteError { try connection.backup(to: connection) { _ in } }
        #expect(error != nil)
        #expect(error?.message.contains("distinct") == true)
        let unknown = sqliteError { try connection.backup(databaseNamed: "nope", to: Connection()) { _ in } }
        #expect(unknown?.message.contains("unknown database") == true)
    }
}
