// Pulls and snapshots at the hub: log pages after a cursor (cut to an earlier schema version's
// columns), the synced tables as they are now, and the check that tells a restored hub.
import Foundation
import Strata

extension SyncHub {
    /// The log entries after the request's cursor; when the hub has trimmed entries after it, none,
    /// with `snapshotNeeded` set.
    /// The rows of `tables` in a space without a view: what a replica's progress counts towards.
    static func countSpaceRows(_ tables: [String], _ storage: any SyncSpaceStorage) throws -> Int {
        var count = 0
        for table in tables {
            if case .integer(let rows)? = try storage.ruleRows("SELECT count(*) FROM " + quoteIdentifier(table), []).first?.first { count += Int(rows) }
        }
        return count
    }

    /// A trusted caller's pull (the app beside its hub, an admin tool): every row, whatever the
    /// space's rules.
    public func pull(_ request: SyncPullRequest) throws -> SyncPullResponse {
        try pull(request, caller: .trusted)
    }

    /// `identity`'s pull: on a space with rules, the moves between its view at the cursor and
    /// its view now, in one entry (nil identity: a caller with no user, refused there).
    /// - Throws: as ``pull(_:)``; ``SyncError/accessDenied(_:)`` for no identity on a space
    ///   with rules.
    public func pull(_ request: SyncPullRequest, identity: SyncIdentity?) throws -> SyncPullResponse {
        try pull(request, caller: identity.map { .user($0) } ?? .anonymous)
    }

    package func pull(_ request: SyncPullRequest, caller: SyncCaller) throws -> SyncPullResponse {
        try space(request.space) { storage in
            let widths = try storage.schemaWidths(tables: request.tables, fingerprint: request.schemaFingerprint)
            switch try preparePull(request, caller: caller, storage, widths: widths) {
            case .answered(let response): return response
            // One read snapshot: a trim another hub process commits between the check of what
            // was trimmed and the read of the log would otherwise leave a gap in the page.
            case .page(let widths):
                return try storage.read {
                    var response = try pullPage(request, widths: widths, PullReads(HubSpace(storage: storage)))
                    if request.countsViewRows { response.viewRows = try Self.countSpaceRows(request.tables, storage) }
                    return response
                }
            }
        }
    }

    /// What a pull needs before its page of the log: answered outright (a viewer's pull on a
    /// space with rules, a replica that must start over), or a page with the columns it takes.
    enum PreparedPull {
        case answered(SyncPullResponse)
        case page(widths: [String: Int]?)
    }

    /// A replica on an earlier schema version gets each entry cut to the columns it has
    /// (`widths`, checked by the caller, so that pulls answered together check each schema once).
    func preparePull(_ request: SyncPullRequest, caller: SyncCaller, _ storage: any SyncSpaceStorage, widths: [String: Int]?) throws -> PreparedPull {
        let space = HubSpace(storage: storage)
        let rulesState = try rulesState(request.space, storage)
        if let (rules, identity) = try viewer(caller, rulesState.compiled, space: request.space) {
            let view = SyncView(
                rules: rules, identity: identity, storage: storage, subscriptions: request.subscriptions ?? [], minimumPriority: request.minimumPriority,
                readsLogRoutes: readsLogRoutes.current)
            let (response, record) = try storage.read { () throws -> (SyncPullResponse, SyncViewRecord?) in
                if try Self.rolledBack(
                    after: request.after, chain: request.afterChain, replica: request.replicaID,
                    lastAcknowledged: request.lastAcknowledged, space)
                {
                    return (SyncPullResponse(entries: [], hubVersion: try space.currentVersion(), hubRolledBack: true), nil)
                }
                if request.after < (try space.trimmedThrough()) {
                    return (SyncPullResponse(entries: [], hubVersion: try space.currentVersion(), snapshotNeeded: true), nil)
                }
                let current = try space.currentVersion()
                return try view.pull(
                    after: request.after, current: current, chain: try space.chain(at: current), request: request,
                    widths: widths, limits: limits)
            }
            if let record {
                try storage.write {
                    let base = try storage.viewRecord(replica: request.replicaID, user: identity.user, atOrBefore: request.after)?.version ?? 0
                    try storage.recordView(record, replica: request.replicaID, user: identity.user, keepingFrom: base)
                }
            }
            // Named so the replica knows whose writes its next entries are.
            var named = response
            named.user = identity.user
            named.rulesVersion = rules.version
            if request.countsViewRows {
                var whole = view
                whole.minimumPriority = nil
                named.viewRows = try storage.read { try whole.countRows(tables: request.tables, instances: try whole.instances()) }
            }
            return .answered(named)
        }
        // A replica that held a view under rules since removed holds too few rows for the log
        // to complete: it starts over from a snapshot of the whole space.
        if case .user(let identity) = caller, try storage.viewRecord(replica: request.replicaID, user: identity.user, atOrBefore: .max) != nil {
            var response = SyncPullResponse(entries: [], hubVersion: try space.currentVersion(), snapshotNeeded: true)
            // The rules' removal is a rules change: held writes are offered again.
            response.rulesVersion = rulesState.version
            return .answered(response)
        }
        return .page(widths: widths)
    }

    /// The request's page of the log, read within the caller's read transaction through `reads`.
    func pullPage(_ request: SyncPullRequest, widths: [String: Int]?, _ reads: PullReads) throws -> SyncPullResponse {
        if try Self.rolledBack(
            after: request.after, chain: request.afterChain, replica: request.replicaID,
            lastAcknowledged: request.lastAcknowledged, reads)
        {
            return SyncPullResponse(entries: [], hubVersion: try reads.currentVersion(), hubRolledBack: true)
        }
        if request.after < (try reads.trimmedThrough()) {
            return SyncPullResponse(entries: [], hubVersion: try reads.currentVersion(), snapshotNeeded: true)
        }
        let limit = min(max(1, request.limit), max(1, limits.maximumEntriesPerPull))
        var entries: [SyncLogEntry] = []
        var bytes = 0
        for entry in try reads.entries(after: request.after, limit: limit, widths: widths) {
            // The page ends before the entry that would take it over the byte limit (the
            // first entry goes whatever its size, or the replica could never pass it).
            if !entries.isEmpty, bytes + entry.changeset.count > limits.maximumPullBytes { break }
            bytes += entry.changeset.count
            entries.append(entry)
        }
        return SyncPullResponse(entries: entries, hubVersion: try reads.currentVersion())
    }

    /// The synced tables as they are now, with the version they are at, for a replica to start
    /// from: a new one (``SyncReplica/bootstrap()``), or one whose cursor is behind the trimmed log.
    /// - Throws: ``SyncError/schemaMismatch(local:remote:)`` or ``SyncError/unknownSpace(_:)``
    ///   as a pull does.
    public func snapshot(_ request: SyncSnapshotRequest) throws -> SyncSnapshot {
        try snapshot(request, caller: .trusted)
    }

    /// `identity`'s snapshot: on a space with rules, its view's rows only (nil identity: a caller
    /// with no user, refused there).
    /// - Throws: as ``snapshot(_:)``; ``SyncError/accessDenied(_:)``.
    public func snapshot(_ request: SyncSnapshotRequest, identity: SyncIdentity?) throws -> SyncSnapshot {
        try snapshot(request, caller: identity.map { .user($0) } ?? .anonymous)
    }

    package func snapshot(_ request: SyncSnapshotRequest, caller: SyncCaller) throws -> SyncSnapshot {
        try space(request.space) { storage in
            _ = try storage.schemaWidths(tables: request.tables, fingerprint: request.schemaFingerprint)
            let rulesState = try rulesState(request.space, storage)
            if let (rules, identity) = try viewer(caller, rulesState.compiled, space: request.space) {
                try HubSchema.checkTableList(request.tables)
                let view = SyncView(
                    rules: rules, identity: identity, storage: storage, subscriptions: request.subscriptions ?? [], minimumPriority: request.minimumPriority,
                    readsLogRoutes: readsLogRoutes.current)
                let (version, image, instances) = try storage.read { () throws -> (Int64, Data, Set<CompiledRules.Instance>) in
                    let all = try view.instances()
                    let instances = request.minimumPriority.map { view.instances(all, ofPriorityAtLeast: $0) } ?? all
                    return (try storage.currentVersion(), try view.snapshot(tables: request.tables, instances: instances), instances)
                }
                let claims = view.dataClaimValues()
                let record = SyncViewRecord(version: version, rules: rules.version, instances: try SyncView.encodeInstances(instances, claims: claims))
                try storage.write { try storage.recordView(record, replica: request.replicaID, user: identity.user, keepingFrom: version) }
                return SyncSnapshot(
                    version: version, database: image, chain: try HubSpace(storage: storage).chain(at: version),
                    view: SyncView.viewToken(rules: rules.version, user: identity.user, record: record.instances))
            }
            if case .user(let identity) = caller, try storage.viewRecord(replica: request.replicaID, user: identity.user, atOrBefore: .max) != nil {
                try storage.write { try storage.forgetViews(replica: request.replicaID, user: identity.user) }
            }
            let (version, image) = try storage.snapshot(tables: request.tables)
            return SyncSnapshot(version: version, database: image, chain: try HubSpace(storage: storage).chain(at: version))
        }
    }

    /// Whether the history a replica pulled up to `after` (ending in `chain`) is not this hub's:
    /// the hub was restored from an older copy (and may have logged other changes since).
    static func rolledBack(
        after: Int64, chain: Int64?, replica: String, lastAcknowledged: Int64?,
        _ space: some PulledHistory
    ) throws -> Bool {
        if after > (try space.currentVersion()) { return true }
        // The applied entries are never trimmed: a push this hub acknowledged and has no record of
        // was acknowledged by a copy it was restored over.
        if let sequence = lastAcknowledged, sequence > 0 {
            if try !space.isApplied(replica: replica, sequence: sequence) { return true }
        }
        guard let chain, let known = try space.chain(at: after) else { return false }
        return known != chain
    }
}
