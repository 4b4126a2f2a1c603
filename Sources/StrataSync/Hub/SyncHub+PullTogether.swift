// Pulls that arrive together on one space (the long polls one commit wakes) are answered in one
// turn of the space's connection and one read transaction, each log page read once per cursor:
// a thousand waiting replicas cost one read of the new entries, not a thousand pulls in a row.
import Foundation
import Strata

/// A pull waiting for its space's turn in ``SyncHub/pullTogether(_:caller:)``.
struct WaitingPull: Sendable {
    let request: SyncPullRequest
    let caller: SyncCaller
    let continuation: CheckedContinuation<SyncPullResponse, any Error>
}

/// The log as the pulls of one read transaction see it: each value read once, whoever asks.
/// Lives only inside that transaction (a value kept past it could be stale).
final class PullReads: PulledHistory {
    let space: HubSpace
    private var current: Int64?
    private var trimmed: Int64?
    private var chains: [Int64: Int64?] = [:]
    private var pages: [Page: [SyncLogEntry]] = [:]

    private struct Page: Hashable {
        let after: Int64
        let limit: Int
        let widths: [String: Int]?
    }

    init(_ space: HubSpace) { self.space = space }

    func currentVersion() throws -> Int64 {
        if let current { return current }
        let version = try space.currentVersion()
        current = version
        return version
    }

    func trimmedThrough() throws -> Int64 {
        if let trimmed { return trimmed }
        let version = try space.trimmedThrough()
        trimmed = version
        return version
    }

    func chain(at version: Int64) throws -> Int64? {
        if let known = chains[version] { return known }
        let chain = try space.chain(at: version)
        chains[version] = chain
        return chain
    }

    func isApplied(replica: String, sequence: Int64) throws -> Bool {
        try space.isApplied(replica: replica, sequence: sequence)
    }

    /// At most `limit` entries after `after`, each cut to `widths` (a replica on an earlier
    /// schema version).
    func entries(after: Int64, limit: Int, widths: [String: Int]?) throws -> [SyncLogEntry] {
        let page = Page(after: after, limit: limit, widths: widths)
        if let entries = pages[page] { return entries }
        var entries = try space.storage.entries(after: after, limit: limit)
        if let widths {
            for index in entries.indices {
                entries[index].changeset = try Changeset(data: entries[index].changeset).keepingLeadingColumns { widths[$0.lowercased()] }.data
            }
        }
        pages[page] = entries
        return entries
    }
}

/// What a pull asks of the log about a replica's history: whether the hub it pulled from is
/// still this one (``SyncHub/rolledBack(after:chain:replica:lastAcknowledged:_:)``).
protocol PulledHistory {
    func currentVersion() throws -> Int64
    func chain(at version: Int64) throws -> Int64?
    func isApplied(replica: String, sequence: Int64) throws -> Bool
}

extension HubSpace: PulledHistory {}

/// Where queued requests are served (see ``Gathering/join(_:_:serve:)``).
private let gatheringQueue = DispatchQueue(label: "strata.sync-hub.gathered", attributes: .concurrent)

/// Requests on one space that arrive while others on it are being served wait, and are then
/// served together, by one call of `serve` for up to `largest` of them: the first caller is
/// served alone and at once, those queued meanwhile on a dispatch queue, so none waits on a
/// caller's return.
final class Gathering<Item: Sendable>: Sendable {
    /// A space is a key while its requests are being served; its value, those queued.
    private let queued = Locked<[String: [Item]]>([:])
    let largest: Int

    init(largest: Int) { self.largest = largest }

    func join(_ key: String, _ item: Item, serve: @escaping @Sendable ([Item]) -> Void) {
        let serves = queued.withLock { spaces -> Bool in
            if spaces[key] != nil {
                spaces[key, default: []].append(item)
                return false
            }
            spaces[key] = []
            return true
        }
        guard serves else { return }
        serve([item])
        let next = take(key)
        guard !next.isEmpty else { return }
        // On a thread of its own, not Swift's cooperative pool (one thread per core): serving
        // blocks on the space's reads, and when the pool's threads are all blocked (sync pushes
        // waiting for the space, other callers' blocking work), a task there would leave the
        // queued pulls waiting on them.
        gatheringQueue.async { [self] in
            var batch = next
            while !batch.isEmpty {
                serve(batch)
                batch = take(key)
            }
        }
    }

    /// Up to `largest` of the requests queued on `key`, oldest first; when none is queued, none,
    /// and `key` is no longer being served.
    private func take(_ key: String) -> [Item] {
        queued.withLock { spaces -> [Item] in
            let waiting = spaces[key] ?? []
            guard !waiting.isEmpty else {
                spaces[key] = nil
                return []
            }
            let taken = Array(waiting.prefix(largest))
            spaces[key] = Array(waiting.dropFirst(taken.count))
            return taken
        }
    }

    /// How many wait on `key` behind the one being served; nil when none is being served.
    func queuedCount(_ key: String) -> Int? { queued.withLock { $0[key]?.count } }

    /// Whether no space is being served.
    var isIdle: Bool { queued.withLock { $0.isEmpty } }
}

extension SyncHub {
    /// The most pulls one read answers: the pulls behind them wait for the next, so a bound
    /// keeps the first one's answer from waiting on thousands.
    static let largestPullBatch = 512

    /// ``pull(_:caller:)`` for a caller that can wait its turn. The pulls on a space that arrive
    /// while one is being answered wait, and are then answered together: one turn of the space's
    /// connection, one read transaction, each cursor's page read once. Each gets exactly what
    /// it would get alone, its own error included.
    package func pullTogether(_ request: SyncPullRequest, caller: SyncCaller) async throws -> SyncPullResponse {
        try validateSpaceName(request.space)
        return try await withCheckedThrowingContinuation { continuation in
            let waiting = WaitingPull(request: request, caller: caller, continuation: continuation)
            pulls.join(request.space, waiting) { [self] batch in answer(batch, space: request.space) }
        }
    }

    /// ``version(ofSpace:)`` for a caller that can wait its turn: the long polls registering
    /// together share one read. A read is never shared with a caller that came after it began,
    /// so each sees every commit made before it asked.
    package func versionTogether(ofSpace name: String) async throws -> Int64 {
        try validateSpaceName(name)
        return try await withCheckedThrowingContinuation { continuation in
            versionReads.join(name, continuation) { [self] batch in
                let read = Result { try self.version(ofSpace: name) }
                for waiting in batch { waiting.resume(with: read) }
            }
        }
    }

    /// What `body` gives one pull: its own failure is its answer, while the store being
    /// unavailable (a space migrated meanwhile) fails the whole batch, which the store tries again.
    private static func ownOutcome<T>(_ body: () throws -> T) throws -> Result<T, any Error> {
        do {
            return .success(try body())
        } catch let unavailable as SyncHubStoreUnavailable {
            throw unavailable
        } catch {
            return .failure(error)
        }
    }

    /// Answers `batch`, pulls on the space `name`: those needing a page of the log from one read.
    private func answer(_ batch: [WaitingPull], space name: String) {
        var results = [Result<SyncPullResponse, any Error>?](repeating: nil, count: batch.count)
        do {
            try space(name) { storage in
                var widths: [String: Result<[String: Int]?, any Error>] = [:]
                var paged: [(index: Int, widths: [String: Int]?)] = []
                for (index, pull) in batch.enumerated() {
                    let prepared = try Self.ownOutcome { () throws -> PreparedPull in
                        let request = pull.request
                        // Replicas on one schema send the same tables and fingerprint.
                        let key = request.schemaFingerprint + "\u{0}" + request.tables.joined(separator: "\u{0}")
                        let checked = widths[key] ?? Result { try storage.schemaWidths(tables: request.tables, fingerprint: request.schemaFingerprint) }
                        widths[key] = checked
                        return try preparePull(request, caller: pull.caller, storage, widths: try checked.get())
                    }
                    switch prepared {
                    case .success(.answered(let response)): results[index] = .success(response)
                    case .success(.page(let widths)): paged.append((index, widths))
                    case .failure(let error): results[index] = .failure(error)
                    }
                }
                guard !paged.isEmpty else { return }
                try storage.read {
                    let reads = PullReads(HubSpace(storage: storage))
                    for (index, widths) in paged {
                        results[index] = try Self.ownOutcome { try pullPage(batch[index].request, widths: widths, reads) }
                    }
                }
            }
        } catch {
            // The space could not be read at all: every pull not answered yet hears why.
            for index in results.indices where results[index] == nil { results[index] = .failure(error) }
        }
        for (pull, result) in zip(batch, results) {
            pull.continuation.resume(with: result ?? .failure(SyncHubStoreUnavailable(reason: "the pull was left unanswered")))
        }
    }
}
