// One log line per request, and the hub's metrics: what an operator reads to see who synced,
// what was refused and why. The routes fill in a record as they handle the request; the
// middleware writes it once the answer is known. Never the token, never the query string.
#if Hub
import Foundation
import Hummingbird
import Logging
import Metrics
import StrataSync
import Synchronization

/// What the log line of the request being handled says, filled in by the routes and the
/// authentication as they learn it (a task-local, so `answer(_:_:)` records a refusal's reason
/// wherever it is made).
final class SyncHubRequestRecord: Sendable {
    struct Fields {
        var user: String?
        var replica: String?
        var space: String?
        var entries: Int?
        /// Why the request was refused: the error's kind, or a denial's reason.
        var reason: String?
        var detail: String?
        /// The reasons of the entries a push's answer refused.
        var refusedEntries: [String] = []
    }

    @TaskLocal static var current: SyncHubRequestRecord?

    private let fields = Mutex(Fields())

    func update(_ change: (inout Fields) -> Void) { fields.withLock { change(&$0) } }
    var snapshot: Fields { fields.withLock { $0 } }

    /// Records the refusal `error` answers, unless one is recorded already (the first is why).
    static func refuse(_ error: SyncError) {
        let answer = SyncErrorAnswer(error)
        current?.update { fields in
            guard fields.reason == nil else { return }
            fields.reason = answer.denial.map { $0.reason.rawValue } ?? answer.refusal.map { $0.reason.rawValue } ?? answer.kind
            fields.detail = answer.denial?.message ?? answer.message
        }
    }
}

/// Logs each request once, when its answer is known: method, path (never the query string),
/// status, the user (the JWT's `sub`), replica, space, entries and the refusal's reason. The
/// token is never logged.
struct SyncHubRequestLogMiddleware: RouterMiddleware {
    typealias Context = SyncHubRequestContext
    /// nil: no line (the metrics are still counted).
    let level: Logger.Level?
    let metrics: SyncHubMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let record = SyncHubRequestRecord()
        let start = ContinuousClock.now
        do {
            let response = try await SyncHubRequestRecord.$current.withValue(record) { try await next(request, context) }
            log(request, context, status: response.status.code, record, since: start)
            return response
        } catch {
            log(request, context, status: (error as? any HTTPResponseError)?.status.code ?? 500, record, since: start)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, _ record: SyncHubRequestRecord, since start: ContinuousClock.Instant) {
        let fields = record.snapshot
        if let reason = fields.reason { metrics.refusedRequest(reason: reason) }
        for reason in fields.refusedEntries { metrics.refusedRequest(reason: reason) }
        guard let level else { return }
        var metadata: Logger.Metadata = ["status": "\(status)"]
        metadata["user"] = fields.user.map { .string($0) }
        metadata["replica"] = fields.replica.map { .string($0) }
        metadata["space"] = fields.space.map { .string($0) }
        metadata["entries"] = fields.entries.map { .stringConvertible($0) }
        metadata["reason"] = fields.reason.map { .string($0) }
        metadata["detail"] = fields.detail.map { .string($0) }
        if !fields.refusedEntries.isEmpty { metadata["refused"] = .string(fields.refusedEntries.joined(separator: ",")) }
        let elapsed = ContinuousClock.now - start
        metadata["ms"] = .string(String(format: "%.1f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3))
        context.logger.log(level: level, "\(request.method.rawValue) \(request.uri.path) \(status)", metadata: metadata)
    }
}

/// The hub's metrics through swift-metrics (whatever backend the program bootstraps; none, and
/// they cost nothing): pushes and pulls by space, refusals by reason, the time a push takes to
/// apply, the long polls waiting by space, and each space's newest version (its log's length
/// before trimming).
struct SyncHubMetrics: Sendable {
    let factory: any MetricsFactory

    func pushed(space: String, entries: Int, duration: Duration) {
        Counter(label: "strata_sync_hub_pushes", dimensions: [("space", space)], factory: factory).increment()
        Counter(label: "strata_sync_hub_pushed_entries", dimensions: [("space", space)], factory: factory).increment(by: entries)
        Metrics.Timer(label: "strata_sync_hub_apply_duration", dimensions: [("space", space)], factory: factory).recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    func pulled(space: String) {
        Counter(label: "strata_sync_hub_pulls", dimensions: [("space", space)], factory: factory).increment()
    }

    func refusedRequest(reason: String) {
        Counter(label: "strata_sync_hub_refusals", dimensions: [("reason", reason)], factory: factory).increment()
    }

    func version(space: String, _ version: Int64) {
        Gauge(label: "strata_sync_hub_space_version", dimensions: [("space", space)], factory: factory).record(version)
    }

    func waitingPolls(space: String, change: Int) {
        let meter = Meter(label: "strata_sync_hub_waiting_polls", dimensions: [("space", space)], factory: factory)
        if change > 0 { meter.increment(by: Double(change)) } else { meter.decrement(by: Double(-change)) }
    }
}
#endif
