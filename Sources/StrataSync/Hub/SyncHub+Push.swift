// A push at the hub: each entry applied once, in one transaction, through the policies; what
// the hub made of it logged with the version it got.
import Foundation
import Strata

extension SyncHub {
    /// Applies a replica's entries in order (each once), and acknowledges them with the version
    /// each was applied at. An entry the hub refuses (a foreign key, a constraint, the policy) is
    /// answered in `refused` and the others are applied.
    /// - Throws: ``SyncError/refused(_:)`` for a push over ``SyncHub/limits``;
    ///   ``SyncError/duplicateEntry(replicaID:sequence:)`` for an entry applied before with other
    ///   content (the entries before it are applied and stay so; the push is answered by none);
    ///   ``SyncHubStoreUnavailable`` when the store failed for a reason that passes (send the push
    ///   again: nothing of it was applied, or what was is answered, not applied twice).
    public func push(_ request: SyncPushRequest) throws -> SyncPushResponse {
        try push(request, caller: .trusted)
    }

    /// `identity`'s push: on a space with rules, each entry's rows are checked against the
    /// write rules (a refused entry is a ``SyncRefusal`` with reason
    /// ``SyncRefusal/Reason/forbidden``), and a corrected row outside the user's view comes back
    /// as absent (nil identity: a caller with no user, refused there).
    /// - Throws: as ``push(_:)``; ``SyncError/accessDenied(_:)``.
    public func push(_ request: SyncPushRequest, identity: SyncIdentity?) throws -> SyncPushResponse {
        try push(request, caller: identity.map { .user($0) } ?? .anonymous)
    }

    package func push(_ request: SyncPushRequest, caller: SyncCaller) throws -> SyncPushResponse {
        guard request.entries.count <= limits.maximumEntriesPerPush else {
            throw SyncError.tooLarge("a push is limited to \(limits.maximumEntriesPerPush) entries, this one has \(request.entries.count)")
        }
        let bytes = request.entries.reduce(0) { $0 + $1.changeset.count }
        guard bytes <= limits.maximumPushBytes else {
            throw SyncError.tooLarge("a push is limited to \(limits.maximumPushBytes) changeset bytes, this one has \(bytes)")
        }
        let policies = self.policies.current
        // In one store transaction (both stores; the SQLite store's shared by the pushes that
        // arrive together), each entry a savepoint of it.
        try validateSpaceName(request.space)
        let response = try storage.withPush(request.space, replica: request.replicaID, sequences: request.entries.map(\.sequence)) { storage in
            let widths = try storage.schemaWidths(tables: request.tables, fingerprint: request.schemaFingerprint)
            let rulesState = try rulesState(request.space, storage)
            let view = try viewer(caller, rulesState.compiled, space: request.space)
                .map { SyncView(rules: $0.0, identity: $0.1, storage: storage, subscriptions: request.subscriptions ?? []) }
            // Entries written while another user was signed in on the replica's file would be
            // checked against this caller's permissions, and logged as theirs.
            if rulesState.compiled == nil {
                try storage.batchEntries(request.entries.map(\.changeset), tables: request.tables)
            }
            let otherWriter = view.flatMap { view in request.user.flatMap { $0 == view.identity.user ? nil : $0 } }
            let formers = Self.formerNames(request.formerReplicaIDs)
            func appliedBefore(_ entry: SyncOutboxEntry) throws -> Bool {
                try Self.appliedRecord(entry, replica: request.replicaID, formerly: formers, storage) != nil
            }
            var visible: Set<CompiledRules.Instance>?
            var acknowledged: [Int64] = []
            var versions: [Int64] = []
            var refused: [SyncRefusal] = []
            var corrections: [SyncRow] = []
            // Rows a refused entry touched: a later entry of the push that touches one waits with
            // it (applied alone it would meet a row that is not there and be dropped).
            var held: [String: Int64] = [:]
            for entry in request.entries {
                // One applied before (its answer lost) is answered as usual: it was that user's push.
                // Checked before the rows a refused write holds, so each of another user's
                // writes is named as such (an app discards those by their reason).
                if let writer = otherWriter, let view, try !appliedBefore(entry) {
                    refused.append(
                        SyncRefusal(
                            sequence: entry.sequence, reason: .userChanged, table: nil, key: nil,
                            message:
                                "it was written while \(writer.debugDescription) was signed in, and \(view.identity.user.debugDescription) pushed it; the space \(request.space) has rules, so one user's writes are never applied as another's"
                        ))
                    for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = entry.sequence }
                    continue
                }
                if !held.isEmpty, try !appliedBefore(entry) {
                    let rows = rowsTouched(by: entry.changeset)
                    if let blocker = rows.lazy.compactMap({ held[$0] }).first {
                        refused.append(
                            SyncRefusal(
                                sequence: entry.sequence, reason: .dependsOnRefused, table: nil, key: nil,
                                message: "it changes a row that write \(blocker), refused, made or changed; it waits for that write"))
                        for row in rows where held[row] == nil { held[row] = entry.sequence }
                        continue
                    }
                }
                let conflicts: [(String, [SyncValue])], version: Int64
                do {
                    (conflicts, version) = try Self.apply(
                        entry, from: request.replicaID, formerly: formers, tables: request.tables,
                        policies: policies, view: view, rules: rulesState.compiled, on: storage)
                } catch let refusal as EntryRefusal {
                    refused.append(
                        SyncRefusal(
                            sequence: entry.sequence, reason: refusal.reason, table: refusal.table,
                            key: refusal.key, message: refusal.message))
                    for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = entry.sequence }
                    continue
                }
                acknowledged.append(entry.sequence)
                versions.append(version)
                for (table, key) in conflicts {
                    var row = try storage.row(table: table, key: key)
                    // A row the user may not see comes back as absent: the replica drops its copy.
                    if let view, row.values != nil {
                        if visible == nil { visible = try view.instances() }
                        if try !view.holds(table, key: key, instances: visible ?? []) { row.values = nil }
                    }
                    // The columns a replica on an earlier schema version has.
                    if let width = widths?[table.lowercased()], width < row.columns.count {
                        row.columns = Array(row.columns.prefix(width))
                        row.values = row.values.map { Array($0.prefix(width)) }
                    }
                    corrections.append(row)
                }
            }
            let version = try storage.currentVersion()
            return SyncPushResponse(
                acknowledged: acknowledged, corrections: corrections, hubVersion: version,
                chain: try HubSpace(storage: storage).chain(at: version), versions: versions,
                refused: refused.isEmpty ? nil : refused, user: view?.identity.user,
                // Also once the rules are removed: the replica offers its held writes again.
                rulesVersion: view?.rules.version ?? (rulesState.version > 0 ? rulesState.version : nil))
        }
        wake(request.space, reached: response.hubVersion)
        return response
    }

    /// Applies one entry in one write (a savepoint of the push's transaction, or a transaction of
    /// its own), unless it was applied before; returns the rows whose
    /// conflicts the policy settled otherwise than by the replica's change, and the version the
    /// entry was applied at.
    /// - Throws: `EntryRefusal` when the entry cannot be applied (nothing of it is);
    ///   ``SyncError/duplicateEntry(replicaID:sequence:)`` when it was, with other content.
    static func apply(
        _ entry: SyncOutboxEntry, from replica: String, formerly: [String] = [], tables: [String], policies: [String: SyncPolicy],
        view: SyncView? = nil, rules: CompiledRules? = nil, on storage: any SyncSpaceStorage
    ) throws -> ([(String, [SyncValue])], Int64) {
        let digest = Self.digest(entry.changeset)
        let space = HubSpace(storage: storage)
        func answer(_ applied: AppliedRecord) throws -> ([(String, [SyncValue])], Int64) {
            // The same (replica, sequence) with other bytes is another database under this name,
            // not a retry: taking it for one would drop its write without a word.
            if let known = applied.digest, known != digest {
                throw SyncError.duplicateEntry(replicaID: replica, sequence: entry.sequence)
            }
            return (decodeConflicts(applied.conflicts), applied.version)
        }
        if let applied = try storage.applied(replica: replica, sequence: entry.sequence) { return try answer(applied) }
        if !formerly.isEmpty, let applied = try appliedRecord(entry, replica: replica, formerly: formerly, storage) {
            // Applied under a name the database had before: filed under this one too, so a later
            // check of what this replica had acknowledged (a restored hub's) finds it.
            try storage.write {
                if try storage.applied(replica: replica, sequence: entry.sequence) == nil {
                    try storage.recordApplied(
                        replica: replica, sequence: entry.sequence, version: applied.version,
                        conflicts: applied.conflicts, digest: digest)
                }
            }
            return (decodeConflicts(applied.conflicts), applied.version)
        }
        var settled: [(String, [SyncValue])] = []
        var version: Int64 = 0
        var appliedMeanwhile: AppliedRecord?
        do {
            try storage.write {
                // Another hub process on this space may have applied the entry since the look
                // above, unless the push's transaction already holds the write lock.
                if let applied = try storage.applied(replica: replica, sequence: entry.sequence) {
                    appliedMeanwhile = applied
                    return
                }
                try Self.refuseNullKeys(entry.changeset, tables: tables)
                // The rows as they are (old) and as the entry leaves them (new) must each pass the
                // write rules; a refusal undoes the whole transaction.
                try view?.checkWrites(entry.changeset, tables: tables, phase: "old")
                let made = try storage.applyEntry(
                    entry.changeset, sequence: entry.sequence, replica: replica,
                    tables: tables, policies: policies)
                try view?.checkWrites(entry.changeset, tables: tables, phase: "new")
                settled = made.settled
                version = try space.currentVersion()
                if !made.made.isEmpty {
                    let routing = rules ?? view?.rules
                    version = try space.append(
                        replica: replica, sequence: entry.sequence, changeset: made.made,
                        routes: routing.map { routing in (routing.version, { try routing.logRoutes(of: made.made, storage: storage) }) })
                }
                try storage.recordApplied(
                    replica: replica, sequence: entry.sequence, version: version,
                    conflicts: encodeConflicts(settled), digest: digest)
            }
        } catch let error as SyncError {
            throw error
        } catch let refusal as EntryRefusal {
            throw refusal
        } catch let unavailable as SyncHubStoreUnavailable {
            // Not the entry's fault: refusing it would have the replica hold a good write back
            // (and an app may discard it); the whole push fails and is sent again.
            throw unavailable
        } catch {
            throw EntryRefusal(reason: .damaged, table: nil, key: nil, message: "entry \(entry.sequence) of \(replica) was not applied: \(error)")
        }
        if let appliedMeanwhile { return try answer(appliedMeanwhile) }
        return (settled, version)
    }

    /// Refuses an entry that names a row of a synced table by a NULL key, whatever the replica
    /// checked: SQLite lets a key column of a table without NOT NULL hold NULL, and no NULL equals
    /// another, so the row's write rule (`"id" = ?`) and the apply (`IS`) would read different rows.
    /// - Throws: `EntryRefusal` with ``SyncRefusal/Reason/nullKey``.
    static func refuseNullKeys(_ changeset: Data, tables: [String]) throws {
        let synced = Set(tables.map { $0.lowercased() })
        try Changeset(data: changeset).forEachChange { change in
            guard synced.contains(change.table.lowercased()) else { return }
            let key = change.primaryKey
            if key.contains(.null) {
                throw EntryRefusal(
                    reason: .nullKey, table: change.table, key: key.map { SyncValue($0) },
                    message: "a row of \(change.table) has a NULL key, which the hub never syncs (declare the key NOT NULL)")
            }
        }
    }

    /// The former names a push may have its entries looked up under: the newest 8, once each (a
    /// replica keeps 8), so a push naming thousands cannot hold the space's lock for hours.
    static func formerNames(_ names: [String]?) -> [String] {
        guard let names, !names.isEmpty else { return [] }
        var seen: Set<String> = []
        var kept: [String] = []
        for name in names.reversed() where kept.count < maximumFormerNames && seen.insert(name).inserted {
            kept.append(name)
        }
        return kept.reversed()
    }

    /// How many former replica IDs a push's entries are looked up under (what a replica keeps).
    static let maximumFormerNames = 8

    /// The record of `entry` applied under `replica`, or under one of the names the database
    /// pushed under `formerly` with the same bytes (another database's entry there is not it).
    static func appliedRecord(
        _ entry: SyncOutboxEntry, replica: String, formerly: [String],
        _ storage: any SyncSpaceStorage
    ) throws -> AppliedRecord? {
        if let applied = try storage.applied(replica: replica, sequence: entry.sequence) { return applied }
        let digest = Self.digest(entry.changeset)
        for former in formerly where former != replica {
            if let applied = try storage.applied(replica: former, sequence: entry.sequence), applied.digest == digest { return applied }
        }
        return nil
    }

    /// An entry's content, to tell a retry (same bytes) from another database's entry.
    static func digest(_ changeset: Data) -> Int64 {
        var hash = FNV1a()
        hash.add(changeset)
        return Int64(bitPattern: hash.value)
    }

    static func encodeConflicts(_ conflicts: [(String, [SyncValue])]) -> String {
        // Most entries settle nothing: no encoder for them (a JSONEncoder per entry was a
        // measurable part of the hub's time per entry).
        if conflicts.isEmpty { return "[]" }
        struct Item: Codable { var table: String; var key: [SyncValue] }
        let data = (try? JSONEncoder().encode(conflicts.map { Item(table: $0.0, key: $0.1) })) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeConflicts(_ text: String) -> [(String, [SyncValue])] {
        if text == "[]" { return [] }
        struct Item: Codable { var table: String; var key: [SyncValue] }
        let items = (try? JSONDecoder().decode([Item].self, from: Data(text.utf8))) ?? []
        return items.map { ($0.table, $0.key) }
    }
}
