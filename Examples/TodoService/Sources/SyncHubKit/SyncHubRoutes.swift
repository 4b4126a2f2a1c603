// StrataSync's hub on the network: Hummingbird routes over a `SyncHub`, in this package so that
// apps using Strata and StrataSync never fetch SwiftNIO.
import Foundation
import Hummingbird
import Logging
import NIOCore
import Strata
import StrataSync

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
    public init() {}
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
/// - `GET /spaces/:space/snapshot?replica=&tables=&fingerprint=`: the synced tables at the hub's
///   newest version as a ``SyncWire`` snapshot body (a database image), for a new replica or one
///   behind the trimmed log
/// Refusals answer with a status and a `SyncErrorAnswer` JSON body: 401 (no or wrong token),
/// 404 (unknown space), 409 (schema mismatch), 413 (too large), 400 (a damaged body), 422 (the
/// hub refused the changes, e.g. a foreign key).
///
/// `requestLogLevel` logs every request at that level (through the application's logger).
public func buildSyncHubRouter(hub: SyncHub, limits: SyncHubLimits = SyncHubLimits(), requestLogLevel: Logger.Level? = nil,
                               authorize: @escaping SyncHubAuthorizer = { _, _, _ in true }) -> Router<SyncHubRequestContext> {
    let router = Router(context: SyncHubRequestContext.self)
    // Middleware applies to the routes added after it.
    if let requestLogLevel { router.add(middleware: LogRequestsMiddleware(requestLogLevel)) }
    router.get("health") { _, _ in "ok" }
    router.post("spaces/:space/push") { request, context -> Response in
        let space = context.parameters.get("space") ?? ""
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limits.maximumBodyBytes)
        } catch {
            return answer(.contentTooLarge, .refused("a push body is limited to \(limits.maximumBodyBytes) bytes"))
        }
        let push: SyncPushRequest
        do {
            push = try SyncWire.decodePushRequest(Data(buffer.readableBytesView))
        } catch let error as SyncError {
            return answer(.badRequest, error)
        }
        guard push.space == space else { return answer(.badRequest, .refused("the body names space \(push.space), the URL \(space)")) }
        guard push.entries.count <= limits.maximumEntriesPerPush else {
            return answer(.contentTooLarge, .refused("a push is limited to \(limits.maximumEntriesPerPush) entries"))
        }
        guard authorize(bearerToken(request), space, push.replicaID) else { return answer(.unauthorized, .refused("not authorized for \(space)")) }
        do {
            let response = try hub.push(push)
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(response))))
        } catch let error as SyncError {
            return answer(status(of: error), error)
        }
    }
    router.get("spaces/:space/pull") { request, context -> Response in
        let space = context.parameters.get("space") ?? ""
        let query = request.uri.queryParameters
        let replicaID = query.get("replica") ?? ""
        guard authorize(bearerToken(request), space, replicaID) else { return answer(.unauthorized, .refused("not authorized for \(space)")) }
        guard let after = query.get("after").flatMap({ Int64($0) }), after >= 0 else { return answer(.badRequest, .refused("after must be a version")) }
        let limit = query.get("limit").flatMap { Int($0) }.map { min(max($0, 1), 1_000) } ?? 500
        let waitMilliseconds = query.get("wait").flatMap { Int($0) }.map { max(0, $0) } ?? 0
        let wait = min(Duration.milliseconds(waitMilliseconds), limits.maximumPullWait)
        let pull = SyncPullRequest(space: space, replicaID: replicaID,
                                   tables: (query.get("tables") ?? "").split(separator: ",").map(String.init),
                                   schemaFingerprint: query.get("fingerprint") ?? "", after: after, limit: limit,
                                   afterChain: query.get("chain").flatMap { Int64($0) },
                                   lastAcknowledged: query.get("acked").flatMap { Int64($0) })
        do {
            var response = try hub.pull(pull)
            let deadline = ContinuousClock.now + wait
            while response.entries.isEmpty, !response.snapshotNeeded, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                if try hub.version(ofSpace: space) > after { response = try hub.pull(pull) }
            }
            return Response(status: .ok, headers: [.contentType: "application/vnd.strata.sync"],
                            body: .init(byteBuffer: ByteBuffer(bytes: try SyncWire.encode(response))))
        } catch let error as SyncError {
            return answer(status(of: error), error)
        }
    }
    router.get("spaces/:space/snapshot") { request, context -> Response in
        let space = context.parameters.get("space") ?? ""
        let query = request.uri.queryParameters
        let replicaID = query.get("replica") ?? ""
        guard authorize(bearerToken(request), space, replicaID) else { return answer(.unauthorized, .refused("not authorized for \(space)")) }
        let snapshotRequest = SyncSnapshotRequest(space: space, replicaID: replicaID,
                                                  tables: (query.get("tables") ?? "").split(separator: ",").map(String.init),
                                                  schemaFingerprint: query.get("fingerprint") ?? "")
        do {
            let snapshot = try hub.snapshot(snapshotRequest)
            return Response(status: .ok, headers: [.contentType: "application/vnd.strata.sync"],
                            body: .init(byteBuffer: ByteBuffer(bytes: try SyncWire.encode(snapshot))))
        } catch let error as SyncError {
            return answer(status(of: error), error)
        }
    }
    return router
}

private func bearerToken(_ request: Request) -> String? {
    guard let value = request.headers[.authorization], value.hasPrefix("Bearer ") else { return nil }
    return String(value.dropFirst("Bearer ".count))
}

private func status(of error: SyncError) -> HTTPResponse.Status {
    switch error {
    case .unknownSpace: return .notFound
    case .schemaMismatch: return .conflict
    case .tableNeedsGlobalKey, .refused, .entryRefused, .nullKey: return .unprocessableContent
    case .duplicateEntry: return .conflict
    }
}

private func answer(_ status: HTTPResponse.Status, _ error: SyncError) -> Response {
    let body = (try? JSONEncoder().encode(SyncErrorAnswer(error))) ?? Data()
    return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
}
