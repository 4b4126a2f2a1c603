// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import InMemoryTracing
import Strata
import StrataServer
import Testing
import Tracing

@Suite struct TracingTests {
    @Test func aTransactionAndItsStatementsAreChildrenOfTheTasksSpan() async throws {
        let (test, tracer) = try TestDatabase.traced()
        defer { test.remove() }

        try await tracer.withSpan("request") { _ in
            try await test.database.writeInTransaction { connection in
                try connection.run("INSERT INTO items(name) VALUES(?)", "private")
            }
        }

        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let transaction = try #require(spans.first { $0.operationName == "sqlite.transaction" })
        #expect(transaction.parentSpanID == request.spanID)
        #expect(transaction.traceID == request.traceID)
        #expect(transaction.attributes.get("db.system") == .string("sqlite"))
        #expect(transaction.attributes.get("db.name") == .string("app.sqlite"))

        let statements = spans.filter { $0.parentSpanID == transaction.spanID }
        #expect(statements.map(\.operationName) == ["BEGIN app.sqlite", "INSERT app.sqlite", "COMMIT app.sqlite"])
        let insert = try #require(statements.first { $0.operationName == "INSERT app.sqlite" })
        #expect(insert.kind == .client)
        #expect(insert.attributes.get("db.system") == .string("sqlite"))
        #expect(insert.attributes.get("db.operation") == .string("INSERT"))
        #expect(insert.attributes.get("db.name") == .string("app.sqlite"))
        #expect(insert.attributes.get("db.statement") == .string("INSERT INTO items(name) VALUES(?)"))
        #expect(!"\(spans.map(\.attributes))".contains("private"))
        #expect(insert.errors.isEmpty)
    }

    @Test func oneSpanPerReadAndStatement() async throws {
        let (test, tracer) = try TestDatabase.traced()
        defer { test.remove() }

        _ = try await test.database.read { connection in
            _ = try connection.query("SELECT count(*) FROM items") as Int?
            _ = try connection.query("SELECT max(id) FROM items") as Int?
        }

        let spans = tracer.finishedSpans
        let read = try #require(spans.first { $0.operationName == "sqlite.read" })
        #expect(read.parentSpanID == nil)
        // A read is one snapshot whatever opened the database: BEGIN and COMMIT around the two.
        let children = spans.filter { $0.parentSpanID == read.spanID }
        #expect(children.map(\.operationName) == ["BEGIN app.sqlite", "SELECT app.sqlite", "SELECT app.sqlite", "COMMIT app.sqlite"])
        #expect(spans.count == 5)
    }

    @Test func failuresAreRecordedOnTheStatementAndTheCall() async throws {
        let (test, tracer) = try TestDatabase.traced()
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('a')") }
        tracer.clearFinishedSpans()
        await #expect(throws: SQLiteError.self) {
            try await test.database.writeWithoutTransaction { try $0.run("INSERT INTO items(name) VALUES('a')") }
        }
        await #expect(throws: SQLiteError.self) {
            try await test.database.writeWithoutTransaction { try $0.run("INSERT INTO nowhere VALUES(1)") }
        }

        let spans = tracer.finishedSpans
        let failedRun = try #require(spans.first { $0.attributes.get("db.statement") == .string("INSERT INTO items(name) VALUES('a')") })
        #expect(failedRun.errors.count == 1)
        #expect(failedRun.status?.code == .error)
        let failedPrepare = try #require(spans.first { $0.attributes.get("db.statement") == .string("INSERT INTO nowhere VALUES(1)") })
        #expect(failedPrepare.errors.count == 1)
        let writes = spans.filter { $0.operationName == "sqlite.write" }
        #expect(writes.count == 2)
        #expect(writes.allSatisfy { $0.errors.count == 1 && $0.status?.code == .error })
        // Each failed statement made one span only.
        #expect(spans.count == 4)
    }

    @Test func tracingCanBeTurnedOff() async throws {
        let (test, backends) = try TestDatabase.instrumented(tracing: false)
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('a')") }

        #expect(backends.tracer.finishedSpans.isEmpty)
        #expect(backends.tracer.activeSpans.isEmpty)
        #expect(
            try backends.metrics.expectCounter(
                "strata_statements_total", [("database", "app.sqlite"), ("operation", "INSERT")]
            ).totalValue == 1)
    }
}
#endif
