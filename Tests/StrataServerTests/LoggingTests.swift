// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import StrataSQift
import Logging
import Strata
import StrataServer
import Testing

@Suite struct LoggingTests {
    @Test func statementsAreLoggedAtDebugWithTheirSQLAndNoValues() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES(?)", "secret-name") }

        let entries = backends.entries(for: "INSERT INTO items(name) VALUES(?)")
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.level == .debug)
        #expect(entry.metadata["db.operation"] == "INSERT")
        #expect(entry.metadata["db.name"] == "app.sqlite")
        #expect(entry.metadata["db.statement.values"] == nil)
        // The bound value appears nowhere in the logs.
        #expect(!backends.logs.entries.contains { "\($0.metadata)".contains("secret-name") })
    }

    @Test func boundValuesAreLoggedWhenAsked() async throws {
        let (test, backends) = try TestDatabase.instrumented(logStatementValues: true)
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES(?)", "shown") }

        let entry = try #require(backends.entries(for: "INSERT INTO items(name) VALUES(?)").first)
        #expect(entry.metadata["db.statement.values"] == "INSERT INTO items(name) VALUES('shown')")
    }

    @Test func slowStatementsAreLoggedAtWarning() async throws {
        let (test, backends) = try TestDatabase.instrumented(slowStatementThreshold: .zero)
        defer { test.remove() }

        _ = try await test.database.read { try $0.query("SELECT count(*) FROM items") as Int? }

        let entry = try #require(backends.entries(for: "SELECT count(*) FROM items").first)
        #expect(entry.level == .warning)
        #expect(entry.message == "slow SQL statement")
        #expect(entry.metadata["db.duration_ms"] != nil)
    }

    /// The threshold is compared in nanoseconds: one below any duration (however negative, even
    /// past Int64's nanoseconds) makes every statement slow, one above none, as `Duration` says.
    @Test(arguments: [
        (Duration.seconds(Int64.min), true), (.seconds(-10_000_000_000), true), (.nanoseconds(-1), true),
        (.zero, true), (.seconds(Int64.max), false), (.seconds(60), false)
    ])
    func thresholdsAtTheExtremesClassifyAsDurationsCompare(threshold: Duration, slow: Bool) async throws {
        let (test, backends) = try TestDatabase.instrumented(slowStatementThreshold: threshold)
        defer { test.remove() }

        _ = try await test.database.read { try $0.query("SELECT count(*) FROM items") as Int? }

        let entry = try #require(backends.entries(for: "SELECT count(*) FROM items").first)
        #expect(entry.level == (slow ? .warning : .debug), "threshold \(threshold)")
    }

    @Test func failuresCarryTheSQLAndResultCodes() async throws {
        let (test, backends) = try TestDatabase.instrumented()
        defer { test.remove() }

        try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('a')") }
        await #expect(throws: SQLiteError.self) {
            try await test.database.write { try $0.run("INSERT INTO items(name) VALUES('a')") }
        }
        await #expect(throws: SQLiteError.self) {
            try await test.database.read { try $0.query("SELEC 1") as Int? }
        }

        let failures = backends.logs.entries.filter { $0.level == .error }
        #expect(failures.count == 2)
        let constraint = try #require(failures.first)
        #expect(constraint.message == "SQL statement failed")
        #expect(constraint.metadata["db.statement"] == "INSERT INTO items(name) VALUES('a')")
        #expect(constraint.metadata["db.sqlite.code"] == "19")
        #expect(constraint.metadata["db.sqlite.extended_code"] == "2067")
        #expect(constraint.metadata["db.sqlite.result"] == "constraintUnique")
        let syntax = try #require(failures.last)
        #expect(syntax.metadata["db.statement"] == "SELEC 1")
        #expect(syntax.metadata["db.sqlite.code"] == "1")
    }

    @Test func aConnectionCanBeInstrumentedAlone() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let backends = Backends()
        connection.instrument(backends.instrumentation())
        // The user's own trace keeps working beside the instrumentation.
        let traced = TraceLines()
        connection.trace { traced.append($0) }

        try connection.execute("CREATE TABLE t(x)")
        try connection.run("INSERT INTO t VALUES(?)", 7)

        #expect(backends.entries(for: "INSERT INTO t VALUES(?)").count == 1)
        #expect(traced.lines == ["CREATE TABLE t(x)", "INSERT INTO t VALUES(7)"])

        connection.setEventHandler(nil)
        try connection.run("INSERT INTO t VALUES(?)", 8)
        #expect(backends.entries(for: "INSERT INTO t VALUES(?)").count == 1)
        #expect(traced.lines.count == 3)
    }
}

extension LoggingTests {
    @Test func aClosingConnectionReportsNothingToItsHandler() throws {
        let backends = Backends()
        let closed = TraceLines()
        do {
            let connection = try Connection(storageLocation: .inMemory)
            connection.instrument(backends.instrumentation())
            connection.traceEvent { event in
                if case .connectionClosed = event { closed.append("closed") }
            }
            // Left after its first row: finalized, with a trace event, as the connection goes.
            let statement = try connection.prepare("SELECT 1 UNION ALL SELECT 2")
            #expect(try statement.step())
        }
        #expect(closed.lines == ["closed"])
    }
}

/// Lines a trace closure appends (on the test's thread: the connection is used synchronously).
final class TraceLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
#endif
