import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Counts concurrent users of something; records the maximum and any overlap.
final class UsageCounter: Sendable {
    private struct Usage {
        var active: Set<ObjectIdentifier> = []
        var overlaps = 0
        var maximum = 0
    }

    private let usage = Locked(Usage())

    var overlaps: Int { usage.current.overlaps }
    var maximum: Int { usage.current.maximum }

    func enter(_ object: AnyObject) {
        usage.withLock { usage in
            if !usage.active.insert(ObjectIdentifier(object)).inserted { usage.overlaps += 1 }
            usage.maximum = max(usage.maximum, usage.active.count)
        }
    }

    func leave(_ object: AnyObject) { _ = usage.withLock { $0.active.remove(ObjectIdentifier(object)) } }

    /// Runs `count` reads of `database` at once, each counted here while it holds its connection
    /// for `hold` seconds, and returns what `sql` answered in each.
    func concurrentReads(_ count: Int, of database: Database, holding hold: TimeInterval, _ sql: String) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await database.read { connection in
                        self.enter(connection)
                        defer { self.leave(connection) }
                        Thread.sleep(forTimeInterval: hold)
                        return try connection.query(sql) ?? 0
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
    }
}

@Suite struct ConnectionQueueTests {
    @Test func readmeExample() throws {
        let directory = try TemporaryDirectory()
        let queue = try ConnectionQueue(connection: Connection(storageLocation: .onDisk(directory.path("db"))))
        try queue.execute { try createReadmeCarsTable(on: $0) }
        try queue.executeInTransaction { try insertReadmeCars(on: $0) }
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
