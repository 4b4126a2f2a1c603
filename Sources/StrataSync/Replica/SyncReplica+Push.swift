// Pushing the outbox: in order, in batches within the settings, a write held back with the refused
// write it builds on; what the hub acknowledged filed under the version it got.
import Foundation
import Strata

extension SyncReplica {
    /// Sends the outbox in order, in batches within ``SyncReplicaSettings``; what the hub
    /// acknowledged waits for the pull that reaches the version it got.
    /// A refused write is held: it stays pending and is not sent again until the app retries
    /// (``retry(_:)``) or discards it, or the space's rules change (it is then offered once more).
    /// - Throws: ``SyncError/entryRefused(_:)`` (one) or ``SyncError/entriesRefused(_:)`` (several)
    ///   once the rest is pushed, for each write refused by this push and not reported before
    ///   (see ``refusedChanges``): the hub's refusals, and writes larger than a push may carry;
    ///   `CancellationError` when the task is cancelled (checked between batches: what the hub
    ///   acknowledged is filed, the rest stays pending).
    public func push() async throws {
        try await pushing.run { try await self.pushOutbox() }
    }

    func pushOutbox() async throws {
        var after: Int64 = 0
        var refusals: [SyncRefusal] = []
        // The refusals already reported; those made under older rules are forgotten first, and
        // their writes offered again.
        let previous = try await database.write { connection -> [Int64: SyncRefusal] in
            let outbox = SyncOutbox(connection)
            if let rules: Int64 = try SyncStatus.state(Self.rulesVersionKey, connection) { try outbox.releaseRefusals(underRulesBefore: rules) }
            return try outbox.refusals().compactMapValues { try? JSONDecoder().decode(SyncRefusal.self, from: Data($0.utf8)) }
        }
        // Rows refused writes touched, and which write: a later write on one waits with it.
        var held: [String: Int64] = [:]
        let settings = self.settings
        var (writers, formerIDs, pushedUnderName, subscriptions) = try await database.read { connection in
            (
                try Self.writers(connection), try Self.formerReplicaIDs(connection),
                (try SyncStatus.state("pushed_under_name", connection) as Int64?) == 1, try Self.requestSubscriptions(connection)
            )
        }
        let formers = formerIDs.isEmpty ? nil : formerIDs
        // Counted as the hub counts a body (header and changesets), so a write just under the
        // setting is not answered 413 for its header's bytes (the longest user's, as a batch
        // carries one user's writes).
        let longest = ([writers.user] + writers.later.map(\.user)).compactMap { $0 }.max { $0.utf8.count < $1.utf8.count }
        let baseBytes = SyncWire.pushBodyBytes(
            space: space, replicaID: hubReplicaID, tables: tables, schemaFingerprint: fingerprint, user: longest,
            formerReplicaIDs: formers, subscriptions: subscriptions)
        // Lowered when the hub answers that a batch is too large (its limit below this
        // replica's settings): fewer writes at a time, down to one, which is then refused alone.
        var entryCap = max(1, settings.maximumPushEntries)
        func hold(_ entry: SyncOutboxEntry, for blocker: Int64) {
            for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = blocker }
        }
        while true {
            // Between batches: a cancelled caller (a stopping SyncLoop) gets its answer after
            // the request in flight, not after a backlog of thousands of writes is sent.
            try Task.checkCancellation()
            let batchLimit = entryCap
            let from = after
            // Who made each write is read again each batch: an answer (this push's, or a pull's
            // meanwhile) may have named a new user, whose writes since are theirs, not the one
            // read when this push began.
            let (candidates, current) = try await database.read { connection in
                (try SyncOutbox(connection).entries(after: from, limit: batchLimit), try Self.writers(connection))
            }
            writers = current
            guard !candidates.isEmpty else { break }
            var entries: [SyncOutboxEntry] = []
            var bytes = baseBytes
            for entry in candidates {
                // One user's writes a push: the hub checks each push's against its caller.
                if let first = entries.first, writers.user(of: entry.sequence) != writers.user(of: first.sequence) { break }
                // Held: refused and reported before; it is not sent again, and the rows it
                // touches hold the writes after it.
                if let refusal = previous[entry.sequence], Self.holds(refusal.reason) {
                    hold(entry, for: entry.sequence)
                    if entries.isEmpty { after = entry.sequence }
                    if entries.isEmpty { continue } else { break }
                }
                // (A batch cut short meets its last refused write again: it is not its own blocker.)
                let blocker = held.isEmpty ? nil : rowsTouched(by: entry.changeset).lazy.compactMap { held[$0] }.first { $0 != entry.sequence }
                if let blocker {
                    if entries.isEmpty { after = entry.sequence }
                    let refusal = SyncRefusal(
                        sequence: entry.sequence, reason: .dependsOnRefused, table: nil, key: nil,
                        message: "it changes a row that write \(blocker), refused, made or changed; it waits for that write")
                    refusals.append(refusal)
                    hold(entry, for: entry.sequence)
                    try await database.write { try Self.record([refusal], $0) }
                    if entries.isEmpty { continue } else { break }
                }
                let entryBytes = SyncWire.pushEntryBytes(sequence: entry.sequence, changesetBytes: entry.changeset.count)
                if baseBytes + entryBytes > settings.maximumPushBytes {
                    hold(entry, for: entry.sequence)
                    // Never pushable as it is: said by name, the rest goes on.
                    if entries.isEmpty { after = entry.sequence }
                    let refusal = SyncRefusal(
                        sequence: entry.sequence, reason: .tooLarge, table: nil, key: nil,
                        message: "the write takes \(baseBytes + entryBytes) bytes to send, over the \(settings.maximumPushBytes) a push may carry")
                    refusals.append(refusal)
                    try await database.write { try Self.record([refusal], $0) }
                    if entries.isEmpty { continue } else { break }
                }
                if !entries.isEmpty, bytes + entryBytes > settings.maximumPushBytes { break }
                bytes += entryBytes
                entries.append(entry)
            }
            guard let last = entries.last else { continue }
            if !pushedUnderName {
                // Noted before the request leaves: its answer may be lost after the hub applied
                // it, and a re-login must then name this ID to the hub (``formerReplicaIDs``).
                try await database.write { try SyncStatus.setState("pushed_under_name", .integer(1), $0) }
                pushedUnderName = true
            }
            let response: SyncPushResponse
            do {
                response = try await transport.push(
                    SyncPushRequest(
                        space: space, replicaID: hubReplicaID, tables: tables,
                        schemaFingerprint: fingerprint, entries: entries,
                        user: writers.user(of: last.sequence),
                        formerReplicaIDs: formers, subscriptions: subscriptions))
            } catch SyncError.tooLarge(let reason) {
                if entries.count > 1 {
                    entryCap = max(1, entries.count / 2)
                    continue
                }
                // One write the hub will never take at its limit: refused alone, the rest goes on.
                let entry = entries[0]
                after = entry.sequence
                hold(entry, for: entry.sequence)
                let refusal = SyncRefusal(
                    sequence: entry.sequence, reason: .tooLarge, table: nil, key: nil,
                    message: "the hub refused the write as too large: \(reason)")
                refusals.append(refusal)
                try await database.write { try Self.record([refusal], $0) }
                continue
            } catch SyncError.accessDenied(let denial) where denial.reason == .readOnly {
                // The token may only read: no write of this replica can ever be pushed. Each is
                // refused by name (an app discards it), and the pull goes on.
                let pending = try await database.read { try SyncOutbox($0).entries(after: from, limit: Int.max) }
                let readOnly = pending.map {
                    SyncRefusal(sequence: $0.sequence, reason: .readOnly, table: nil, key: nil, message: denial.message)
                }
                try await database.write { try Self.record(readOnly, $0) }
                refusals.append(contentsOf: readOnly)
                break
            }
            after = last.sequence
            // The hub committed these: filed even when the caller was cancelled meanwhile (a
            // cancelled database write would leave them to be sent, and answered, again).
            let batch = entries
            try await Task { try await self.acknowledge(batch, response) }.value
            for refusal in response.refused ?? [] {
                refusals.append(refusal)
                guard let entry = entries.first(where: { $0.sequence == refusal.sequence }) else { continue }
                hold(entry, for: refusal.sequence)
            }
        }
        // Each refusal once: what this push met that was not reported before.
        var fresh: [SyncRefusal] = []
        for refusal in refusals where previous[refusal.sequence] != refusal && !fresh.contains(refusal) { fresh.append(refusal) }
        if fresh.count == 1 { throw SyncError.entryRefused(fresh[0]) }
        if fresh.count > 1 { throw SyncError.entriesRefused(fresh) }
    }

    /// The state key of the newest rules version a hub answer named.
    static let rulesVersionKey = "rules_version"

    /// Whether a write refused for `reason` is held until retried, discarded or the rules
    /// change. A write waiting for a refused one, or made under another user, is tried at each
    /// push instead: it goes as soon as what held it is gone (reported once all the same).
    static func holds(_ reason: SyncRefusal.Reason) -> Bool {
        switch reason {
        case .dependsOnRefused, .userChanged: false
        default: true
        }
    }

    /// Keeps the newest rules version a hub answer named.
    static func noteRulesVersion(_ version: Int64?, _ connection: Connection) throws {
        guard let version else { return }
        let known: Int64? = try SyncStatus.state(rulesVersionKey, connection)
        if known.map({ $0 < version }) ?? true { try SyncStatus.setState(rulesVersionKey, .integer(version), connection) }
    }

    /// Files what the hub acknowledged under the version each entry got, and its refusals.
    func acknowledge(_ entries: [SyncOutboxEntry], _ response: SyncPushResponse) async throws {
        let byEntry = Dictionary(entries.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        try await database.writeInTransaction(transactionType: .immediate) { connection in
            // Acknowledged entries wait, with the hub version each was applied at, until the
            // pull passes that version. They are also kept for a while (``sentRetention``): a hub
            // restored from an older copy may have lost them, and they are then sent again.
            let now = Int64(Date().timeIntervalSince1970)
            let outbox = SyncOutbox(connection)
            for (index, sequence) in response.acknowledged.enumerated() {
                guard let entry = byEntry[sequence] else { continue }
                let version = response.versions.flatMap { $0.indices.contains(index) ? $0[index] : nil } ?? response.hubVersion
                // Another syncer of this file (a second process, a second `Database`) may have
                // settled the entry already: then its outbox row is gone and nothing is filed again.
                let chain = version == response.hubVersion ? response.chain : nil
                _ = try outbox.acknowledge(entry, version: version, chain: chain, at: now)
            }
            try Self.record(response.refused ?? [], rules: response.rulesVersion, connection)
            try Self.noteRulesVersion(response.rulesVersion, connection)
            try Self.noteUser(response.user, connection)
            // Every write of the old names is answered: they are not named again.
            if try outbox.count() == 0 { try Self.setFormerReplicaIDs([], connection) }
            try outbox.forgetSent(before: now - Int64(Self.sentRetention.components.seconds))
            // An entry the hub dropped (its policy kept the hub's row) or applied before this
            // replica's last pull gets a version the pull already passed: no later page settles
            // it, and until one did the replica would show its own row while reporting nothing
            // pending and the hub's newest version. Settled here, as an empty page would.
            let pulled = try SyncStatus.read(connection).lastPulledVersion
            if try outbox.localEntries().contains(where: { entry in entry.version.map { $0 <= pulled } ?? false }) {
                try Self.rebase(tables: self.tables, dropping: [], connection) { _ in pulled }
            }
        }
    }

    /// A user who signed in while writes of an earlier one were pending: the writes after
    /// sequence `after` are theirs.
    struct LaterUser: Codable, Equatable, Sendable {
        var after: Int64
        var user: String
    }

    /// Who made the pending writes: `user` (nil: not known yet) up to the first later sign-in,
    /// then each later user after theirs.
    struct Writers: Sendable {
        var user: String?
        var later: [LaterUser]

        /// The user the write `sequence` was made under.
        func user(of sequence: Int64) -> String? { later.last { $0.after < sequence }.map(\.user) ?? user }
    }

    /// The pending writes' users, with the sign-ins none of whose earlier writes are pending any
    /// more settled (their user now makes every pending write up to the next one).
    static func writers(_ connection: Connection) throws -> Writers {
        var writers = Writers(user: try SyncStatus.state("user", connection), later: [])
        if let text: String = try SyncStatus.state("later_users", connection) {
            writers.later = (try? JSONDecoder().decode([LaterUser].self, from: Data(text.utf8))) ?? []
        }
        let first = try SyncOutbox(connection).pendingRange()?.first
        while let next = writers.later.first, first.map({ $0 > next.after }) ?? true {
            writers.user = next.user
            writers.later.removeFirst()
        }
        return writers
    }

    static func setWriters(_ writers: Writers, _ connection: Connection) throws {
        try SyncStatus.setState("user", writers.user.map { .text($0) } ?? .null, connection)
        let text = writers.later.isEmpty ? nil : String(decoding: try JSONEncoder().encode(writers.later), as: UTF8.self)
        try SyncStatus.setState("later_users", text.map { .text($0) } ?? .null, connection)
    }

    /// Remembers the user the hub named in an answer, or the transport names when the replica
    /// opens: the writes from now on are theirs. Pending writes keep the user they were made
    /// under, and the hub refuses those of another user than the caller
    /// (``SyncRefusal/Reason/userChanged``) until they are discarded or that user signs in again.
    static func noteUser(_ user: String?, _ connection: Connection) throws {
        // A space without rules, or a trusted caller: no user, and nothing changes.
        guard let user else { return }
        var writers = try Self.writers(connection)
        let pending = try SyncOutbox(connection).pendingRange()
        if writers.user == nil || pending == nil {
            // Writes made before any user was named are taken as the first one's: no one else
            // could have been known to make them.
            writers = Writers(user: user, later: [])
        } else if (writers.later.last.map(\.user) ?? writers.user) != user, let last = pending?.last {
            // A sign-in with no write since the one before it replaces it.
            writers.later.removeAll { $0.after >= last }
            writers.later.append(LaterUser(after: last, user: user))
            // A user signing in again after another who wrote nothing makes one run of writes.
            var merged: [LaterUser] = []
            for entry in writers.later where entry.user != (merged.last.map(\.user) ?? writers.user) { merged.append(entry) }
            writers.later = merged
        }
        try setWriters(writers, connection)
    }

    /// Keeps refusals of entries still pending, for ``pendingChanges``.
    static func record(_ refusals: [SyncRefusal], rules: Int64? = nil, _ connection: Connection) throws {
        for refusal in refusals {
            let text = String(decoding: try JSONEncoder().encode(refusal), as: UTF8.self)
            try SyncOutbox(connection).recordRefusal(sequence: refusal.sequence, json: text, rules: rules)
        }
    }
}
