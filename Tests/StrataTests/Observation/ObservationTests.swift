import Foundation
import StrataSQift
import Testing
import StrataTestSupport
#if canImport(SQLite3)
import SQLite3
#endif
import Strata
@testable import StrataCore

/// Collects an observation's values from a task of its own.
final class ObservedValues<Value: Sendable>: Sendable {
    private let received = AwaitedValues<Value>()
    private let failure = Locked<(any Error)?>(nil)
    let task: Task<Void, Never>

    init(_ observation: DatabaseObservation<Value>) {
        let received = self.received, failure = self.failure
        task = Task {
            do {
                for try await value in observation { received.append(value) }
            } catch {
                failure.withLock { $0 = error }
            }
            received.finish()
        }
    }

    var values: [Value] { received.values }
    var error: (any Error)? { failure.current }

    /// Waits until `condition` holds for the values so far, woken by each value; fails when the
    /// observation ends without it, or when it still does not hold after `seconds`.
    ///
    /// The bound is for a value that never comes, not a measure of speed: beside every other suite
    /// on a loaded two-core machine the cooperative pool, which runs this task and the one that
    /// collects the values, can be busy for tens of seconds, and a late value still counts.
    func wait(seconds: Double = 180, sourceLocation: SourceLocation = #_sourceLocation, until condition: ([Value]) -> Bool) async {
        if await received.wait(atMost: .seconds(seconds), until: condition) { return }
        let ending = received.isFinished ? "the observation ended" : "timed out after \(seconds) s"
        Issue.record("\(ending); values so far: \(values.suffix(5)), error: \(String(describing: error))", sourceLocation: sourceLocation)
    }

    /// Starts collecting `observation`'s values and waits until `condition` holds for them (as a
    /// rule, for the first value, which is the current one).
    static func started(
        _ observation: DatabaseObservation<Value>, sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([Value]) -> Bool
    ) async -> ObservedValues {
        let observed = ObservedValues(observation)
        await observed.wait(sourceLocation: sourceLocation, until: condition)
        return observed
    }

    /// Waits until `condition` holds for the values so far (``wait(seconds:sourceLocation:until:)``),
    /// then stops observing: a test's last look at what it observed.
    func waitThenCancel(sourceLocation: SourceLocation = #_sourceLocation, until condition: ([Value]) -> Bool) async {
        await wait(sourceLocation: sourceLocation, until: condition)
        cancel()
    }

    /// Waits long enough for a value that is not coming to have come.
    func settle() async { try? await Task.sleep(for: .milliseconds(300)) }

    func cancel() { task.cancel() }
}

/// A value that is not `Equatable`, so every fetch is delivered.
struct Fetched: Sendable {
    let numbers: [Int]
}

@Suite struct ObservationTests {
    static func makeDatabase(_ directory: TemporaryDirectory, maximumReaderCount: Int = 5) throws -> Database {
        let database = try Database(storageLocation: .onDisk(directory.path("observed.sqlite")), maximumReaderCount: maximumReaderCount)
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL") }
        return database
    }

    /// An observed database (``makeDatabase(_:maximumReaderCount:)``) whose first write runs `schema`.
    static func makeDatabase(_ directory: TemporaryDirectory, schema: String) async throws -> Database {
        let database = try makeDatabase(directory)
        try await database.write { try $0.execute(schema) }
        return database
    }

    @Test func firstValueIsCurrentThenOneThousandCommitsArriveInOrder() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t(v) VALUES(0)")
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT max(v) FROM t") as Int? ?? -1 }) { $0.first == 0 }
        for value in 1...1_000 {
            try await database.write { try $0.run("INSERT INTO t(v) VALUES(?)", value) }
        }
        await observed.wait { $0.last == 1_000 }
        let values = observed.values
        #expect(values.first == 0)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "values come in commit order")
        observed.cancel()
    }

    /// The first observer starts while a long write holds the writer: its first value does not
    /// wait for the write (it comes from a reader), and the write's commit still arrives.
    @Test func aLongWriteDoesNotDelayTheFirstValue() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        try database.executeWrite { try $0.execute("CREATE TABLE t(v INTEGER)") }
        let inserted = Locked(false), release = Locked(false)
        let writing = Task {
            try await database.writeInTransaction { connection in
                try connection.run("INSERT INTO t VALUES(1)")
                inserted.withLock { $0 = true }
                // Held until the observer has its first value (at most 150 s, a bound for a first
                // value that never comes: the pool that runs the observer can be busy for long).
                let deadline = Date().addingTimeInterval(150)
                while !release.current, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            }
        }
        while !inserted.current { try await Task.sleep(for: .milliseconds(5)) }
        let observed = ObservedValues(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 })
        await observed.wait(seconds: 120) { !$0.isEmpty }
        #expect(observed.values == [0], "the first value came from a reader while the write was open")
        release.withLock { $0 = true }
        try await writing.value
        await observed.waitThenCancel { $0.last == 1 }
    }

    @Test func commitsOutsideTheRegionYieldNothing() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(
            directory, schema: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER); CREATE TABLE other(x); INSERT INTO t VALUES(1, 1, 1)")
        let observed = await ObservedValues.started(database.observe { Fetched(numbers: try $0.query("SELECT a FROM t ORDER BY id")) }) { $0.count == 1 }
        try await database.write { try $0.run("INSERT INTO other VALUES(1)") }
        try await database.write { try $0.run("UPDATE t SET b = b + 1") }
        await observed.settle()
        #expect(observed.values.count == 1, "another table and an unread column yield nothing")
        try await database.write { try $0.run("UPDATE t SET a = 5") }
        await observed.wait { $0.last?.numbers == [5] }
        #expect(observed.values.count == 2)
        observed.cancel()
    }

    /// Each kind of write yields a value: rowid and WITHOUT ROWID tables, the truncate
    /// optimisation, triggers, foreign-key actions and schema changes.
    @Test(arguments: [
        "INSERT INTO t(v) VALUES(7)",
        "UPDATE t SET v = 9",
        "DELETE FROM t WHERE id = 1",
        "DELETE FROM t",
        "INSERT INTO w VALUES('k2', 2)",
        "UPDATE w SET v = 3",
        "DELETE FROM w",
        "INSERT INTO source VALUES(1)",
        "DELETE FROM parent",
        "UPDATE parent SET id = 10",
        "ALTER TABLE t ADD COLUMN extra",
        "CREATE TABLE brand_new(x)"
    ])
    func everyKindOfChangeYieldsAValue(sql: String) async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        // Without a transaction: inside one, SQLite ignores PRAGMA foreign_keys.
        try await database.writeWithoutTransaction {
            try $0.execute(
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER);
                INSERT INTO t VALUES(1, 1);
                CREATE TABLE w(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
                INSERT INTO w VALUES('k1', 1);
                CREATE TABLE source(x);
                CREATE TABLE log(x);
                CREATE TRIGGER logged AFTER INSERT ON source BEGIN INSERT INTO log VALUES(new.x); END;
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE) WITHOUT ROWID;
                INSERT INTO parent VALUES(1);
                INSERT INTO child VALUES(1, 1);
                """)
        }
        // Each observation reads one table; the statement under test must reach it.
        let observedSQL: String
        switch sql {
        case let text where text.contains(" w"): observedSQL = "SELECT k || v FROM w"
        case let text where text.contains("source"): observedSQL = "SELECT count(*) FROM log"
        case let text where text.contains("parent"): observedSQL = "SELECT coalesce(sum(parent), 0) FROM child"
        case let text where text.contains("brand_new"): observedSQL = "SELECT count(*) FROM sqlite_master"
        default: observedSQL = "SELECT * FROM t"
        }
        let observed = ObservedValues(
            database.observe { connection in
                Fetched(numbers: [try connection.query("SELECT count(*) FROM (\(observedSQL))") as Int? ?? 0])
            })
        await observed.wait { $0.count == 1 }
        try await database.write { try $0.execute(sql) }
        await observed.waitThenCancel { $0.count == 2 }
    }

    @Test func writesThroughCachedStatementsAndTheDSLAreSeen() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT)")
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM people") as Int? ?? 0 }) { $0 == [0] }
        // The raw-handle path (no `Statement`) that records' and Squeal's inserts take.
        let insert = StatementCacheKey(reusing: "INSERT INTO people(name) VALUES(?)")
        try await database.write {
            try $0.runCachedStatement(insert) { handle in
                let code = try "Ann".bind(to: handle, at: 1)
                return code == SQLITE_OK ? nil : (code, 1)
            }
        }
        await observed.wait { $0.last == 1 }
        try await database.write { try $0.run("DELETE FROM people") }
        await observed.wait { $0.last == 0 }
        // The DSL's migration creates a table and adds a row to the observed one.
        let schema = Schema(identifier: "people") { schema in
            schema.version(1) { v1 in
                v1.createTable("emails") { emails in
                    emails.primaryKey("id"); emails.column("address", type: .Text)
                }
                v1.execute { db in try db.run("INSERT INTO people(name) VALUES(?)", "Bo") }
            }
        }
        try database.executeWrite { _ = try schema.migrate($0) }
        await observed.waitThenCancel { $0.last == 1 }
    }

    @Test func rolledBackTransactionsYieldNothing() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE t(v)")
        let observed = await ObservedValues.started(database.observe { Fetched(numbers: try $0.query("SELECT v FROM t")) }) { $0.count == 1 }
        try await database.writeWithoutTransaction { try $0.execute("BEGIN; INSERT INTO t VALUES(1); ROLLBACK") }
        await observed.settle()
        #expect(observed.values.count == 1)
        observed.cancel()
    }

    @Test func equatableValuesAreDeduplicated() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE t(v INTEGER)")
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t WHERE v > 100") as Int? ?? 0 }) { $0 == [0] }
        for value in 1...20 { try await database.write { try $0.run("INSERT INTO t VALUES(?)", value) } }
        try await database.write { try $0.run("INSERT INTO t VALUES(500)") }
        await observed.wait { $0.last == 1 }
        #expect(observed.values == [0, 1])
        observed.cancel()
    }

    @Test func oneHundredObserversShareFiveReaders() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory, maximumReaderCount: 5)
        try await database.write { try $0.execute("CREATE TABLE t(v INTEGER)") }
        let observers = (0..<100).map { _ in ObservedValues(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) }
        for observer in observers { await observer.wait { $0.first == 0 } }
        for value in 1...10 { try await database.write { try $0.run("INSERT INTO t VALUES(?)", value) } }
        for observer in observers { await observer.wait { $0.last == 10 } }
        #expect(database.activeObservationCount == 100)
        for observer in observers { observer.cancel() }
        for observer in observers { await observer.task.value }
        #expect(database.activeObservationCount == 0)
    }

    @Test func cancellingFreesTheObserver() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE t(v INTEGER)")
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        #expect(database.activeObservationCount == 1)
        observed.cancel()
        await observed.task.value
        #expect(database.activeObservationCount == 0)
        #expect(observed.error == nil, "cancelling ends the sequence without an error")

        let received = Locked<[Int]>([])
        let token = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { result in
            if case .success(let count) = result { received.withLock { $0.append(count) } }
        }
        let deadline = Date().addingTimeInterval(60)
        while received.current.isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(received.current == [0])
        #expect(database.activeObservationCount == 1)
        token.cancel()
        #expect(token.isCancelled)
        while database.activeObservationCount > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(database.activeObservationCount == 0)
        try await database.write { try $0.run("INSERT INTO t VALUES(1)") }
        try await Task.sleep(for: .milliseconds(200))
        #expect(received.current == [0], "nothing arrives after cancel()")
    }

    @Test func droppingTheTokenCancels() async throws {
        let database = try Database(storageLocation: .inMemory)
        try await database.write { try $0.execute("CREATE TABLE t(v INTEGER)") }
        let received = Locked(0)
        var token: ObservationToken? = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { _ in
            received.withLock { $0 += 1 }
        }
        let deadline = Date().addingTimeInterval(60)
        while received.current == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(token != nil)
        token = nil
        // Its own bound: on a loaded machine the first delivery alone can take seconds.
        let cancelDeadline = Date().addingTimeInterval(60)
        while database.activeObservationCount > 0, Date() < cancelDeadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(database.activeObservationCount == 0)
    }

    @Test func theFetchErrorIsThrownThenTheSequenceEnds() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE t(v INTEGER)")
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        try await database.write { try $0.execute("DROP TABLE t") }
        await observed.task.value
        let error = try #require(observed.error as? SQLiteError)
        #expect(error.message.contains("no such table"))
        #expect(database.activeObservationCount == 0)
    }

    @Test func aConnectionQueueObservesItsOwnCommits() async throws {
        let queue = ConnectionQueue(connection: try Connection(storageLocation: .inMemory))
        try queue.execute { try $0.execute("CREATE TABLE t(v INTEGER)") }
        let observed = await ObservedValues.started(queue.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        try await queue.perform { try $0.run("INSERT INTO t VALUES(1)") }
        try await queue.perform { try $0.run("INSERT INTO t VALUES(2)") }
        await observed.waitThenCancel { $0.last == 2 }
        await observed.task.value
        #expect(queue.activeObservationCount == 0)
    }

    @Test func anInMemoryDatabaseObservesOnItsWriter() async throws {
        let database = try Database(storageLocation: .inMemory)
        try await database.write { try $0.execute("CREATE TABLE t(v INTEGER)") }
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        try await database.write { try $0.run("INSERT INTO t VALUES(1)") }
        await observed.waitThenCancel { $0.last == 1 }
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
    @Test func anotherProcessInsertIsSeenByThePoll() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let database = try Self.makeDatabase(directory)
        _ = database
        let shared = try Database(path: path)
        try shared.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(v INTEGER)") }
        let observed = await ObservedValues.started(shared.observe(externalChanges: .milliseconds(100)) { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 })
        { $0 == [0] }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('INSERT INTO t VALUES(1)'); c.commit()", path]
        // Waited for on a thread of its own: python's start on a loaded machine takes seconds,
        // which would hold one of the cooperative pool's threads (two on two cores).
        try await onOwnThread {
            try process.run()
            process.waitUntilExit()
        }
        #expect(process.terminationStatus == 0)
        // Only the poll can bring this value: no write of this process follows the first fetch.
        // Not timed: on a quiet machine it comes in two intervals plus a fetch (0.35 s), but
        // beside every other suite on a loaded two-core machine the task that collects it waited
        // over 30 s for a thread of the cooperative pool. The observe-latency benchmark measures
        // the latency.
        await observed.waitThenCancel { $0.last == 1 }
    }
    #endif

    @Test func aCancelledObservationFetchEndsTheObservation() async throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE x < 0"
        let observed = ObservedValues(database.observe { try $0.query(endless) as Int? ?? 0 })
        try await Task.sleep(for: .milliseconds(300))
        let cancelled = ContinuousClock.now
        observed.cancel()
        await observed.task.value
        #expect(ContinuousClock.now - cancelled < AsyncCancellationTests.promptCancellation)
        #expect(observed.values.isEmpty)
        #expect(database.activeObservationCount == 0)
    }
}
