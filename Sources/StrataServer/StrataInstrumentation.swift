// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
// StrataServer: Strata on servers. Statement logs (swift-log), metrics (swift-metrics), spans
// (swift-distributed-tracing) and the Database as a ServiceLifecycle service, all heard through the
// core's generic `DatabaseEventHandler`, so the `Strata` module itself depends on none of them.
import Foundation
import Logging
import Metrics
import Strata
import Tracing

/// What a `Database` reports once instrumented: logs, metrics and spans.
///
/// ```swift
/// let database = try Database(path: "app.sqlite")
/// database.instrument(StrataInstrumentation(logger: Logger(label: "db")))
/// ```
/// Logs: each statement at `.debug` with its SQL (`db.statement`), bound values only with
/// ``logStatementValues``; statements taking ``slowStatementThreshold`` or longer at `.warning`;
/// failures at `.error` with the SQL and result code (`db.sqlite.code`, `db.sqlite.extended_code`).
///
/// Metrics (labels start with ``metricsPrefix``; dimensions `database`, the file's name, and
/// `operation`, the statement's first keyword, or `code`, the primary result code's name):
/// `strata_statements_total`, `strata_statement_duration_seconds`, `strata_errors_total`,
/// `strata_reader_wait_seconds`, `strata_readers_in_use`, `strata_writer_wait_seconds`,
/// `strata_wal_size_bytes` (after each checkpoint), `strata_observation_refetches_total`. Never
/// the SQL text.
///
/// Spans (OpenTelemetry database conventions: `db.system` = `sqlite`, `db.name`, `db.operation`,
/// `db.statement` without values): one per `Database` call (`sqlite.read`,
/// `sqlite.write`, `sqlite.transaction`), a child of the calling task's current span, and one per
/// statement, a child of its call's span.
public struct StrataInstrumentation: Sendable {
    /// Where statements, slow statements and failures are logged.
    public var logger: Logger
    /// Whether statement logs carry the SQL with its bound values (`db.statement.values`); off by
    /// default, as values may be personal data.
    public var logStatementValues: Bool
    /// Statements that run this long or longer are logged at `.warning`.
    public var slowStatementThreshold: Duration
    /// The first word of every metric label (`strata` gives `strata_statements_total`).
    public var metricsPrefix: String
    /// The metrics backend; nil uses the one bootstrapped in `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?
    /// Whether calls and statements make spans.
    public var tracing: Bool
    /// The tracer; nil uses the one bootstrapped in `InstrumentationSystem`.
    public var tracer: (any Tracer)?

    /// Creates an instrumentation; every parameter but `logger` has a default.
    public init(
        logger: Logger,
        logStatementValues: Bool = false,
        slowStatementThreshold: Duration = .milliseconds(250),
        metricsPrefix: String = "strata",
        metricsFactory: (any MetricsFactory)? = nil,
        tracing: Bool = true,
        tracer: (any Tracer)? = nil
    ) {
        self.logger = logger
        self.logStatementValues = logStatementValues
        self.slowStatementThreshold = slowStatementThreshold
        self.metricsPrefix = metricsPrefix
        self.metricsFactory = metricsFactory
        self.tracing = tracing
        self.tracer = tracer
    }
}

extension Database {
    /// Logs, measures and traces this database's work as `instrumentation` says, on every
    /// connection it has and opens later. Call it once, right after opening the database.
    public func instrument(_ instrumentation: StrataInstrumentation) {
        setEventHandler(InstrumentationHandler(instrumentation))
    }
}

extension Connection {
    /// Logs, measures and traces this connection's statements and checkpoints as
    /// `instrumentation` says (no per-call spans or pool metrics: those belong to a ``Database``).
    /// Call it where the connection is used.
    public func instrument(_ instrumentation: StrataInstrumentation) {
        setEventHandler(InstrumentationHandler(instrumentation))
    }
}
#endif
