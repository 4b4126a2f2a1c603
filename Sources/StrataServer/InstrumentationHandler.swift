import Foundation
import Logging
import Metrics
import Strata
import Tracing

/// Turns the core's database events into logs, metrics and spans.
final class InstrumentationHandler: DatabaseEventHandler {
    let configuration: StrataInstrumentation
    private let metrics: MetricsCache
    private let spans = SpanBook()

    init(_ configuration: StrataInstrumentation) {
        self.configuration = configuration
        self.metrics = MetricsCache(prefix: configuration.metricsPrefix, factory: configuration.metricsFactory)
    }

    var wantsExpandedSQL: Bool { configuration.logStatementValues }

    private var tracer: (any Tracer)? {
        guard configuration.tracing else { return nil }
        return configuration.tracer ?? InstrumentationSystem.tracer
    }

    // MARK: - Calls

    func captureContext() -> (any Sendable)? {
        configuration.tracing ? ServiceContext.current : nil
    }

    func workDidStart(_ work: DatabaseWork) {
        let database = Self.databaseName(work.connection)
        let onReader = work.kind == .read && work.connection.readOnly
        if onReader {
            metrics.timer("reader_wait_seconds", ["database": database]).recordNanoseconds(work.waited.nanoseconds)
            metrics.gauge("readers_in_use", ["database": database]).record(work.readersInUse)
        } else if work.kind != .read {
            metrics.timer("writer_wait_seconds", ["database": database]).recordNanoseconds(work.waited.nanoseconds)
        }
        guard let tracer else { return }
        let parent = (work.context as? ServiceContext) ?? .topLevel
        let span = tracer.startSpan("sqlite.\(work.kind.rawValue)", context: parent, ofKind: .client)
        span.attributes["db.system"] = "sqlite"
        span.attributes["db.name"] = database
        spans.push(span, on: work.connection)
    }

    func workDidEnd(_ work: DatabaseWork, error: (any Error)?) {
        if work.kind == .read && work.connection.readOnly {
            metrics.gauge("readers_in_use", ["database": Self.databaseName(work.connection)]).record(work.readersInUse)
        }
        guard configuration.tracing else { return }
        spans.endPendingStatement(on: work.connection)
        guard let span = spans.pop(on: work.connection) else { return }
        if let error {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    // MARK: - Statements

    func statementDidFinish(_ event: DatabaseStatementEvent) {
        let database = Self.databaseName(event.connection)
        let operation = Self.operation(of: event.sql)
        let duration = event.duration ?? .zero
        metrics.counter("statements_total", ["database": database, "operation": operation]).increment()
        metrics.timer("statement_duration_seconds", ["database": database, "operation": operation])
            .recordNanoseconds(duration.nanoseconds)

        var metadata: Logger.Metadata = [
            "db.statement": "\(event.sql)",
            "db.operation": "\(operation)",
            "db.name": "\(database)",
            "db.duration_ms": "\(Double(duration.nanoseconds) / 1_000_000)",
        ]
        if configuration.logStatementValues, let expanded = event.expandedSQL {
            metadata["db.statement.values"] = "\(expanded)"
        }
        if duration >= configuration.slowStatementThreshold {
            configuration.logger.warning("slow SQL statement", metadata: metadata)
        } else {
            configuration.logger.debug("SQL statement", metadata: metadata)
        }

        guard let tracer else { return }
        spans.endPendingStatement(on: event.connection)
        let end = DefaultTracerClock.now
        let start = DefaultTracerClock.Timestamp(
            nanosecondsSinceEpoch: end.nanosecondsSinceEpoch - min(end.nanosecondsSinceEpoch, UInt64(max(0, duration.nanoseconds)))
        )
        let span = tracer.startSpan(
            "\(operation) \(database)", context: spans.parentContext(on: event.connection, fallback: event.context),
            ofKind: .client, at: start
        )
        Self.setStatementAttributes(span, sql: event.sql, operation: operation, database: database)
        // Ended by the next event on the connection: a failure reported right after must reach it.
        spans.setPendingStatement(PendingStatement(span: span, sql: event.sql, end: end), on: event.connection)
    }

    func statementDidFail(_ event: DatabaseStatementEvent) {
        guard let error = event.error else { return }
        let database = Self.databaseName(event.connection)
        metrics.counter("errors_total", ["database": database, "code": error.resultCode.primary.description]).increment()
        configuration.logger.error("SQL statement failed", metadata: [
            "db.statement": "\(event.sql)",
            "db.name": "\(database)",
            "db.sqlite.code": "\(error.code)",
            "db.sqlite.extended_code": "\(error.extendedCode)",
            "db.sqlite.result": "\(error.resultCode)",
            "error.message": "\(error.message)",
        ])

        guard let tracer else { return }
        if let pending = spans.takePendingStatement(on: event.connection), pending.sql == event.sql {
            pending.span.recordError(error)
            pending.span.setStatus(SpanStatus(code: .error, message: error.message))
            pending.span.end(at: pending.end)
            return
        } else {
            spans.endPendingStatement(on: event.connection)
        }
        // Failed before running (while preparing): a span of its own, with the error.
        let operation = Self.operation(of: event.sql)
        let span = tracer.startSpan(
            "\(operation) \(database)", context: spans.parentContext(on: event.connection, fallback: event.context),
            ofKind: .client
        )
        Self.setStatementAttributes(span, sql: event.sql, operation: operation, database: database)
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.message))
        span.end()
    }

    // MARK: - Checkpoints and observations

    func checkpointDidFinish(_ event: DatabaseCheckpointEvent) {
        if let size = event.walSizeBytes {
            metrics.gauge("wal_size_bytes", ["database": Self.databaseName(event.connection)]).record(size)
        }
        configuration.logger.debug("WAL checkpoint", metadata: [
            "db.name": "\(Self.databaseName(event.connection))",
            "db.sqlite.wal_frames": "\(event.result.logFrames)",
            "db.sqlite.checkpointed_frames": "\(event.result.checkpointedFrames)",
            "db.sqlite.wal_size_bytes": "\(event.walSizeBytes.map(String.init) ?? "none")",
        ])
    }

    func observationDidFetch(on connection: Connection) {
        metrics.counter("observation_refetches_total", ["database": Self.databaseName(connection)]).increment()
    }

    // MARK: - Naming

    private static func setStatementAttributes(_ span: any Span, sql: String, operation: String, database: String) {
        span.attributes["db.system"] = "sqlite"
        span.attributes["db.name"] = database
        span.attributes["db.operation"] = operation
        span.attributes["db.statement"] = sql
    }

    /// The database file's name (not its directory, which may name a user), or `memory`.
    static func databaseName(_ connection: Connection) -> String {
        let path = connection.fileName
        return path.isEmpty ? "memory" : URL(fileURLWithPath: path).lastPathComponent
    }

    /// Statement keywords that may open a statement: the bounded values of `operation`.
    private static let operations: Set<String> = [
        "SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH", "VALUES", "BEGIN", "COMMIT", "END", "ROLLBACK",
        "SAVEPOINT", "RELEASE", "CREATE", "DROP", "ALTER", "PRAGMA", "VACUUM", "ANALYZE", "ATTACH", "DETACH",
        "REINDEX", "EXPLAIN",
    ]

    /// The statement's first keyword, upper-cased, past blanks and comments; `OTHER` when it is
    /// none of ``operations`` (a metric dimension must stay bounded).
    static func operation(of sql: String) -> String {
        var rest = Substring(sql)
        while true {
            rest = rest.drop(while: { $0.isWhitespace })
            if rest.hasPrefix("--") {
                rest = rest.drop(while: { $0 != "\n" })
            } else if rest.hasPrefix("/*") {
                guard let close = rest.range(of: "*/") else { return "OTHER" }
                rest = rest[close.upperBound...]
            } else {
                break
            }
        }
        let word = rest.prefix(while: { $0.isLetter }).uppercased()
        return operations.contains(word) ? word : "OTHER"
    }
}

/// A statement's span, kept open until the connection's next event says whether it failed.
struct PendingStatement: Sendable {
    let span: any Span
    let sql: String
    let end: DefaultTracerClock.Timestamp
}

/// The open spans of each connection: its calls' spans (nested calls stack) and its last statement's.
final class SpanBook: Sendable {
    private struct Entry {
        var calls: [any Span] = []
        var pending: PendingStatement?
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func push(_ span: any Span, on connection: Connection) {
        entries.withLock { $0[ObjectIdentifier(connection), default: Entry()].calls.append(span) }
    }

    func pop(on connection: Connection) -> (any Span)? {
        entries.withLock { entries in
            let id = ObjectIdentifier(connection)
            let span = entries[id]?.calls.popLast()
            if let entry = entries[id], entry.calls.isEmpty, entry.pending == nil { entries[id] = nil }
            return span
        }
    }

    /// The span of the call running on `connection`, else the call's captured context, else the
    /// current task's.
    func parentContext(on connection: Connection, fallback: (any Sendable)?) -> ServiceContext {
        if let span = entries.withLock({ $0[ObjectIdentifier(connection)]?.calls.last }) { return span.context }
        return (fallback as? ServiceContext) ?? ServiceContext.current ?? .topLevel
    }

    func setPendingStatement(_ pending: PendingStatement, on connection: Connection) {
        entries.withLock { $0[ObjectIdentifier(connection), default: Entry()].pending = pending }
    }

    func takePendingStatement(on connection: Connection) -> PendingStatement? {
        entries.withLock { entries in
            let id = ObjectIdentifier(connection)
            let pending = entries[id]?.pending
            entries[id]?.pending = nil
            if let entry = entries[id], entry.calls.isEmpty { entries[id] = nil }
            return pending
        }
    }

    func endPendingStatement(on connection: Connection) {
        if let pending = takePendingStatement(on: connection) { pending.span.end(at: pending.end) }
    }
}

/// Metric handles by label and dimensions, made once: backends may be slow to make them.
final class MetricsCache: Sendable {
    private struct Key: Hashable {
        let label: String
        let dimensions: [String: String]
    }

    let prefix: String
    private let factory: (any MetricsFactory)?
    private let counters = Mutex<[Key: Counter]>([:])
    private let timers = Mutex<[Key: Metrics.Timer]>([:])
    private let gauges = Mutex<[Key: Gauge]>([:])

    init(prefix: String, factory: (any MetricsFactory)?) {
        self.prefix = prefix
        self.factory = factory
    }

    private func label(_ name: String) -> String { prefix.isEmpty ? name : "\(prefix)_\(name)" }

    private static func pairs(_ dimensions: [String: String]) -> [(String, String)] {
        dimensions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    func counter(_ name: String, _ dimensions: [String: String]) -> Counter {
        cached(in: counters, name, dimensions) { label, dims, factory in
            factory.map { Counter(label: label, dimensions: dims, factory: $0) } ?? Counter(label: label, dimensions: dims)
        }
    }

    func timer(_ name: String, _ dimensions: [String: String]) -> Metrics.Timer {
        cached(in: timers, name, dimensions) { label, dims, factory in
            factory.map { Metrics.Timer(label: label, dimensions: dims, factory: $0) } ?? Metrics.Timer(label: label, dimensions: dims)
        }
    }

    func gauge(_ name: String, _ dimensions: [String: String]) -> Gauge {
        cached(in: gauges, name, dimensions) { label, dims, factory in
            factory.map { Gauge(label: label, dimensions: dims, factory: $0) } ?? Gauge(label: label, dimensions: dims)
        }
    }

    /// The metric for `name` and `dimensions` from `cache`, made by `make` the first time.
    private func cached<Metric>(
        in cache: borrowing Mutex<[Key: Metric]>, _ name: String, _ dimensions: [String: String],
        make: (String, [(String, String)], (any MetricsFactory)?) -> Metric
    ) -> Metric {
        let key = Key(label: label(name), dimensions: dimensions)
        return cache.withLock { entries in
            if let metric = entries[key] { return metric }
            let metric = make(key.label, Self.pairs(dimensions), factory)
            entries[key] = metric
            return metric
        }
    }
}

/// A value reached only under its lock (`Synchronization.Mutex` needs macOS 15; this package
/// supports macOS 13).
final class Mutex<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, which holds `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product &+ attoseconds / 1_000_000_000
    }
}
