import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

@Suite struct AsyncDatabaseTests {
    /// Many concurrent async reads, each holding its connection for a while: they run in
    /// parallel on their own connections instead of queueing on the cooperative pool's threads.
    @Test func asyncReadsDoNotHoldCooperativeThreads() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")), drainDelay: 0.2)
        try await database.writeWithoutTransaction { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let running = UsageCounter()
        let results = try await running.concurrentReads(16, of: database, holding: 0.1, "SELECT x FROM t")
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
        try await database.writeWithoutTransaction { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x INTEGER)") }
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
