// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import InMemoryTracing
import Strata
import StrataServer
import Testing
import Tracing

@Suite struct PendingSpanTests {
    /// A statement that fails to prepare right after another finished: the earlier statement's
    /// span (kept open for a failure that might follow) ends, and none stays active.
    @Test func aPrepareFailureAfterAFinishedStatementEndsTheEarlierSpan() async throws {
        let (test, tracer) = try TestDatabase.traced()
        defer { test.remove() }

        // Bare: one call span named sqlite.write (a transaction's call is sqlite.transaction).
        try await test.database.writeWithoutTransaction { connection in
            try connection.run("INSERT INTO items(name) VALUES('ok')")
            #expect(throws: SQLiteError.self) { try connection.run("INSERT INTO nowhere VALUES(1)") }
        }

        #expect(tracer.activeSpans.isEmpty)
        let spans = tracer.finishedSpans
        let succeeded = try #require(spans.first { $0.attributes.get("db.statement") == .string("INSERT INTO items(name) VALUES('ok')") })
        #expect(succeeded.errors.isEmpty)
        let failed = try #require(spans.first { $0.attributes.get("db.statement") == .string("INSERT INTO nowhere VALUES(1)") })
        #expect(failed.errors.count == 1)
        #expect(spans.filter { $0.operationName == "sqlite.write" }.count == 1)
    }
}
#endif
