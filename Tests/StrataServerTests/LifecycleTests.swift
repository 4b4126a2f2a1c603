// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import StrataSQift
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Strata
import StrataServer
import StrataTestSupport
import Testing

@Suite struct LifecycleTests {
    private static let quietLogger = Logger(label: "lifecycle-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A service group running only `database`'s service (quiet), started; trigger its shutdown
    /// and wait for the task.
    private static func runningGroup(
        _ database: Database, shutdownDeadline: Duration = DatabaseService.defaultShutdownDeadline
    ) -> (group: ServiceGroup, running: Task<Void, any Error>) {
        let group = ServiceGroup(
            services: [DatabaseService(database, shutdownDeadline: shutdownDeadline, logger: quietLogger)], logger: quietLogger)
        return (group, Task { try await group.run() })
    }

    private static func count(at path: String) throws -> Int? {
        let connection = try Connection(storageLocation: .onDisk(path))
        return try connection.query("SELECT count(*) FROM items")
    }

    @Test func gracefulShutdownFinishesRunningWorkRefusesNewWorkAndTruncatesTheWAL() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        let database = test.database
        let (group, running) = Self.runningGroup(database, shutdownDeadline: .seconds(30))

        // The transaction holds on until the test has seen new work refused.
        let release = DispatchSemaphore(value: 0)
        let transaction = Task {
            try await database.writeInTransaction { connection in
                try connection.run("INSERT INTO items(name) VALUES('first')")
                _ = release.wait(timeout: .now() + 120)
                try connection.run("INSERT INTO items(name) VALUES('second')")
            }
        }
        try await expectEventually("the database runs the work") { database.runningWorkCount == 1 }
        await group.triggerGracefulShutdown()

        // New work is refused while the transaction still runs.
        try await expectEventually("reads are refused as the database shuts down") {
            do {
                _ = try await database.read { try $0.query("SELECT count(*) FROM items") as Int? }
                return false
            } catch let error as DatabaseShutdownError {
                return error.database == "app.sqlite"
            } catch {
                return false
            }
        }
        #expect(database.runningWorkCount == 1)
        release.signal()

        try await transaction.value
        try await running.value
        #expect(test.walSize == 0)
        #expect(try Self.count(at: test.path) == 2)
        await #expect(throws: DatabaseShutdownError.self) {
            try await database.write { try $0.run("INSERT INTO items(name) VALUES('late')") }
        }
        #expect(throws: DatabaseShutdownError.self) { try database.executeRead { _ in 1 } }
    }

    @Test func theShutdownsOwnQuestionsStayOutOfTheUsersLogs() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }
        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('kept')") }
        let (group, running) = Self.runningGroup(test.database)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(test.walSize == 0)
        // The journal-mode check behind the checkpoint is Strata's bookkeeping, not the program's.
        #expect(backends.entries(for: "PRAGMA journal_mode").isEmpty)
        #expect(backends.entries(for: "INSERT INTO items(name) VALUES('kept')").count == 1)
    }

    @Test func cancellationInterruptsWhatStillRuns() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        let database = test.database
        let (group, running) = Self.runningGroup(database, shutdownDeadline: .seconds(60))

        // Never ends by itself (cancelling its task interrupts it, should the shutdown not).
        let endless = Task {
            try await database.read { connection in
                try connection.query(
                    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"
                ) as Int?
            }
        }
        defer { endless.cancel() }
        try await expectEventually("the database runs the work") { database.runningWorkCount == 1 }
        await group.triggerGracefulShutdown()
        try await Task.sleep(for: .milliseconds(100))
        #expect(database.runningWorkCount == 1) // the deadline is far: the shutdown waits

        running.cancel() // the second signal
        let result = await endless.result
        #expect(throws: SQLiteError.self) { try result.get() }
        if case .failure(let error as SQLiteError) = result { #expect(error.resultCode == .interrupt) }
        _ = await running.result
        #expect(database.runningWorkCount == 0)
    }

    @Test func aDeadlineInterruptsWhatOutlivesIt() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        let database = test.database

        // Made before the work starts: calls are counted from then on.
        let service = DatabaseService(database, shutdownDeadline: .milliseconds(50), logger: Self.quietLogger)
        try await testGracefulShutdown { trigger in
            let endless = Task {
                try await database.read { connection in
                    try connection.query(
                        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"
                    ) as Int?
                }
            }
            defer { endless.cancel() } // bounded even if the shutdown failed to interrupt it
            try await expectEventually("the database runs the work") { database.runningWorkCount == 1 }
            trigger.triggerGracefulShutdown()
            try await service.run()
            await #expect(throws: SQLiteError.self) { try await endless.value }
        }
    }

    @Test func theDatabaseIsAServiceItself() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('kept')") }
        #expect((test.walSize ?? 0) > 0)

        try await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            try await test.database.run()
        }
        #expect(test.walSize == 0)
        #expect(try Self.count(at: test.path) == 1)
        #expect(throws: DatabaseShutdownError.self) { try test.database.executeWrite { _ in 1 } }
    }

    @Test func underLitestreamTheWALIsLeftInPlace() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        // Litestream's lock table says a replicator reads this WAL.
        try await test.database.write { connection in
            try connection.execute("CREATE TABLE _litestream_lock(id INTEGER)")
            try connection.run("INSERT INTO items(name) VALUES('kept')")
        }

        try await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            try await DatabaseService(test.database, logger: Self.quietLogger).run()
        }
        #expect((test.walSize ?? 0) > 0)
        #expect(try Self.count(at: test.path) == 1)
    }
}
#endif
