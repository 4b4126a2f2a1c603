// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
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

    /// Where spans go, decided once: a tracer given in the configuration cannot change, so only
    /// the global one is looked up (under its lock) per event, and no cast runs per statement.
    private enum TracerSource {
        case none
        case given(any Tracer)
        case global
    }
    private let tracerSource: TracerSource
    /// Whether spans may be made at all: checked first, so that an untraced statement does not
    /// copy the tracer out of `tracerSource` only to find none. Stored, not derived: matching
    /// `tracerSource` per statement copies its existential (46 instructions, measured).
    private let hasTracer: Bool
    /// The slow-statement threshold in nanoseconds, as statements' durations arrive.
    private let slowStatementNanoseconds: Int64

    init(_ configuration: StrataInstrumentation) {
        self.configuration = configuration
        self.metrics = MetricsCache(prefix: configuration.metricsPrefix, factory: configuration.metricsFactory)
        if !configuration.tracing {
            tracerSource = .none
        } else if let tracer = configuration.tracer {
            tracerSource = tracer is NoOpTracer ? .none : .given(tracer)
        } else {
            tracerSource = .global
        }
        // Rounded up, so that a whole-nanosecond duration is slow exactly when the `Duration`
        // comparison would say so.
        let threshold = configuration.slowStatementThreshold
        let partial = threshold.components.attoseconds % 1_000_000_000 > 0
        if case .none = tracerSource { hasTracer = false } else { hasTracer = true }
        slowStatementNanoseconds = threshold.nanoseconds &+ (partial && threshold.nanoseconds < .max ? 1 : 0)
    }

    var wantsExpandedSQL: Bool { configuration.logStatementValues }

    /// The tracer spans go to; nil when tracing is off or goes nowhere (the no-op tracer of an
    /// unbootstrapped `InstrumentationSystem`), so no span is made, named or kept for it.
    private var tracer: (any Tracer)? {
        switch tracerSource {
        case .none: return nil
        case .given(let tracer): return tracer
        case .global:
            let tracer = InstrumentationSystem.tracer
            return tracer is NoOpTracer ? nil : tracer
        }
    }

    // MARK: - Calls

    func captureContext() -> (any Sendable)? {
        configuration.tracing ? ServiceContext.current : nil
    }

    func workDidStart(_ work: DatabaseWork) {
        let metrics = metrics.databaseMetrics(Self.databaseName(work.connection))
        let onReader = work.kind == .read && work.connection.readOnly
        if onReader {
            metrics.readerWait.recordNanoseconds(work.waited.nanoseconds)
            metrics.readersInUse.record(work.readersInUse)
        } else if work.kind != .read {
            metrics.writerWait.recordNanoseconds(work.waited.nanoseconds)
        }
        guard let tracer else { return }
        let parent = (work.context as? ServiceContext) ?? .topLevel
        let span = tracer.startSpan("sqlite.\(work.kind.rawValue)", context: parent, ofKind: .client)
        span.attributes["db.system"] = "sqlite"
        span.attributes["db.name"] = Self.databaseName(work.connection)
        spans.push(span, on: work.connection)
    }

    func workDidEnd(_ work: DatabaseWork, error: (any Error)?) {
        if work.kind == .read && work.connection.readOnly {
            metrics.databaseMetrics(Self.databaseName(work.connection)).readersInUse.record(work.readersInUse)
        }
        // A call that began with no tracer pushed no span (a tracer, once bootstrapped, stays).
        guard tracer != nil else { return }
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
        // Runs for every statement: the names come from the connection's memo, the metrics from
        // one lookup, and the log metadata is built only when a line is written.
        let names = event.connection.state(in: ConnectionNames.slot)
        let database = Self.databaseName(event.connection, names)
        let nanoseconds = event.durationNanoseconds ?? 0
        let known = names.statement(event.sql, of: metrics) { sql in
            let operation = Self.operation(of: sql)
            let (statements, durations) = metrics.statementMetrics(database: database, operation: operation)
            return KnownStatement(operation: operation, statements: statements, durations: durations)
        }
        let operation = known.operation
        known.statements.increment()
        known.durations.recordNanoseconds(nanoseconds)

        let slow = nanoseconds >= slowStatementNanoseconds
        if slow || configuration.logger.logLevel <= .debug {
            var metadata: Logger.Metadata = [
                "db.statement": "\(event.sql)",
                "db.operation": "\(operation)",
                "db.name": "\(database)",
                "db.duration_ms": "\(Double(nanoseconds) / 1_000_000)"
            ]
            if configuration.logStatementValues, let expanded = event.expandedSQL {
                metadata["db.statement.values"] = "\(expanded)"
            }
            if slow {
                configuration.logger.warning("slow SQL statement", metadata: metadata)
            } else {
                configuration.logger.debug("SQL statement", metadata: metadata)
            }
        }

        guard hasTracer, let tracer else { return }
        spans.endPendingStatement(on: event.connection)
        let end = DefaultTracerClock.now
        let start = DefaultTracerClock.Timestamp(
            nanosecondsSinceEpoch: end.nanosecondsSinceEpoch - min(end.nanosecondsSinceEpoch, UInt64(max(0, nanoseconds)))
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
        configuration.logger.error(
            "SQL statement failed",
            metadata: [
                "db.statement": "\(event.sql)",
                "db.name": "\(database)",
                "db.sqlite.code": "\(error.code)",
                "db.sqlite.extended_code": "\(error.extendedCode)",
                "db.sqlite.result": "\(error.resultCode)",
                "error.message": "\(error.message)"
            ])

        guard let tracer else { return }
        if let pending = spans.takePendingStatement(on: event.connection) {
            guard pending.sql != event.sql else {
                pending.span.recordError(error)
                pending.span.setStatus(SpanStatus(code: .error, message: error.message))
                pending.span.end(at: pending.end)
                return
            }
            // The earlier statement succeeded; this one failed before running. Taking the pending
            // span removed it from the book, so it ends here or never.
            pending.span.end(at: pending.end)
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
        configuration.logger.debug(
            "WAL checkpoint",
            metadata: [
                "db.name": "\(Self.databaseName(event.connection))",
                "db.sqlite.wal_frames": "\(event.result.logFrames)",
                "db.sqlite.checkpointed_frames": "\(event.result.checkpointedFrames)",
                "db.sqlite.wal_size_bytes": "\(event.walSizeBytes.map(String.init) ?? "none")"
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

    /// The database file's name (not its directory, which may name a user), or `memory`; worked
    /// out once per connection (its main file never changes), on the connection's thread.
    static func databaseName(_ connection: Connection) -> String {
        databaseName(connection, connection.state(in: ConnectionNames.slot))
    }

    private static func databaseName(_ connection: Connection, _ memo: ConnectionNames) -> String {
        if let name = memo.databaseName { return name }
        let name = databaseName(path: connection.fileName)
        memo.databaseName = name
        return name
    }

    /// The last component of `path`, or `memory` for an in-memory or temporary database.
    static func databaseName(path: String) -> String {
        guard !path.isEmpty else { return "memory" }
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Statement keywords that may open a statement: the bounded values of `operation`.
    private static let operations: Set<String> = [
        "SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH", "VALUES", "BEGIN", "COMMIT", "END", "ROLLBACK",
        "SAVEPOINT", "RELEASE", "CREATE", "DROP", "ALTER", "PRAGMA", "VACUUM", "ANALYZE", "ATTACH", "DETACH",
        "REINDEX", "EXPLAIN"
    ]

    /// The statement's first keyword, upper-cased, past blanks and comments; `OTHER` when it is
    /// none of ``operations`` (a metric dimension must stay bounded). Reads UTF-8 bytes: it runs
    /// for every statement, and SQL's keywords, blanks and comment marks are all ASCII.
    static func operation(of sql: String) -> String {
        var sql = sql
        return sql.withUTF8 { operation(ofUTF8: $0) }
    }

    private static func operation(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        var index = 0
        while index < count {
            switch bytes[index] {
            case 0x09...0x0D, 0x20: // SQLite's blanks
                index += 1
            case UInt8(ascii: "-") where index + 1 < count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where index + 1 < count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                guard index + 1 < count else { return "OTHER" }
                index += 2
            default:
                var end = index
                while end < count, case let byte = bytes[end] | 0x20, byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { end += 1 }
                // No keyword is longer than nine letters, and one running into a non-ASCII letter is none.
                guard end > index, end - index <= 9, end == count || bytes[end] < 0x80 else { return "OTHER" }
                // Upper-cased into a small buffer: decoding contiguous bytes is the fast path.
                let word = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { buffer in
                    for offset in 0..<(end - index) { buffer[offset] = bytes[index + offset] & ~0x20 }
                    return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<(end - index)]), as: UTF8.self)
                }
                return operations.contains(word) ? word : "OTHER"
            }
        }
        return "OTHER"
    }
}

/// What the handler works out once per connection, kept on the connection (read and written on
/// its thread only, as the connection is).
final class ConnectionNames {
    static let slot = ConnectionSlot { ConnectionNames() }
    // A connection's state, used on its thread one statement at a time (as `ConnectionSlot`
    // says), so the runtime's exclusivity tracking buys nothing on this per-statement path.
    @exclusivity(unchecked) var databaseName: String?

    /// The operation and metrics of recent statements by their SQL: a cached statement run again
    /// reports the same `String` (compared by identity first), which skips parsing its keyword
    /// and a locked lookup of its metrics. The database of a connection never changes, so the
    /// SQL alone is the key.
    @exclusivity(unchecked) private var recent = RecentEntries<(sql: String, known: KnownStatement)>(capacity: 16)
    /// Whose metrics `recent` holds: a database instrumented again starts afresh.
    /// (Held, not identified: a new cache at a freed one's address would pass for it.)
    @exclusivity(unchecked) private var recentOwner: MetricsCache?

    func statement(_ sql: String, of owner: MetricsCache, make: (String) -> KnownStatement) -> KnownStatement {
        if recentOwner !== owner {
            recent.removeAll()
            recentOwner = owner
        }
        for entry in recent.entries where entry.sql == sql { return entry.known }
        let known = make(sql)
        recent.insert((sql, known))
        return known
    }
}

/// A statement's operation keyword and its metrics, kept together in one object so that the
/// per-statement lookup hands back one reference, not three.
final class KnownStatement {
    let operation: String
    let statements: Counter
    let durations: Metrics.Timer
    init(operation: String, statements: Counter, durations: Metrics.Timer) {
        self.operation = operation
        self.statements = statements
        self.durations = durations
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

    private let entries = Locked<[ObjectIdentifier: Entry]>([:])

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
    private let counters = Locked<[Key: Counter]>([:])
    private let timers = Locked<[Key: Metrics.Timer]>([:])
    private let gauges = Locked<[Key: Gauge]>([:])

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

    private struct StatementKey: Hashable {
        let database: String
        let operation: String
    }
    private let statements = Locked<[StatementKey: (Counter, Metrics.Timer)]>([:])

    /// `statements_total` and `statement_duration_seconds` for a database and operation: one
    /// lookup of two short strings per statement, instead of two of a label and a dictionary.
    func statementMetrics(database: String, operation: String) -> (Counter, Metrics.Timer) {
        Self.memo(in: statements, StatementKey(database: database, operation: operation)) {
            let dimensions = ["database": database, "operation": operation]
            return (counter("statements_total", dimensions), timer("statement_duration_seconds", dimensions))
        }
    }

    /// The metrics of each call on a database.
    struct DatabaseMetrics {
        let readerWait: Metrics.Timer
        let readersInUse: Gauge
        let writerWait: Metrics.Timer
    }
    private let databases = Locked<[String: DatabaseMetrics]>([:])

    /// `reader_wait_seconds`, `readers_in_use` and `writer_wait_seconds` of `database`, found
    /// with one lookup per call.
    func databaseMetrics(_ database: String) -> DatabaseMetrics {
        Self.memo(in: databases, database) {
            let dimensions = ["database": database]
            return DatabaseMetrics(
                readerWait: timer("reader_wait_seconds", dimensions), readersInUse: gauge("readers_in_use", dimensions),
                writerWait: timer("writer_wait_seconds", dimensions)
            )
        }
    }

    /// The metric for `name` and `dimensions` from `cache`, made by `make` the first time.
    private func cached<Metric>(
        in cache: Locked<[Key: Metric]>, _ name: String, _ dimensions: [String: String],
        make: (String, [(String, String)], (any MetricsFactory)?) -> Metric
    ) -> Metric {
        let key = Key(label: label(name), dimensions: dimensions)
        return Self.memo(in: cache, key) { make(key.label, Self.pairs(dimensions), factory) }
    }

    /// The value for `key` in `store`, made by `make` (outside the lock: it may make other
    /// metrics) the first time; a value made twice by racing callers names the same metric.
    private static func memo<StoreKey: Hashable, Value>(in store: Locked<[StoreKey: Value]>, _ key: StoreKey, make: () -> Value) -> Value {
        if let found = store.withLock({ $0[key] }) { return found }
        let made = make()
        return store.withLock { entries in
            if let existing = entries[key] { return existing }
            entries[key] = made
            return made
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating, toward the duration's sign).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = product.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }
}
#endif
