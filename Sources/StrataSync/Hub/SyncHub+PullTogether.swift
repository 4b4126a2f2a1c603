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
            // A space's key is present while a caller answers its pulls; the others queue.
            let answers = pullsWaiting.withLock { spaces -> Bool in
                if spaces[request.space] != nil {
                    spaces[request.space, default: []].append(waiting)
                    return false
                }
                spaces[request.space] = []
                return true
            }
            guard answers else { return }
            answer([waiting], space: request.space)
            // This caller has its answer: the pulls that queued meanwhile are answered by a
            // task of their own, so that none waits on a caller's return.
            let queued = takeQueuedPulls(request.space)
            guard !queued.isEmpty else { return }
            Task { [self] in
                var batch = queued
                while !batch.isEmpty {
                    answer(batch, space: request.space)
                    batch = takeQueuedPulls(request.space)
                }
            }
        }
    }

    /// Up to ``largestPullBatch`` of the pulls queued on `name`, oldest first; when none is
    /// queued, none, and the space is no longer being answered.
    private func takeQueuedPulls(_ name: String) -> [WaitingPull] {
        pullsWaiting.withLock { spaces -> [WaitingPull] in
            let queued = spaces[name] ?? []
            guard !queued.isEmpty else {
                spaces[name] = nil
                return []
            }
            let taken = Array(queued.prefix(Self.largestPullBatch))
            spaces[name] = Array(queued.dropFirst(taken.count))
            return taken
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
                    do {
                        let request = pull.request
                        // Replicas on one schema send the same tables and fingerprint.
                        let key = request.schemaFingerprint + "\u{0}" + request.tables.joined(separator: "\u{0}")
                        let checked = widths[key] ?? Result { try storage.schemaWidths(tables: request.tables, fingerprint: request.schemaFingerprint) }
                        widths[key] = checked
                        switch try preparePull(request, caller: pull.caller, storage, widths: try checked.get()) {
                        case .answered(let response): results[index] = .success(response)
                        case .page(let widths): paged.append((index, widths))
                        }
                    } catch {
                        results[index] = .failure(error)
                    }
                }
                guard !paged.isEmpty else { return }
                try storage.read {
                    let reads = PullReads(HubSpace(storage: storage))
                    for (index, widths) in paged {
                        results[index] = Result { try pullPage(batch[index].request, widths: widths, reads) }
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
