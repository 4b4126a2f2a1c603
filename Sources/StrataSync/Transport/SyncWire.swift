// The network form of pushes and pulls: a JSON header (4-byte big-endian length first), then
// the changesets' raw bytes back to back, so changesets travel as bytes, not base64 in JSON.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Strata

/// Encodes and decodes ``SyncPushRequest`` and ``SyncPullResponse`` bodies for a network
/// transport; every length is checked, so damaged or hostile bytes throw ``SyncError/refused(_:)``.
public enum SyncWire {
    /// The largest JSON header accepted (the changesets come after it).
    public static let maximumHeaderBytes = 1 << 20

    private struct PushHeader: Codable {
        var space: String, replicaID: String, tables: [String], schemaFingerprint: String
        var entries: [Entry]
        // Optional, and left out when nil: a hub from before users were named reads the header as before.
        var user: String?
        var formerReplicaIDs: [String]?
        var subscriptions: [SyncSubscription]?
        struct Entry: Codable { var sequence: Int64; var count: Int }
    }

    private struct PullHeader: Codable {
        var hubVersion: Int64
        var snapshotNeeded: Bool?
        var hubRolledBack: Bool?
        var entries: [Entry]
        var user: String?
        var rulesVersion: Int64?
        var viewRows: Int?
        var view: String?
        struct Entry: Codable { var version: Int64; var replicaID: String; var sequence: Int64; var count: Int; var chain: Int64? }
    }

    /// A push request's network body.
    public static func encode(_ request: SyncPushRequest) throws -> Data {
        let header = PushHeader(
            space: request.space, replicaID: request.replicaID, tables: request.tables,
            schemaFingerprint: request.schemaFingerprint,
            entries: request.entries.map { .init(sequence: $0.sequence, count: $0.changeset.count) }, user: request.user,
            formerReplicaIDs: request.formerReplicaIDs, subscriptions: request.subscriptions)
        return try frame(header, request.entries.map(\.changeset))
    }

    /// The bytes a push body takes with no entries: what a replica counts against its limit
    /// besides each entry's ``pushEntryBytes(sequence:changesetBytes:)``, so that what it sends
    /// is what a hub's body limit counts.
    static func pushBodyBytes(
        space: String, replicaID: String, tables: [String], schemaFingerprint: String, user: String? = nil,
        formerReplicaIDs: [String]? = nil, subscriptions: [SyncSubscription]? = nil
    ) -> Int {
        let header = PushHeader(
            space: space, replicaID: replicaID, tables: tables, schemaFingerprint: schemaFingerprint, entries: [], user: user,
            formerReplicaIDs: formerReplicaIDs, subscriptions: subscriptions)
        return 4 + ((try? JSONEncoder().encode(header).count) ?? 0)
    }

    /// The bytes one entry adds to a push body: its changeset, its part of the header, a comma.
    static func pushEntryBytes(sequence: Int64, changesetBytes: Int) -> Int {
        changesetBytes + 1 + ((try? JSONEncoder().encode(PushHeader.Entry(sequence: sequence, count: changesetBytes)).count) ?? 64)
    }

    /// The subscriptions a pull or snapshot URL's `subscriptions` item carries (nil: none).
    /// - Throws: ``SyncError/refused(_:)`` when the item is not base64url JSON of subscriptions.
    package static func decodeSubscriptionsQuery(_ value: String?) throws -> [SyncSubscription]? {
        guard let value, !value.isEmpty else { return nil }
        guard value.utf8.count <= SyncSubscription.maximumEncodedBytes else {
            throw SyncError.refused("the subscriptions take \(value.utf8.count) bytes, past the \(SyncSubscription.maximumEncodedBytes) a request carries")
        }
        guard let data = data(fromBase64URL: value), let subscriptions = try? JSONDecoder().decode([SyncSubscription].self, from: data) else {
            throw SyncError.refused("the subscriptions item is not base64url JSON of subscriptions")
        }
        return subscriptions
    }

    /// `data` in base64url without padding (RFC 4648, section 5), as JWTs and query items carry it.
    package static func base64URL(_ data: Data) -> String { String(decoding: base64URLBytes(data), as: UTF8.self) }

    /// ``base64URL(_:)`` as bytes: the alphabet's two letters swapped and the padding dropped.
    static func base64URLBytes(_ data: Data) -> [UInt8] {
        let base64 = data.base64EncodedData()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(base64.count)
        base64.withUnsafeBytes { base64 in
            for byte in base64 where byte != UInt8(ascii: "=") {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte)
            }
        }
        return bytes
    }

    /// The bytes base64url `text` (padded or not) holds; nil when it is not base64url.
    package static func data(fromBase64URL text: some StringProtocol) -> Data? { data(fromBase64URLBytes: text.utf8) }

    /// The bytes base64url `text` (padded or not) holds, read from its bytes; nil when it is not
    /// base64url.
    package static func data(fromBase64URLBytes text: some Collection<UInt8>) -> Data? {
        var bytes = Data(capacity: text.count + 3)
        for byte in text {
            bytes.append(byte == UInt8(ascii: "-") ? UInt8(ascii: "+") : byte == UInt8(ascii: "_") ? UInt8(ascii: "/") : byte)
        }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4))
        return Data(base64Encoded: bytes)
    }

    /// A push request from its network body, every length checked.
    public static func decodePushRequest(_ data: Data) throws -> SyncPushRequest {
        let (header, body): (PushHeader, Data) = try unframe(data)
        let changesets = try split(body, counts: header.entries.map(\.count))
        return SyncPushRequest(
            space: header.space, replicaID: header.replicaID, tables: header.tables, schemaFingerprint: header.schemaFingerprint,
            entries: zip(header.entries, changesets).map { SyncOutboxEntry(sequence: $0.sequence, changeset: $1) },
            user: header.user, formerReplicaIDs: header.formerReplicaIDs, subscriptions: header.subscriptions)
    }

    /// A pull answer's network body. Its header is written by hand, not by `JSONEncoder`: a
    /// commit has the hub encode one for every waiting replica, and the encoder took most of a
    /// stream's frame (the same JSON; `PullHeader` decodes it).
    public static func encode(_ response: SyncPullResponse) throws -> Data {
        var json: [UInt8] = []
        json.reserveCapacity(64 + response.entries.count * 96)
        func key(_ name: String, first: Bool = false) {
            if !first { json.append(UInt8(ascii: ",")) }
            JSONText.append(name, to: &json)
            json.append(UInt8(ascii: ":"))
        }
        func number(_ value: some BinaryInteger) { json += String(value).utf8 }
        json.append(UInt8(ascii: "{"))
        key("hubVersion", first: true)
        number(response.hubVersion)
        if response.snapshotNeeded { key("snapshotNeeded"); json += "true".utf8 }
        if response.hubRolledBack { key("hubRolledBack"); json += "true".utf8 }
        key("entries")
        json.append(UInt8(ascii: "["))
        for (index, entry) in response.entries.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "{"))
            key("version", first: true)
            number(entry.version)
            key("replicaID")
            JSONText.append(entry.replicaID, to: &json)
            key("sequence")
            number(entry.sequence)
            key("count")
            number(entry.changeset.count)
            if let chain = entry.chain { key("chain"); number(chain) }
            json.append(UInt8(ascii: "}"))
        }
        json.append(UInt8(ascii: "]"))
        if let user = response.user { key("user"); JSONText.append(user, to: &json) }
        if let rulesVersion = response.rulesVersion { key("rulesVersion"); number(rulesVersion) }
        if let viewRows = response.viewRows { key("viewRows"); number(viewRows) }
        if let view = response.view { key("view"); JSONText.append(view, to: &json) }
        json.append(UInt8(ascii: "}"))
        return frame(json: json, response.entries.map(\.changeset))
    }

    /// A pull answer from its network body, every length checked.
    public static func decodePullResponse(_ data: Data) throws -> SyncPullResponse {
        let (header, body): (PullHeader, Data) = try unframe(data)
        let changesets = try split(body, counts: header.entries.map(\.count))
        return SyncPullResponse(
            entries: zip(header.entries, changesets).map {
                SyncLogEntry(version: $0.version, replicaID: $0.replicaID, sequence: $0.sequence, changeset: $1, chain: $0.chain)
            }, hubVersion: header.hubVersion, snapshotNeeded: header.snapshotNeeded ?? false, hubRolledBack: header.hubRolledBack ?? false,
            user: header.user, rulesVersion: header.rulesVersion, viewRows: header.viewRows, view: header.view)
    }

    private struct SnapshotHeader: Codable {
        var version: Int64
        var count: Int
        var chain: Int64?
        var view: String?
    }

    /// A snapshot's network body (its version, then the image's bytes).
    public static func encode(_ snapshot: SyncSnapshot) throws -> Data {
        try frame(
            SnapshotHeader(version: snapshot.version, count: snapshot.database.count, chain: snapshot.chain, view: snapshot.view), [snapshot.database])
    }

    /// A snapshot from its network body, every length checked.
    public static func decodeSnapshot(_ data: Data) throws -> SyncSnapshot {
        let (header, body): (SnapshotHeader, Data) = try unframe(data)
        guard header.version >= 0 else { throw SyncError.refused("the snapshot's version \(header.version) is negative") }
        let image = try split(body, counts: [header.count])[0]
        return SyncSnapshot(version: header.version, database: Data(image), chain: header.chain, view: header.view)
    }

    private static func frame<Header: Encodable>(_ header: Header, _ payloads: [Data]) throws -> Data {
        frame(json: Array(try JSONEncoder().encode(header)), payloads)
    }

    /// The 4-byte big-endian length, the JSON header, then the payloads back to back.
    private static func frame(json: [UInt8], _ payloads: [Data]) -> Data {
        var data = Data(capacity: 4 + json.count + payloads.reduce(0) { $0 + $1.count })
        let count = UInt32(json.count)
        data.append(contentsOf: [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
        data.append(contentsOf: json)
        for payload in payloads { data.append(payload) }
        return data
    }

    private static func unframe<Header: Decodable>(_ data: Data) throws -> (Header, Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 4 else { throw SyncError.refused("a sync body needs a 4-byte header length") }
        let count = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard count <= maximumHeaderBytes, count <= bytes.count - 4 else { throw SyncError.refused("the sync header length \(count) is out of range") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[4..<(4 + count)]))
        } catch {
            throw SyncError.refused("the sync header is not valid: \(error)")
        }
        return (header, Data(bytes[(4 + count)...]))
    }

    private static func split(_ body: Data, counts: [Int]) throws -> [Data] {
        var total = 0
        for count in counts {
            let (sum, overflow) = total.addingReportingOverflow(count)
            guard count >= 0, !overflow, sum <= body.count else {
                throw SyncError.refused("the changesets' lengths do not add up to the body's \(body.count) bytes")
            }
            total = sum
        }
        guard total == body.count else {
            throw SyncError.refused("the changesets' lengths do not add up to the body's \(body.count) bytes")
        }
        var parts: [Data] = []
        var start = body.startIndex
        for count in counts {
            parts.append(body[start..<(start + count)])
            start += count
        }
        return parts
    }
}

/// A transport to a hub over HTTP (`strata-sync-hub`, or `StrataSyncHub` in a server): URLSession
/// on every platform (FoundationNetworking's on Linux), no NIO on the device. Network failures are retried with backoff; the hub's refusals are thrown as
/// the ``SyncError`` it names.
public struct HTTPSyncTransport: SyncTransport {
    /// The hub's base URL (`/spaces/...` is appended).
    public let url: URL
    /// The bearer token sent with every request, if any.
    public let token: String?
    /// Attempts per request for failures that may pass (no connection, a 5xx answer).
    public var attempts = 4
    /// How long a pull waits on the hub for a newer version when there is none (a long poll).
    public var pullWait: Duration = .zero
    /// Whether a replica's sync loop holds a pull stream (``pullStream(_:)``) on which the hub
    /// sends each new version as it commits, rather than long polling: a write then costs each
    /// waiting replica one frame instead of an answer and a new request. A hub without the
    /// stream route (older than streams) is long polled as before.
    public var streamsPulls = false

    /// One session for every transport of the process, made once and never released (a
    /// session per transport crashed on release in swift-corelibs-foundation): a push must never
    /// queue behind long polls for a free connection, as it did on `URLSession.shared` (six
    /// connections per host, which the long polls of a few replicas in one process fill;
    /// measured: commit-to-visible latency followed the poll's wait, p50 4 s with a 5 s wait).
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 256
        configuration.timeoutIntervalForRequest = 120
        return URLSession(configuration: configuration)
    }()

    /// The user this transport signs in as: `user` when given, else the `sub` claim of a JWT
    /// `token` (the user the hub will see: it verifies the token and takes `sub`), else nil (a
    /// shared token, or none). A replica opened with it credits its writes to that user from
    /// the start, so after another user signs in on the same file neither user's writes are
    /// taken for the other's while the hub's first answer is still on its way.
    public var signedInUser: String? { user ?? Self.subject(ofJWT: token) }

    /// The user named when the transport was made (``signedInUser`` reads the token otherwise).
    public let user: String?

    /// A transport to the hub at `url`, authenticating with `token`; `user` names the user the
    /// token signs in as, where it is not a JWT whose `sub` says so.
    public init(url: URL, token: String? = nil, user: String? = nil) {
        self.url = url
        self.token = token
        self.user = user
    }

    /// The `sub` claim of a JWT (header.payload.signature, base64url), unverified: the hub
    /// verifies; this only predicts whom it will name. Nil for anything that is not a JWT.
    static func subject(ofJWT token: String?) -> String? {
        guard let token else { return nil }
        let parts = Array(token.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = String(
            decoding: parts[1].map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 },
            as: UTF8.self)
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64),
            let claims = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any],
            let subject = claims["sub"] as? String, !subject.isEmpty
        else { return nil }
        return subject
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        var urlRequest = URLRequest(url: spaceURL(request.space, "push"))
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = try SyncWire.encode(request)
        urlRequest.setValue("application/vnd.strata.sync", forHTTPHeaderField: "Content-Type")
        // The hub checks the token for this replica before it reads the body.
        urlRequest.setValue(request.replicaID, forHTTPHeaderField: "Strata-Replica")
        let data = try await send(urlRequest)
        do {
            return try JSONDecoder().decode(SyncPushResponse.self, from: data)
        } catch {
            throw SyncError.refused("the hub's push answer is not valid: \(error)")
        }
    }

    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        // Clamped before the arithmetic: a wait meant as "for ever" (`.seconds(Int64.max)`) would
        // overflow it, and the hub caps every wait at its own maximum anyway.
        let wait = min(max(pullWait, .zero), .seconds(86_400))
        let waitMilliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        let pullURL = try self.pullURL(request, action: "pull", extra: [URLQueryItem(name: "wait", value: String(waitMilliseconds))])
        return try SyncWire.decodePullResponse(try await send(URLRequest(url: pullURL)))
    }

    /// The URL of `action` (`pull`, `stream`) for `request`, with `extra` query items after the
    /// request's own.
    func pullURL(_ request: SyncPullRequest, action: String, extra: [URLQueryItem] = []) throws -> URL {
        var components = URLComponents(url: spaceURL(request.space, action), resolvingAgainstBaseURL: false)
        components?.queryItems =
            [
                URLQueryItem(name: "replica", value: request.replicaID),
                URLQueryItem(name: "tables", value: request.tables.joined(separator: ",")),
                URLQueryItem(name: "fingerprint", value: request.schemaFingerprint),
                URLQueryItem(name: "after", value: String(request.after)),
                URLQueryItem(name: "limit", value: String(request.limit))
            ] + extra
            + (request.afterChain.map { [URLQueryItem(name: "chain", value: String($0))] } ?? [])
            + (request.lastAcknowledged.map { [URLQueryItem(name: "acked", value: String($0))] } ?? [])
            + (try Self.subscriptionsQuery(request.subscriptions))
            + (request.minimumPriority.map { [URLQueryItem(name: "priority", value: String($0))] } ?? [])
            + (request.countsViewRows ? [URLQueryItem(name: "count", value: "1")] : [])
            + (request.appliedView.map { [URLQueryItem(name: "view", value: $0)] } ?? [])
        guard let pullURL = components?.url else { throw SyncError.refused("cannot make a \(action) URL from \(url)") }
        return pullURL
    }

    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
        var components = URLComponents(url: spaceURL(request.space, "snapshot"), resolvingAgainstBaseURL: false)
        components?.queryItems =
            [
                URLQueryItem(name: "replica", value: request.replicaID),
                URLQueryItem(name: "tables", value: request.tables.joined(separator: ",")),
                URLQueryItem(name: "fingerprint", value: request.schemaFingerprint)
            ] + (try Self.subscriptionsQuery(request.subscriptions))
            + (request.minimumPriority.map { [URLQueryItem(name: "priority", value: String($0))] } ?? [])
        guard let snapshotURL = components?.url else { throw SyncError.refused("cannot make a snapshot URL from \(url)") }
        return try SyncWire.decodeSnapshot(try await send(URLRequest(url: snapshotURL)))
    }

    /// The `subscriptions` query item (JSON in base64url, so no query decoding can change a
    /// `+`), none without subscriptions.
    package static func subscriptionsQuery(_ subscriptions: [SyncSubscription]?) throws -> [URLQueryItem] {
        guard let subscriptions, !subscriptions.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return [URLQueryItem(name: "subscriptions", value: SyncWire.base64URL(try encoder.encode(subscriptions)))]
    }

    private func spaceURL(_ space: String, _ action: String) -> URL {
        url.appendingPathComponent("spaces").appendingPathComponent(space).appendingPathComponent(action)
    }

    private func send(_ request: URLRequest) async throws -> Data {
        var request = request
        if let token { request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
        var delay: Duration = .milliseconds(50)
        for attempt in 1...max(1, attempts) {
            // A cancelled caller sends nothing more.
            try Task.checkCancellation()
            do {
                let (data, response) = try await Self.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if (200..<300).contains(status) { return data }
                let message = String(decoding: data, as: UTF8.self)
                if status >= 500, attempt < attempts {
                    try await Task.sleep(for: delay)
                    delay *= 2
                    continue
                }
                throw Self.error(status: status, message: message)
            } catch let error as SyncError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard attempt < attempts else {
                    throw SyncError.hubUnreachable(url: url.absoluteString, reason: Self.words(for: error, attempts: attempts))
                }
                try await Task.sleep(for: delay)
                delay *= 2
            }
        }
        throw SyncError.hubUnreachable(url: url.absoluteString, reason: "no answer after \(attempts) attempts")
    }

    #if canImport(FoundationNetworking)
    /// `URLSession.data(for:)` without its deadlock on Linux: swift-corelibs-foundation's cancels
    /// the request while holding the Swift task's status lock and waits for the session's queue,
    /// while that queue, answering the request, waits for the same lock to resume the task
    /// (swift-corelibs-foundation #5412, fixed after Swift 6.3.1). A sync loop stopped as a long
    /// poll's answer arrived hung both threads. Here the cancel reaches the session from a
    /// dispatch queue, after the lock is released.
    private static func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let pending = PendingRequest()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        // Only a cancel of ours is the caller's cancellation; any other is a failure.
                        let cancelled = (error as? URLError)?.code == .cancelled && pending.isCancelled
                        continuation.resume(throwing: cancelled ? CancellationError() : error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                pending.start(task)
            }
        } onCancel: {
            DispatchQueue.global().async { pending.cancel() }
        }
    }

    /// A request's task and whether its Swift task was cancelled, whichever came first.
    private final class PendingRequest: Sendable {
        private let state = Locked<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

        func start(_ task: URLSessionDataTask) {
            let cancelled = state.withLock { state in
                state.task = task
                return state.cancelled
            }
            task.resume()
            if cancelled { task.cancel() }
        }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                return state.task
            }?.cancel()
        }

        var isCancelled: Bool { state.withLock { $0.cancelled } }
    }
    #else
    /// Foundation's own, with a cancel of the caller's task thrown as `CancellationError` (it
    /// throws `URLError.cancelled`), as on Linux.
    private static func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        do {
            return try await session.data(for: request)
        } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
            throw CancellationError()
        }
    }
    #endif

    /// What a network failure was, in words (Foundation's `URLError` prints as a domain and a code).
    static func words(for error: any Error, attempts: Int) -> String {
        let what: String
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost: what = "the connection was refused (is the hub running on that port?)"
            case .cannotFindHost, .dnsLookupFailed: what = "the host name does not resolve"
            case .timedOut: what = "the request timed out"
            case .networkConnectionLost: what = "the connection was lost mid-request"
            case .notConnectedToInternet: what = "there is no network connection"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
                what = "the TLS connection failed (\(error.localizedDescription))"
            default: what = "network error \(error.code.rawValue) (\(error.localizedDescription))"
            }
        } else {
            what = String(describing: error)
        }
        return what + ", \(attempts) attempt\(attempts == 1 ? "" : "s")"
    }

    /// The hub's answer as the error it stands for: its body is the error's JSON. A 401 or 403
    /// is always ``SyncError/accessDenied(_:)``, also from a proxy in front of the hub or an
    /// older hub that answers without a typed denial: `invalid` for 401, `forbiddenSpace` for 403.
    static func error(status: Int, message: String) -> SyncError {
        let decoded = message.data(using: .utf8).flatMap { try? JSONDecoder().decode(SyncErrorAnswer.self, from: $0) }
        if status == 401 || status == 403 {
            if let decoded, case .accessDenied = decoded.error { return decoded.error }
            let said = decoded?.message ?? (message.isEmpty ? "HTTP \(status)" : message)
            return .accessDenied(SyncAccessDenial(reason: status == 401 ? .invalid : .forbiddenSpace, status: status, message: said))
        }
        // A body limit is said as 413 whatever the words: the replica then sends less at a time.
        if status == 413 {
            if let decoded, case .tooLarge = decoded.error { return decoded.error }
            return .tooLarge(decoded?.message ?? "HTTP 413: \(message)")
        }
        if let decoded { return decoded.error }
        return .refused("HTTP \(status): \(message)")
    }
}

/// A ``SyncError`` as the hub's HTTP answer carries it.
public struct SyncErrorAnswer: Codable, Sendable {
    /// The error's case name.
    public var kind: String
    /// The table, for `tableNeedsGlobalKey`.
    public var table: String?
    /// The replica's fingerprint, for `schemaMismatch`.
    public var local: String?
    /// The hub's fingerprint, for `schemaMismatch`.
    public var remote: String?
    /// The space or the reason, for the other cases.
    public var message: String?
    /// The refused write, for `entryRefused`.
    public var refusal: SyncRefusal?
    /// The entry's sequence, for `duplicateEntry`.
    public var sequence: Int64?
    /// The column, for `nullKey`.
    public var column: String?
    /// Why the token was refused, for `accessDenied`.
    public var denial: SyncAccessDenial?
    /// The refused writes, for `entriesRefused`.
    public var refusals: [SyncRefusal]?

    /// The answer that carries `error`.
    public init(_ error: SyncError) {
        switch error {
        case .tableNeedsGlobalKey(let table): kind = "tableNeedsGlobalKey"; self.table = table
        case .schemaMismatch(let local, let remote): kind = "schemaMismatch"; self.local = local; self.remote = remote
        case .unknownSpace(let space): kind = "unknownSpace"; message = space
        case .refused(let reason): kind = "refused"; message = reason
        case .entryRefused(let refusal): kind = "entryRefused"; self.refusal = refusal; message = refusal.message
        case .entriesRefused(let refusals): kind = "entriesRefused"; self.refusals = refusals; message = error.description
        case .duplicateEntry(let replica, let sequence): kind = "duplicateEntry"; message = replica; self.sequence = sequence
        case .nullKey(let table, let column): kind = "nullKey"; self.table = table; self.column = column
        case .hubUnreachable(let url, let reason): kind = "hubUnreachable"; table = url; message = reason
        case .schemaChangeRefused(let space, let version, let reason):
            kind = "schemaChangeRefused"; table = space; sequence = Int64(version); message = reason
        case .accessDenied(let denial): kind = "accessDenied"; self.denial = denial; message = denial.message
        case .tooLarge(let reason): kind = "tooLarge"; message = reason
        case .spaceChanged(let from, let to, let pending): kind = "spaceChanged"; table = from; message = to; sequence = Int64(pending)
        case .invalidRules(let reason): kind = "invalidRules"; message = reason
        }
    }

    /// The error this answer carries.
    public var error: SyncError {
        switch kind {
        case "tableNeedsGlobalKey": return .tableNeedsGlobalKey(table: table ?? "")
        case "schemaMismatch": return .schemaMismatch(local: local ?? "", remote: remote ?? "")
        case "unknownSpace": return .unknownSpace(message ?? "")
        case "entryRefused": return refusal.map { .entryRefused($0) } ?? .refused(message ?? "")
        case "entriesRefused": return refusals.map { .entriesRefused($0) } ?? .refused(message ?? "")
        case "duplicateEntry": return .duplicateEntry(replicaID: message ?? "", sequence: sequence ?? 0)
        case "nullKey": return .nullKey(table: table ?? "", column: column ?? "")
        case "hubUnreachable": return .hubUnreachable(url: table ?? "", reason: message ?? "")
        case "schemaChangeRefused": return .schemaChangeRefused(space: table ?? "", version: Int(clamping: sequence ?? 0), reason: message ?? "")
        case "accessDenied": return denial.map { .accessDenied($0) } ?? .refused(message ?? "")
        case "tooLarge": return .tooLarge(message ?? "")
        case "spaceChanged": return .spaceChanged(from: table ?? "", to: message ?? "", pendingChanges: Int(clamping: sequence ?? 0))
        case "invalidRules": return .invalidRules(message ?? "")
        default: return .refused(message ?? "")
        }
    }
}
