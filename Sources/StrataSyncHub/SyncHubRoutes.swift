// StrataSync's hub on the network: Hummingbird routes over a `SyncHub`, behind the package trait
// `Hub`, so that apps using Strata and StrataSync never fetch SwiftNIO.
#if Hub
import Foundation
import Hummingbird
import Logging
import Metrics
import ServiceLifecycle
import Strata
import StrataSync
import Synchronization

/// The hub's request context: a push body over `SyncHubLimits.maximumBodyBytes` is refused (413).
public struct SyncHubRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
}

/// What one request may carry.
public struct SyncHubLimits: Sendable {
    public var maximumBodyBytes = 8 << 20
    public var maximumEntriesPerPush = 1_000
    public var maximumPullWait: Duration = .seconds(30)
    /// Long polls waiting at once on one space, and with one token; more get 503 with `Retry-After`.
    /// A waiting poll costs the hub a socket and about 36 KiB (StrataCore's Performance article
    /// measures it), so one process holds ten thousand when its open-file limit allows: the
    /// default is half the soft limit (each poll is a descriptor), at most 10,000.
    public var maximumPollsPerSpace = SyncHubLimits.pollsTheOpenFileLimitAllows()
    public var maximumPollsPerToken = 32
    /// How long a pull stream stays open before the hub ends it (the replica opens another): a
    /// bound on how long one request holds its token's grant.
    public var maximumStreamDuration: Duration = .seconds(300)
    /// How often an idle pull stream carries a heartbeat, so proxies and clients keep it open.
    public var streamHeartbeat: Duration = .seconds(15)
    public init() {}

    /// Half this process's soft open-file limit, between 64 and 10,000: the other half stays for
    /// the space files, pushes, pulls and the listener.
    public static func pollsTheOpenFileLimitAllows() -> Int {
        var limit = rlimit()
        guard getrlimit(openFileResource, &limit) == 0 else { return 256 }
        return max(64, min(10_000, Int(clamping: limit.rlim_cur) / 2))
    }

    #if os(Linux)
    static let openFileResource = Int32(RLIMIT_NOFILE.rawValue)
    #else
    static let openFileResource = RLIMIT_NOFILE
    #endif

    /// Raises the soft open-file limit toward the hard one (a long poll holds a socket; a soft
    /// limit of 1,024, systemd's and most shells', would refuse connections long before the
    /// per-space cap), never lowering it; returns the limit now (nil when unknown).
    public static func raiseOpenFileLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(openFileResource, &limit) == 0 else { return nil }
        #if canImport(Darwin)
        // macOS refuses a soft limit above OPEN_MAX, whatever the hard one says.
        let ceiling = rlim_t(OPEN_MAX)
        #else
        let ceiling = rlim_t(1 << 20)
        #endif
        let wanted = min(limit.rlim_max, ceiling)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(openFileResource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}

/// The long polls waiting now, by space and by token, for the caps in ``SyncHubLimits``.
final class PollCounts: Sendable {
    private let counts = Mutex<(spaces: [String: Int], tokens: [String: Int])>(([:], [:]))

    /// Takes a place for a poll on `space` with `token`; false when either is full.
    func enter(space: String, token: String?, limits: SyncHubLimits) -> Bool {
        counts.withLock { counts in
            let tokenKey = token ?? ""
            guard counts.spaces[space, default: 0] < limits.maximumPollsPerSpace,
                counts.tokens[tokenKey, default: 0] < limits.maximumPollsPerToken
            else { return false }
            counts.spaces[space, default: 0] += 1
            counts.tokens[tokenKey, default: 0] += 1
            return true
        }
    }

    func leave(space: String, token: String?) {
        counts.withLock { counts in
            let tokenKey = token ?? ""
            if let count = counts.spaces[space] { counts.spaces[space] = count > 1 ? count - 1 : nil }
            if let count = counts.tokens[tokenKey] { counts.tokens[tokenKey] = count > 1 ? count - 1 : nil }
        }
    }
}

/// Decides whether `token` may sync `replicaID` in `space` (a bearer token from the
/// `Authorization` header, nil when there is none).
public typealias SyncHubAuthorizer = @Sendable (_ token: String?, _ space: String, _ replicaID: String) -> Bool

/// The routes:
/// - `POST /spaces/:space/push`: a ``SyncWire`` push body → the `SyncPushResponse` as JSON
/// - `GET /spaces/:space/pull?replica=&tables=&fingerprint=&after=&limit=&wait=`: log entries
///   after `after` as a ``SyncWire`` body; with `wait` (milliseconds) it answers as soon as the
///   space has a newer version, or empty when the wait ends (a long poll); `snapshotNeeded` when
///   the hub trimmed the log after `after`
/// - `GET /spaces/:space/stream?replica=&tables=&fingerprint=&after=&limit=`: a pull stream,
///   `text/event-stream`: a frame (``SyncWire/encodeStreamEvent(_:)``) answering a pull after
///   `after` at once, then one each time the space's version moves, heartbeats while idle; it
///   counts as a long poll for ``SyncHubLimits/maximumPollsPerSpace`` and ends after
///   ``SyncHubLimits/maximumStreamDuration``
/// - `GET /spaces/:space/snapshot?replica=&tables=&fingerprint=`: the synced tables at the hub's
///   newest version as a ``SyncWire`` snapshot body (a database image), for a new replica or one
///   behind the trimmed log
/// Refusals answer with a status and a `SyncErrorAnswer` JSON body: 401 (no, wrong or expired
/// token), 403 (a token that does not allow this space, replica or write), 404 (unknown space),
/// 409 (schema mismatch), 413 (too large), 400 (a damaged body), 422 (the hub refused the
/// changes), 503 (too many long polls, or the hub's store failed for a reason that passes such as
/// a lost database connection; `Retry-After`).
///
/// `requestLogLevel` logs every request at that level (through the application's logger), one
/// line each once it is answered: method, path, status, the user (a JWT's `sub`), replica,
/// space, entries and the reason of a refusal; never the token, nor the query string's values.
/// `metricsFactory` receives the hub's metrics (pushes, pulls, refusals by reason, apply time,
/// waiting polls, each space's version); the default is the program's bootstrapped backend.
public func buildSyncHubRouter(
    hub: SyncHub, limits: SyncHubLimits = SyncHubLimits(), requestLogLevel: Logger.Level? = nil,
    metricsFactory: any MetricsFactory = MetricsSystem.factory,
    authorize: @escaping SyncHubAuthorizer
) -> Router<SyncHubRequestContext> {
    buildSyncHubRouter(
        hub: hub, limits: limits, requestLogLevel: requestLogLevel, metricsFactory: metricsFactory,
        authentication: .custom(authorize))
}

/// The routes of ``buildSyncHubRouter(hub:limits:requestLogLevel:authorize:)``, with who may sync
/// what said by `authentication` (a shared token, JWTs, or none).
public func buildSyncHubRouter(
    hub: SyncHub, limits: SyncHubLimits = SyncHubLimits(), requestLogLevel: Logger.Level? = nil,
    metricsFactory: any MetricsFactory = MetricsSystem.factory,
    authentication: SyncHubAuthentication = .none
) -> Router<SyncHubRequestContext> {
    let router = Router(context: SyncHubRequestContext.self)
    let metrics = SyncHubMetrics(factory: metricsFactory)
    // Middleware applies to the routes added after it.
    router.add(middleware: SyncHubRequestLogMiddleware(level: requestLogLevel, metrics: metrics))
    router.get("health") { _, _ in "ok" }
    let polls = PollCounts()
    router.post("spaces/:space/push") { request, context -> Response in
        let space = context.parameters.get("space") ?? ""
        // The token is checked before the body is read: an unauthenticated client cannot make the
        // hub read 8 MB first. The replica is the one the transport names in a header (the body
        // must name the same), or none.
        let namedReplica = request.headers.first { $0.name.canonicalName == syncReplicaHeader }?.value
        SyncHubRequestRecord.current?.update {
            $0.space = space; $0.replica = namedReplica
        }
        if let refusal = await authentication.refusal(token: bearerToken(request), space: space, replica: namedReplica, writes: true) {
            return refusal
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limits.maximumBodyBytes)
        } catch {
            return answer(.contentTooLarge, .tooLarge("a push body is limited to \(limits.maximumBodyBytes) bytes"))
        }
        let push: SyncPushRequest
        do {
            push = try SyncWire.decodePushRequest(Data(buffer.readableBytesView))
        } catch {
            return answer(.badRequest, error as? SyncError ?? .refused("the push body is damaged: \(error)"))
        }
        SyncHubRequestRecord.current?.update {
            $0.replica = push.replicaID; $0.entries = push.entries.count
        }
        guard push.space == space else { return answer(.badRequest, .refused("the body names space \(push.space), the URL \(space)")) }
        guard push.entries.count <= limits.maximumEntriesPerPush else {
            return answer(.contentTooLarge, .tooLarge("a push is limited to \(limits.maximumEntriesPerPush) entries"))
        }
        if let namedReplica, namedReplica != push.replicaID {
            return answer(.badRequest, .refused("the body names replica \(push.replicaID), the header \(namedReplica)"))
        }
        if let refusal = await authentication.refusal(token: bearerToken(request), space: space, replica: push.replicaID, writes: true) {
            return refusal
        }
        let caller = await authentication.caller(token: bearerToken(request))
        return try await answeringHubErrors {
            let start = ContinuousClock.now
            let response = try await offTheCooperativePool { try hub.push(push, caller: caller) }
            metrics.pushed(space: space, entries: push.entries.count, duration: ContinuousClock.now - start)
            metrics.version(space: space, response.hubVersion)
            SyncHubRequestRecord.current?.update { $0.refusedEntries = (response.refused ?? []).map(\.reason.rawValue) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(response))))
        }
    }
    router.get("spaces/:space/pull") { request, context -> Response in
        try await readingReplica(request, context, authentication) { space, replicaID in
            let query = request.uri.queryParameters
            guard let pull = try pullRequest(query, space: space, replicaID: replicaID) else { return answer(.badRequest, .refused("after must be a version")) }
            let after = pull.after
            let waitMilliseconds = query.get("wait").flatMap { Int($0) }.map { max(0, $0) } ?? 0
            let wait = min(Duration.milliseconds(waitMilliseconds), limits.maximumPullWait)
            let caller = await authentication.caller(token: bearerToken(request))
            var response = try await hub.pullTogether(pull, caller: caller)
            metrics.pulled(space: space)
            // Only a poll that would wait takes a place; when the space or the token has all
            // theirs taken, it is told to come back (503, Retry-After), never queued.
            let waits = response.entries.isEmpty && !response.snapshotNeeded && wait > .zero
            let token = bearerToken(request)
            if waits {
                guard polls.enter(space: space, token: token, limits: limits) else {
                    var refusal = answer(.serviceUnavailable, .refused("too many long polls on \(space) or with this token; retry in a second"))
                    refusal.headers[.retryAfter] = "1"
                    return refusal
                }
            }
            if waits { metrics.waitingPolls(space: space, change: 1) }
            defer {
                if waits {
                    polls.leave(space: space, token: token)
                    metrics.waitingPolls(space: space, change: -1)
                }
            }
            let deadline = ContinuousClock.now + wait
            // Woken by the push that commits a newer version (no polling), or at the deadline.
            while response.entries.isEmpty, !response.snapshotNeeded, !response.hubRolledBack, ContinuousClock.now < deadline {
                try await hub.waitForVersion(ofSpace: space, after: after, timeout: deadline - ContinuousClock.now)
                response = try await hub.pullTogether(pull, caller: caller)
            }
            SyncHubRequestRecord.current?.update { $0.entries = response.entries.count }
            return Response(
                status: .ok, headers: [.contentType: "application/vnd.strata.sync"],
                body: .init(byteBuffer: ByteBuffer(bytes: try SyncWire.encode(response))))
        }
    }
    router.get("spaces/:space/stream") { request, context -> Response in
        try await readingReplica(request, context, authentication) { space, replicaID in
            guard let pull = try pullRequest(request.uri.queryParameters, space: space, replicaID: replicaID) else {
                return answer(.badRequest, .refused("after must be a version"))
            }
            let token = bearerToken(request)
            let caller = await authentication.caller(token: token)
            // The opening answer is read before the response starts, so a refusal (an unknown
            // space, another schema) is a status like a pull's, not a frame.
            let first = try await hub.pullTogether(pull, caller: caller)
            metrics.pulled(space: space)
            guard polls.enter(space: space, token: token, limits: limits) else {
                var refusal = answer(.serviceUnavailable, .refused("too many long polls and streams on \(space) or with this token; retry in a second"))
                refusal.headers[.retryAfter] = "1"
                return refusal
            }
            metrics.waitingPolls(space: space, change: 1)
            // Left when the body ends, or when the response is dropped unwritten.
            let place = StreamPlace(polls: polls, metrics: metrics, space: space, token: token)
            let heartbeat = limits.streamHeartbeat
            let deadline = ContinuousClock.now + limits.maximumStreamDuration
            return Response(
                status: .ok, headers: [.contentType: SyncWire.pullStreamContentType, .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    try await withGracefulShutdownHandler {
                        try await hub.followPulls(
                            pull, caller: caller, first: first, heartbeat: heartbeat, until: deadline, ending: { place.isEnding }
                        ) { frame in
                            // A token refused now (expired, revoked) ends the stream: no frame
                            // goes out under it.
                            if frame != nil, await authentication.refusal(token: token, space: space, replica: replicaID, writes: false) != nil {
                                return false
                            }
                            let bytes = try frame.map { try SyncWire.encodeStreamEvent($0) } ?? SyncWire.streamHeartbeat
                            try await writer.write(ByteBuffer(bytes: bytes))
                            return true
                        }
                    } onGracefulShutdown: {
                        // The server waits for every response to end: a stream ends at once.
                        place.end()
                        hub.wakeEverySpace()
                    }
                    withExtendedLifetime(place) {}
                    try await writer.finish(nil)
                })
        }
    }
    router.get("spaces/:space/snapshot") { request, context -> Response in
        try await readingReplica(request, context, authentication) { space, replicaID in
            let query = request.uri.queryParameters
            let snapshotRequest = SyncSnapshotRequest(
                space: space, replicaID: replicaID,
                tables: (query.get("tables") ?? "").split(separator: ",").map(String.init),
                schemaFingerprint: query.get("fingerprint") ?? "",
                subscriptions: try SyncWire.decodeSubscriptionsQuery(query.get("subscriptions")),
                minimumPriority: query.get("priority").flatMap { Int($0) })
            let caller = await authentication.caller(token: bearerToken(request))
            let snapshot = try await offTheCooperativePool { try hub.snapshot(snapshotRequest, caller: caller) }
            return Response(
                status: .ok, headers: [.contentType: "application/vnd.strata.sync"],
                body: .init(byteBuffer: ByteBuffer(bytes: try SyncWire.encode(snapshot))))
        }
    }
    return router
}

/// Runs the hub's blocking `body` on a thread of its own, not one of Swift's cooperative pool
/// (one per core): a push waits on its space's queue for its turn, and a snapshot reads the whole
/// view. On the pool, two pushes waiting for one space held both threads of a 2-core machine, and
/// every other request stood still behind them (measured: 15 to 19% more changes/s off it).
private func offTheCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        blockingHubWork.async { continuation.resume(with: Result { try body() }) }
    }
}

private let blockingHubWork = DispatchQueue(label: "strata.sync-hub.blocking", attributes: .concurrent)

/// A pull's request from its query items; nil when `after` is not a version.
private func pullRequest(_ query: Parameters, space: String, replicaID: String) throws -> SyncPullRequest? {
    guard let after = query.get("after").flatMap({ Int64($0) }), after >= 0 else { return nil }
    return SyncPullRequest(
        space: space, replicaID: replicaID,
        tables: (query.get("tables") ?? "").split(separator: ",").map(String.init),
        schemaFingerprint: query.get("fingerprint") ?? "", after: after,
        limit: query.get("limit").flatMap { Int($0) }.map { min(max($0, 1), 1_000) } ?? 500,
        afterChain: query.get("chain").flatMap { Int64($0) },
        lastAcknowledged: query.get("acked").flatMap { Int64($0) },
        subscriptions: try SyncWire.decodeSubscriptionsQuery(query.get("subscriptions")),
        minimumPriority: query.get("priority").flatMap { Int($0) }, countsViewRows: query.get("count") == "1",
        appliedView: query.get("view"))
}

/// A stream's place among the waiting polls, given back exactly once: when the stream ends, or
/// when its response is dropped before the body ran (the client left first).
private final class StreamPlace: Sendable {
    private let polls: PollCounts
    private let metrics: SyncHubMetrics
    private let space: String
    private let token: String?
    private let ending = Atomic<Bool>(false)

    init(polls: PollCounts, metrics: SyncHubMetrics, space: String, token: String?) {
        self.polls = polls
        self.metrics = metrics
        self.space = space
        self.token = token
    }

    var isEnding: Bool { ending.load(ordering: .relaxed) }
    func end() { ending.store(true, ordering: .relaxed) }

    deinit {
        polls.leave(space: space, token: token)
        metrics.waitingPolls(space: space, change: -1)
    }
}

/// How the GET routes start: the space and replica the request names, refused unless its token
/// may read them; then `body`, with the hub's errors answered as every route answers them.
private func readingReplica(
    _ request: Request, _ context: SyncHubRequestContext, _ authentication: SyncHubAuthentication,
    _ body: (_ space: String, _ replicaID: String) async throws -> Response
) async throws -> Response {
    let space = context.parameters.get("space") ?? ""
    let replicaID = request.uri.queryParameters.get("replica") ?? ""
    SyncHubRequestRecord.current?.update {
        $0.space = space; $0.replica = replicaID
    }
    if let refusal = await authentication.refusal(token: bearerToken(request), space: space, replica: replicaID, writes: false) {
        return refusal
    }
    return try await answeringHubErrors { try await body(space, replicaID) }
}

/// A hub refusal as its status with the error's JSON, a store failure that passes as 503, and
/// any other failure as 500 with a `SyncErrorAnswer` too: a replica always gets words to show
/// and log, never an empty 500 from the router.
private func answeringHubErrors(_ body: () async throws -> Response) async throws -> Response {
    do {
        return try await body()
    } catch let error as SyncError {
        return answer(status(of: error), error)
    } catch let error as SyncHubStoreUnavailable {
        return unavailable(error)
    } catch is CancellationError {
        throw CancellationError()
    } catch {
        return answer(.internalServerError, .refused("the hub failed on this request: \(String(describing: error))"))
    }
}

/// The header a replica names itself in on a push (lower case, as header names compare), so the
/// token is checked before the body is read.
public let syncReplicaHeader = "strata-replica"

private func bearerToken(_ request: Request) -> String? {
    // The scheme is case-insensitive (RFC 9110): `bearer` and `BEARER` are the same; compared on
    // ASCII bytes, not Characters.
    guard let value = request.headers[.authorization] else { return nil }
    let bytes = Array(value.utf8)
    let scheme = Array("bearer ".utf8)
    guard bytes.count >= scheme.count, zip(bytes, scheme).allSatisfy({ $1 == 0x20 ? $0 == 0x20 : ($0 | 0x20) == $1 }) else { return nil }
    return String(decoding: bytes[scheme.count...], as: UTF8.self)
}

private func status(of error: SyncError) -> HTTPResponse.Status {
    switch error {
    case .unknownSpace: return .notFound
    case .schemaMismatch: return .conflict
    case .tableNeedsGlobalKey, .refused, .entryRefused, .entriesRefused, .nullKey, .invalidRules: return .unprocessableContent
    case .duplicateEntry: return .conflict
    case .hubUnreachable: return .badGateway
    case .schemaChangeRefused: return .conflict
    case .accessDenied(let denial): return denial.status == 401 ? .unauthorized : .forbidden
    case .tooLarge: return .contentTooLarge
    case .spaceChanged: return .conflict
    }
}

/// A store failure that passes, as 503 with `Retry-After`: the transport sends the request again.
func unavailable(_ error: SyncHubStoreUnavailable) -> Response {
    var response = answer(.serviceUnavailable, .refused(error.description))
    SyncHubRequestRecord.current?.update { $0.reason = "storeUnavailable" }
    response.headers[.retryAfter] = "1"
    return response
}

func answer(_ status: HTTPResponse.Status, _ error: SyncError) -> Response {
    SyncHubRequestRecord.refuse(error)
    let body = (try? JSONEncoder().encode(SyncErrorAnswer(error))) ?? Data()
    return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
}

/// Whether `given` is `expected`, comparing their UTF-8 bytes in time that depends on the
/// lengths only (a token compared with `==` stops at the first differing byte, which a timing
/// attacker can measure).
public func tokenMatches(_ given: String?, _ expected: String) -> Bool {
    guard let given else { return false }
    let a = Array(given.utf8), b = Array(expected.utf8)
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
        difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0
}
#endif
