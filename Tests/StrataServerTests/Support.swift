// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import StrataSQift
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Strata
import StrataServer

/// A database in a fresh temporary directory, in WAL mode, with a table `items(id, name UNIQUE)`.
struct TestDatabase {
    let directory: URL
    let path: String
    let database: Database

    init(name: String = "app.sqlite") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent(name).path
        database = try Database(storageLocation: .onDisk(path))
        try database.executeWrite { connection in
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        }
    }

    var walSize: Int64? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
        return (attributes?[.size] as? NSNumber)?.int64Value
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// A fresh database instrumented by fresh ``Backends`` (the arguments as
    /// ``Backends/instrumentation(logStatementValues:slowStatementThreshold:tracing:)`` takes them).
    static func instrumented(
        logStatementValues: Bool = false, slowStatementThreshold: Duration = .seconds(60), tracing: Bool = true
    ) throws -> (TestDatabase, Backends) {
        let test = try TestDatabase()
        let backends = Backends()
        test.database.instrument(
            backends.instrumentation(logStatementValues: logStatementValues, slowStatementThreshold: slowStatementThreshold, tracing: tracing))
        return (test, backends)
    }

    /// A fresh database instrumented by fresh ``Backends``, and their tracer.
    static func traced() throws -> (TestDatabase, InMemoryTracer) {
        let (test, backends) = try instrumented()
        return (test, backends.tracer)
    }
}

/// The three test backends, passed explicitly (no process-wide bootstrap), so suites run in parallel.
struct Backends {
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()
    let tracer = InMemoryTracer()

    func instrumentation(
        logStatementValues: Bool = false, slowStatementThreshold: Duration = .seconds(60), tracing: Bool = true
    ) -> StrataInstrumentation {
        let handler = logs
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = .debug
        return StrataInstrumentation(
            logger: logger, logStatementValues: logStatementValues, slowStatementThreshold: slowStatementThreshold,
            metricsFactory: metrics, tracing: tracing, tracer: tracer
        )
    }

    /// The log entries whose `db.statement` metadata is `sql`.
    func entries(for sql: String) -> [InMemoryLogHandler.Entry] {
        logs.entries.filter { $0.metadata["db.statement"] == .string(sql) }
    }
}
#endif
