// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import StrataSQift
import MetricsTestKit
import Strata
import StrataServer
import Testing

@Suite struct MetricsTests {
    @Test func statementsAreCountedAndTimedByOperation() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        for name in ["a", "b", "c"] {
            try await test.database.write { try $0.run("INSERT INTO items(name) VALUES(?)", name) }
        }
        _ = try await test.database.read { try $0.query("SELECT count(*) FROM items") as Int? }

        let metrics = backends.metrics
        let inserts = try metrics.expectCounter("strata_statements_total", [("database", "app.sqlite"), ("operation", "INSERT")])
        #expect(inserts.totalValue == 3)
        let selects = try metrics.expectCounter("strata_statements_total", [("database", "app.sqlite"), ("operation", "SELECT")])
        #expect(selects.totalValue == 1)
        let durations = try metrics.expectTimer(
            "strata_statement_duration_seconds", [("database", "app.sqlite"), ("operation", "INSERT")]
        )
        #expect(durations.values.count == 3)
        #expect(durations.values.allSatisfy { $0 >= 0 })
        // No label or dimension carries SQL text.
        #expect(!metrics.counters.contains { $0.dimensions.contains { $0.1.contains("items") } })
    }

    /// A connection remembers its recent statements' metrics; instrumenting the database again
    /// sends the same cached statements to the new backend only.
    @Test func aSecondInstrumentationCountsTheSameStatementsInItsOwnBackend() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        let first = Backends(), second = Backends()
        test.database.instrument(first.instrumentation())
        for name in ["a", "b"] {
            try await test.database.write { try $0.run("INSERT INTO items(name) VALUES(?)", name) }
        }
        test.database.instrument(second.instrumentation())
        for name in ["c", "d", "e"] {
            try await test.database.write { try $0.run("INSERT INTO items(name) VALUES(?)", name) }
        }
        let dimensions = [("database", "app.sqlite"), ("operation", "INSERT")]
        #expect(try first.metrics.expectCounter("strata_statements_total", dimensions).totalValue == 2)
        #expect(try second.metrics.expectCounter("strata_statements_total", dimensions).totalValue == 3)
    }

    /// Statements prepared, finalized and prepared again (SQLite may reuse an address for
    /// different SQL) are each counted under their own operation, with their own text logged.
    @Test func statementsPreparedOverAndOverKeepTheirOwnText() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }
        try await test.database.write { connection in
            for round in 0..<20 {
                // Uncached statements: each is finalized before the next is prepared.
                _ = try connection.prepare("INSERT INTO items(name) VALUES('r\(round)')").run()
                _ = try connection.prepare("SELECT count(*) FROM items WHERE name = 'r\(round)'").query() as Int?
                _ = try connection.prepare("DELETE FROM items WHERE name = 'r\(round)'").run()
            }
        }
        for operation in ["INSERT", "DELETE"] {
            let counter = try backends.metrics.expectCounter("strata_statements_total", [("database", "app.sqlite"), ("operation", operation)])
            #expect(counter.totalValue == 20, "\(operation)")
        }
        for round in 0..<20 {
            #expect(backends.entries(for: "DELETE FROM items WHERE name = 'r\(round)'").count == 1)
            #expect(backends.entries(for: "SELECT count(*) FROM items WHERE name = 'r\(round)'").count == 1)
        }
    }

    @Test func errorsAreCountedByResultCode() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('a')") }
        for _ in 0..<2 {
            _ = try? await test.database.write { try $0.run("INSERT INTO items(name) VALUES('a')") }
        }
        _ = try? await test.database.read { try $0.query("SELECT nope FROM items") as Int? }

        let metrics = backends.metrics
        #expect(try metrics.expectCounter("strata_errors_total", [("code", "constraint"), ("database", "app.sqlite")]).totalValue == 2)
        #expect(try metrics.expectCounter("strata_errors_total", [("code", "error"), ("database", "app.sqlite")]).totalValue == 1)
    }

    @Test func readerWaitAndReadersInUse() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        let inUse = try await test.database.read { _ in
            try backends.metrics.expectGauge("strata_readers_in_use", [("database", "app.sqlite")]).lastValue
        }
        #expect(inUse == 1)
        let gauge = try backends.metrics.expectGauge("strata_readers_in_use", [("database", "app.sqlite")])
        #expect(gauge.lastValue == 0)
        let wait = try backends.metrics.expectTimer("strata_reader_wait_seconds", [("database", "app.sqlite")])
        #expect(wait.values.count == 1)

        // Two reads at once on a pool of readers: the gauge reaches 2.
        try await withThrowingTaskGroup(of: Void.self) { group in
            let gate = ReaderGate(count: 2)
            for _ in 0..<2 {
                group.addTask { try await test.database.read { _ in gate.arriveAndWait() } }
            }
            try await group.waitForAll()
        }
        #expect(gauge.values.contains(2))
        #expect(gauge.lastValue == 0)
    }

    @Test func writerWaitIsTimed() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        // The second write is queued behind the first, which holds the writer until released.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        async let first: Void = test.database.write { _ in
            started.signal()
            // Long bounds: other suites can hold the cooperative pool for seconds, and the first
            // write must still hold the writer when the test releases it.
            _ = release.wait(timeout: .now() + 120)
        }
        await Task.detached { _ = started.wait(timeout: .now() + 60) }.value
        async let second: Void = test.database.writeInTransaction { try $0.run("INSERT INTO items(name) VALUES('x')") }
        let limit = ContinuousClock.now + .seconds(60)
        while test.database.runningWorkCount < 2, ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(50))
        release.signal()
        _ = try await (first, second)

        let waits = try backends.metrics.expectTimer("strata_writer_wait_seconds", [("database", "app.sqlite")])
        #expect(waits.values.count == 2)
        #expect(waits.values.max() ?? 0 >= 50_000_000)
    }

    @Test func walSizeIsRecordedAfterEachCheckpoint() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('w')") }
        // Checkpoints cannot run inside the transaction `write` opens (SQLITE_LOCKED).
        _ = try await test.database.writeWithoutTransaction { try $0.checkpoint(mode: .passive) }
        let gauge = try backends.metrics.expectGauge("strata_wal_size_bytes", [("database", "app.sqlite")])
        #expect((gauge.lastValue ?? 0) > 0)
        _ = try await test.database.writeWithoutTransaction { try $0.checkpoint(mode: .truncate) }
        #expect(gauge.lastValue == 0)
        #expect(gauge.values.count == 2)
    }

    @Test func observationFetchesAreCounted() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        var values: [Int] = []
        for try await count in test.database.observe({ try $0.query("SELECT count(*) FROM items") as Int? ?? 0 }) {
            values.append(count)
            if values.count == 2 { break }
            try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('o')") }
        }
        #expect(values == [0, 1])
        let fetches = try backends.metrics.expectCounter("strata_observation_refetches_total", [("database", "app.sqlite")])
        #expect(fetches.totalValue == 2)
    }
}

/// Lets `count` threads through only once all of them arrived (bounded: 5 s).
final class ReaderGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private let count: Int
    init(count: Int) { self.count = count }

    func arriveAndWait() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let limit = Date().addingTimeInterval(60)
        while arrived < count, condition.wait(until: limit) {}
    }
}
#endif
