import Foundation
import Testing
import StrataSqueal

/// Squeal's `DatabasePool` (its connections are Squeal's `Database`, Strata's `Connection`), on a
/// file database in WAL mode.
@Suite struct DatabasePoolTests {
    /// Records delegate calls (the pool serializes them; the lock guards reads from the test).
    final class Recorder: DatabasePoolDelegate {
        private let lock = NSLock()
        private var events: [String] = []
        var failNextOpen = false

        var log: [String] { lock.withLock { events } }

        func databaseOpened(_ database: Connection) throws {
            let fail = lock.withLock { () -> Bool in
                events.append("opened")
                defer { failNextOpen = false }
                return failNextOpen
            }
            if fail { throw SQLiteError(code: 1, message: "delegate refused") }
            try database.execute("PRAGMA journal_mode = WAL")
        }

        func databaseClosed(_ database: Connection) {
            lock.withLock { events.append("closed") }
        }
    }

    func makePath() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("pool.sqlite").path)
    }

    @Test func dequeueReusesAndDelegateHearsOpenAndClose() throws {
        let (directory, path) = try makePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = Recorder()
        let pool = DatabasePool(databasePath: path, delegate: recorder)
        #expect(pool.databasePath == path)

        let first = try pool.dequeueDatabase()
        try first.createTable("contacts", definitions: ["name TEXT"])
        try first.insertInto("contacts", values: ["name": "Amelia"])
        let second = try pool.dequeueDatabase()
        #expect(first !== second)
        #expect(try second.countFrom("contacts") == 1)
        #expect(pool.activeDatabaseCount == 2)

        pool.enqueueDatabase(first)
        #expect(try pool.dequeueDatabase() === first)
        pool.enqueueDatabase(first)
        pool.enqueueDatabase(second)
        #expect(pool.idleDatabaseCount == 2 && pool.activeDatabaseCount == 0)
        #expect(recorder.log == ["opened", "opened"])

        pool.removeDatabase(second)
        #expect(pool.idleDatabaseCount == 1)
        pool.drain()
        #expect(pool.idleDatabaseCount == 0)
        #expect(recorder.log == ["opened", "opened", "closed", "closed"])
        // A connection the pool no longer tracks is ignored.
        pool.enqueueDatabase(second)
        #expect(pool.idleDatabaseCount == 0)
    }

    @Test func delegateErrorDiscardsTheConnection() throws {
        let (directory, path) = try makePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = Recorder()
        recorder.failNextOpen = true
        let pool = DatabasePool(databasePath: path, delegate: recorder)
        #expect(throws: SQLiteError.self) { _ = try pool.dequeueDatabase() }
        #expect(pool.activeDatabaseCount == 0)
        _ = try pool.dequeueDatabase()
        #expect(pool.activeDatabaseCount == 1)
    }

    @Test func openTransactionsAreRolledBackOnEnqueue() throws {
        let (directory, path) = try makePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = DatabasePool(databasePath: path)
        let db = try pool.dequeueDatabase()
        try db.createTable("t", definitions: ["x"])
        try db.beginTransaction()
        try db.insertInto("t", values: ["x": 1])
        pool.enqueueDatabase(db)
        let again = try pool.dequeueDatabase()
        #expect(!again.isInTransaction)
        #expect(try again.countFrom("t") == 0)
    }

    @Test func statementsLeftRunningAreResetOnEnqueue() throws {
        let (directory, path) = try makePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = DatabasePool(databasePath: path, delegate: Recorder())
        let db = try pool.dequeueDatabase()
        try db.createTable("t", definitions: ["x"])
        try db.insertInto("t", values: ["x": 1])
        let reading = try db.prepare("SELECT x FROM t")
        #expect(try reading.next())
        pool.enqueueDatabase(db)
        let writer = try Connection(path: path)
        try writer.insertInto("t", values: ["x": 2])
        let again = try pool.dequeueDatabase()
        #expect(again === db)
        // A statement left running would have kept the old snapshot.
        #expect(try again.countFrom("t") == 2)
        withExtendedLifetime(reading) {}
    }

    @Test func threadsShareThePool() async throws {
        let (directory, path) = try makePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = DatabasePool(databasePath: path, delegate: Recorder())
        let setup = try pool.dequeueDatabase()
        try setup.createTable("t", definitions: ["x INTEGER"])
        try setup.execute("PRAGMA busy_timeout = 5000")
        pool.enqueueDatabase(setup)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for index in 0..<25 {
                        let db = try pool.dequeueDatabase()
                        defer { pool.enqueueDatabase(db) }
                        try db.execute("PRAGMA busy_timeout = 5000")
                        try db.insertInto("t", values: ["x": worker * 100 + index])
                    }
                }
            }
            try await group.waitForAll()
        }
        let db = try pool.dequeueDatabase()
        #expect(try db.countFrom("t") == 100)
        #expect(pool.activeDatabaseCount == 1)
        #expect(pool.idleDatabaseCount <= 3)
    }
}
