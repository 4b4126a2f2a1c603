// Pulling the hub's log: pages applied under the pending writes (undone, the page applied, made
// again), fast-forwarded where that is exact, and snapshots for a cursor the log no longer covers.
import Foundation
import Strata

extension SyncReplica {
    /// Takes the synced tables back to the hub's state at the cursor, runs `moveCursor` (which
    /// applies a page, or copies a snapshot, and returns the version it reached), drops the
    /// local entries the hub's log now holds and those in `dropping`, and makes the rest again.
    ///
    /// Exact both ways: the writes since the last rebase are undone newest first from the
    /// changesets their sessions recorded, then the rebase's own changes from the changeset a
    /// session recorded while it made them (conflicts settled as they were then), so the tables
    /// are the hub's at the cursor; the rest made again is recorded the same way for next time.
    static func rebase(
        tables: [String], dropping: Set<Int64>, _ connection: Connection,
        moveCursor: (Connection) throws -> Int64?
    ) throws {
        let synced = Set(tables.map { $0.lowercased() })
        let filter: (String) -> Bool = { synced.contains($0.lowercased()) }
        let local = try SyncOutbox(connection).localEntries()
        let through: Int64 = try SyncStatus.state("rebase_through", connection) ?? 0
        let made: Data? = try SyncStatus.state("rebase", connection)
        // The changesets hold what the origin's triggers did to synced tables: those triggers
        // stay off while they are applied. Triggers that keep local state (an FTS5 index, an
        // audit log) are off too while the pending writes are undone and made again (those rows
        // never arrived): the rebase runs in a savepoint with every one of them off, recording
        // its net change (the synced tables' and the bookkeeping's); the savepoint is rolled back
        // (rows keep their rowids, which an index may name) and the net change applied with the
        // local-state triggers on, so they see each row that arrived, or that the hub's rows
        // settled otherwise than the pending write had it, once.
        let triggers = try SyncTriggers.writingSyncedTables(tables, connection)
        let keepingLocalState = try SyncTriggers.keepingLocalState(on: tables, besides: triggers, connection)
        func steps() throws {
            for entry in local.reversed() where entry.sequence > through {
                try connection.apply(try entry.changeset.inverted(), filter: filter, onConflict: ReplicaConflicts.undoConflicts)
            }
            if let made, !made.isEmpty {
                try connection.apply(try Changeset(data: made).inverted(), filter: filter, onConflict: ReplicaConflicts.undoConflicts)
            }
            let reached = try moveCursor(connection)
            if let reached {
                try SyncOutbox(connection).settle(through: reached)
            }
            for sequence in dropping { try SyncOutbox(connection).drop(sequence) }
            let remaining = local.filter { entry in
                guard !dropping.contains(entry.sequence) else { return false }
                guard let reached, let version = entry.version else { return true }
                return version > reached
            }
            // A pending write that the hub's newer rows make break a foreign key (a child of a row
            // another replica deleted) is left out locally, as the hub will refuse it: each try
            // starts again from the same point without it, so the rebase never fails for one write.
            var leftOut = Set<Int64>()
            var remade = Changeset(data: Data())
            while true {
                try connection.execute("SAVEPOINT strata_sync_remake")
                let session = try connection.recordChanges(tables: tables)
                var broken: Int64?
                for entry in remaining where !leftOut.contains(entry.sequence) {
                    var breaksForeignKey = false
                    do {
                        try connection.apply(entry.changeset, filter: filter) { conflict in
                            if conflict.kind == .foreignKey { breaksForeignKey = true }
                            return ReplicaConflicts.remakeConflicts(conflict)
                        }
                    } catch  where breaksForeignKey {
                        broken = entry.sequence
                        break
                    }
                }
                if let broken {
                    session.close()
                    try connection.execute("ROLLBACK TO SAVEPOINT strata_sync_remake")
                    try connection.execute("RELEASE SAVEPOINT strata_sync_remake")
                    leftOut.insert(broken)
                    continue
                }
                remade = try session.changeset()
                session.close()
                try connection.execute("RELEASE SAVEPOINT strata_sync_remake")
                break
            }
            try SyncStatus.setState("rebase", .blob(remade.data), connection)
            try SyncStatus.setState("rebase_through", .integer(max(through, local.last?.sequence ?? 0)), connection)
        }
        try connection.withForeignKeysDeferred {
            guard !keepingLocalState.isEmpty else {
                try SyncTriggers.withoutTriggers(triggers, connection) { try steps() }
                return
            }
            let recorded = tables + SyncBookkeeping.replicaTables
            let net: Changeset = try SyncTriggers.withoutTriggers(triggers + keepingLocalState, connection) {
                try connection.execute("SAVEPOINT strata_sync_net")
                do {
                    let session = try connection.recordChanges(tables: recorded)
                    defer { session.close() }
                    try steps()
                    let net = try session.changeset()
                    try connection.execute("ROLLBACK TO SAVEPOINT strata_sync_net")
                    try connection.execute("RELEASE SAVEPOINT strata_sync_net")
                    return net
                } catch {
                    try? connection.execute("ROLLBACK TO SAVEPOINT strata_sync_net")
                    try? connection.execute("RELEASE SAVEPOINT strata_sync_net")
                    throw error
                }
            }
            guard !net.isEmpty else { return }
            let names = Set(recorded.map { $0.lowercased() })
            // From the exact state the net change was recorded over, any conflict means its order
            // cannot be kept: a foreign key's cascade run before a change to the row it removes,
            // a swap of UNIQUE values that each step made one at a time. Then the rebase runs
            // step by step with the local-state triggers on, as before they were kept off: the
            // tables end exact, and those triggers may see a pending write again.
            let applied = try SyncTriggers.withoutTriggers(triggers, connection) { () throws -> Bool in
                try connection.execute("SAVEPOINT strata_sync_net_apply")
                do {
                    _ = try connection.apply(net, filter: { names.contains($0.lowercased()) }) { _ in .abort }
                    try connection.execute("RELEASE SAVEPOINT strata_sync_net_apply")
                    return true
                } catch {
                    try connection.execute("ROLLBACK TO SAVEPOINT strata_sync_net_apply")
                    try connection.execute("RELEASE SAVEPOINT strata_sync_net_apply")
                    return false
                }
            }
            if !applied {
                try SyncTriggers.withoutTriggers(triggers, connection) { try steps() }
            }
        }
    }

    /// Moves the cursor over a page without undoing and redoing anything, where that is exact:
    /// an empty page with no acknowledged entry to settle, or a page that is this replica's own
    /// oldest writes, logged by the hub byte for byte as they were made (no conflict, no trigger),
    /// made directly on the hub's state at the cursor (no rebase since). A replica pulling back
    /// its own 2,000 offline writes in pages of 3 pays one small transaction a page, not a redo of
    /// all of them.
    static func fastForward(_ page: [SyncLogEntry], after: Int64, origin: String, _ connection: Connection) throws -> Bool {
        let local = try SyncOutbox(connection).localEntries()
        if page.isEmpty {
            return !local.contains { entry in entry.version.map { $0 <= after } ?? false }
        }
        let made: Data? = try SyncStatus.state("rebase", connection)
        guard made?.isEmpty ?? true, local.count >= page.count else { return false }
        let through: Int64 = try SyncStatus.state("rebase_through", connection) ?? 0
        for (entry, mine) in zip(page, local) {
            guard entry.replicaID == origin, entry.sequence == mine.sequence, mine.sequence > through, mine.version == entry.version,
                entry.changeset == mine.changeset.data
            else { return false }
        }
        for entry in page {
            try SyncOutbox(connection).settle(sequence: entry.sequence)
        }
        if let last = page.last {
            try SyncStatus.setState("pulled", .integer(last.version), connection)
            try SyncStatus.setState("pulled_chain", last.chain.map { .integer($0) } ?? .null, connection)
        }
        return true
    }

    /// Applies the hub's log after this replica's cursor, in pages, until caught up. Pending
    /// writes stay pending: each page is applied under them (they are undone, the page applied,
    /// and they are made again), so a write the hub refused never stops the pull.
    /// - Throws: `CancellationError` when the task is cancelled (checked between pages; each
    ///   page is applied whole or not at all).
    ///
    /// A first sync with subscriptions of a ``SyncSubscription/priority`` above 0 runs in
    /// phases: the rows of the highest priority first, each phase complete before the next, then
    /// the rest. A first sync (or one that starts over from a snapshot) reports
    /// ``SyncStatus/progress``.
    public func pull() async throws {
        let (subscriptions, status) = try await database.read { (try Self.subscriptions($0), try SyncStatus.read($0)) }
        // Phases only for a replica that holds nothing yet: later, one pull brings every change
        // at once (a phase would hold back another bucket's news, and a phase's snapshot would
        // take rows the replica holds away until the next phase).
        let firstSync = status.lastPulledVersion == 0
        let levels = firstSync ? Set(subscriptions.map(\.priority).filter { $0 > 0 }).sorted(by: >) : []
        // Counting a view costs the hub a read of its keys: only for a first sync, or one that
        // starts over from a snapshot.
        let counts = firstSync || status.needsSnapshot
        if counts { try await database.write { try SyncProgress.begin(phase: levels.first, $0) } }
        for level in levels {
            try await pullPages(minimumPriority: level, countsRows: counts)
            if counts { try await noteProgress(phase: levels.first { $0 < level }) }
        }
        try await pullPages(minimumPriority: nil, countsRows: counts)
        if counts { try await database.write { try SyncProgress.finish($0) } }
    }

    /// The rows the synced tables hold now, noted as the progress of the sync under way.
    func noteProgress(phase: Int?) async throws {
        let tables = self.tables
        try await database.write { connection in
            // The sync's own statements: out of the user's trace and authorizer.
            try connection.withBookkeeping {
                var rows = 0
                for table in tables { rows += try connection.query("SELECT count(*) FROM " + quoteIdentifier(table)) ?? 0 }
                try SyncProgress.note(rows: rows, phase: phase, connection)
            }
        }
    }

    /// Pages of the log (or of a phase of it) until caught up.
    func pullPages(minimumPriority: Int?, countsRows: Bool) async throws {
        if try await database.read({ try SyncStatus.state("snapshot_needed", $0) as Int64? }) == 1 {
            try await catchUpFromSnapshot(minimumPriority: minimumPriority)
        }
        var snapshots = 0
        var counted = false
        for _ in 0..<100_000 {
            // Between pages, as between a push's batches: a stopping loop ends after this page.
            try Task.checkCancellation()
            let request = try await pullRequest(minimumPriority: minimumPriority, countsViewRows: countsRows && !counted)
            let response = try await transport.pull(request)
            switch try await absorb(
                response, after: request.after, appliedView: request.appliedView, minimumPriority: minimumPriority, countsRows: countsRows,
                counted: &counted)
            {
            case .snapshot:
                // A snapshot is the whole view at its version: after a second one in a row the
                // pull ends there, so a table that changes faster than a snapshot takes cannot
                // keep it going.
                snapshots += 1
                if snapshots >= 2 { return }
            case .caughtUp: return
            case .applied, .stale, .startedOver: snapshots = 0
            }
        }
    }

    /// Follows the hub's pull stream (``SyncTransport/pullStream(_:)``) from this replica's
    /// cursor, applying each frame as ``pull()`` applies a page, until the stream ends: the hub
    /// closed it, or a frame asked for a snapshot or found the cursor moved by another pull (the
    /// replica caught up its own way first). ``startSyncing(interval:maximumBackoff:)`` calls it
    /// after each pull when the transport streams.
    /// - Returns: false at once when the transport cannot stream.
    @discardableResult
    public func followPullStream() async throws -> Bool {
        // Read before the request: a pull or a subscription change after this read makes every
        // frame of this stream stale, even one that leaves the cursor where it was (the hub then
        // recorded another view, or the request's subscriptions are no longer the replica's).
        let epoch = try await database.read { (try SyncStatus.state(Self.viewEpochKey, $0) as Int64?) ?? 0 }
        let request = try await pullRequest(minimumPriority: nil, countsViewRows: false)
        guard let stream = try transport.pullStream(request) else { return false }
        var counted = true
        // The view each frame is answered from, as the hub moves it: the request's, then each
        // applied frame's.
        var appliedView = request.appliedView
        for try await frame in stream {
            try Task.checkCancellation()
            switch try await absorb(
                frame.response, after: frame.after, appliedView: appliedView, minimumPriority: nil, countsRows: false, counted: &counted,
                streamEpoch: epoch)
            {
            case .applied, .caughtUp: appliedView = frame.response.view
            case .stale, .snapshot, .startedOver: return true
            }
        }
        return true
    }

    /// A stream's frame that carried rows was dropped as stale: the hub may have recorded, for
    /// this replica's cursor, the view that frame was answered for (a subscription or claim
    /// change arrives at the version the replica already has), and would then never send the rows
    /// that move between it and the replica's own. The next pull catches up from a snapshot,
    /// which makes the replica's rows the view's whole.
    /// Whether a dropped answer may have carried a view's move: it carried rows, on a space with
    /// rules (without rules the hub records no view, and the cursor alone keeps pages apart).
    ///
    /// An answer that names its view token needs no such mark: the next request sends the token
    /// of the view the replica still holds, and a hub whose record differs answers with a
    /// snapshot itself, in the same ``pull()``.
    static func mayHaveMovedTheView(_ response: SyncPullResponse) -> Bool {
        response.rulesVersion != nil && !response.entries.isEmpty && response.view == nil
    }

    /// The state key of the token of the view the replica holds (``SyncPullResponse/view``).
    static let appliedViewKey = "pulled_view"

    static func forgetView(_ connection: Connection) throws {
        try SyncStatus.setState("snapshot_needed", .integer(1), connection)
    }

    /// The state key of the replica's view epoch: moved by every pull's answer and every change
    /// of subscriptions, so a stream opened before either stops applying frames.
    static let viewEpochKey = "view_epoch"

    /// A pull from this replica's cursor, as the database holds it now.
    private func pullRequest(minimumPriority: Int?, countsViewRows: Bool) async throws -> SyncPullRequest {
        // The pushes acknowledged before this request: the hub had them at their versions then,
        // so its answer must reach those versions (a push acknowledged meanwhile, by the loop's
        // other lane, may be newer than the answer).
        let (after, afterChain, lastAcknowledged, subscriptions, appliedView) = try await database.read { connection in
            (
                try SyncStatus.read(connection).lastPulledVersion, try SyncStatus.pulledChain(connection),
                try SyncOutbox(connection).lastSent(), try Self.requestSubscriptions(connection),
                try SyncStatus.state(Self.appliedViewKey, connection) as String?
            )
        }
        return SyncPullRequest(
            space: space, replicaID: hubReplicaID, tables: tables, schemaFingerprint: fingerprint, after: after,
            limit: max(1, settings.pullPageSize), afterChain: after == 0 ? 0 : afterChain, lastAcknowledged: lastAcknowledged,
            subscriptions: subscriptions, minimumPriority: minimumPriority, countsViewRows: countsViewRows, appliedView: appliedView)
    }

    /// What ``absorb(_:after:appliedView:minimumPriority:countsRows:counted:streamEpoch:)`` did with an answer.
    enum Absorbed {
        /// The page was applied; the hub may have more.
        case applied
        /// The page was empty: caught up.
        case caughtUp
        /// Another pull moved the cursor since the request: nothing was applied.
        case stale
        /// The replica caught up from a snapshot.
        case snapshot
        /// The hub had rolled back: the replica pushed again and started over.
        case startedOver
    }

    /// Applies the hub's answer to a pull after `after`: the user and rules it names, then its
    /// page under the pending writes, or the snapshot or rollback recovery it asks for.
    ///
    /// `streamEpoch` is a stream's: its frame is stale, and nothing of it is kept, unless the
    /// replica's view epoch is still the one read when the stream opened. A pull's answer moves
    /// the epoch instead, since the hub recorded the view it answered for.
    ///
    /// `appliedView` is the view token the request named: an answer is stale, too, when the
    /// replica holds another view by the time it applies it (another answer that moved the view
    /// from the same cursor, or a snapshot, came first), since it carries the moves from that one.
    func absorb(
        _ response: SyncPullResponse, after: Int64, appliedView: String?, minimumPriority: Int?, countsRows: Bool, counted: inout Bool,
        streamEpoch: Int64? = nil
    ) async throws -> Absorbed {
        if let streamEpoch, try await database.read({ (try SyncStatus.state(Self.viewEpochKey, $0) as Int64?) ?? 0 }) != streamEpoch {
            if Self.mayHaveMovedTheView(response) { try await database.write { try Self.forgetView($0) } }
            return .stale
        }
        if let total = response.viewRows {
            counted = true
            try await database.write { try SyncProgress.note(totalRows: total, $0) }
        }
        if let rules = response.rulesVersion,
            try await database.read({ (try SyncStatus.state(Self.rulesVersionKey, $0) as Int64?) ?? 0 }) < rules
        {
            try await database.write { try Self.noteRulesVersion(rules, $0) }
        }
        if let user = response.user,
            try await database.read({ connection -> String? in
                let writers = try Self.writers(connection)
                return writers.later.last.map(\.user) ?? writers.user
            }) != user
        {
            try await database.write { try Self.noteUser(user, $0) }
        }
        if response.hubRolledBack {
            try await recoverFromHubRollback()
            return .startedOver
        }
        if response.snapshotNeeded {
            // The hub trimmed the log past this replica's cursor, or its view moved in a way
            // only a snapshot shows (a table a rule's subquery reads changed).
            try await catchUpFromSnapshot(minimumPriority: minimumPriority)
            if countsRows { try await noteProgress(phase: minimumPriority) }
            return .snapshot
        }
        let tables = self.tables
        let synced = Set(tables.map { $0.lowercased() })
        let outcome: PageOutcome = try await database.writeInTransaction(transactionType: .immediate) { connection in
            // Another pull (the app's beside a running loop, another process on this file)
            // applied a page since this one was asked for: this page is not applied twice; the
            // next request starts after it.
            let epoch: Int64 = (try SyncStatus.state(Self.viewEpochKey, connection)) ?? 0
            if let streamEpoch {
                guard epoch == streamEpoch else {
                    if Self.mayHaveMovedTheView(response) { try Self.forgetView(connection) }
                    return .stale
                }
            } else {
                try SyncStatus.setState(Self.viewEpochKey, .integer(epoch &+ 1), connection)
            }
            guard try SyncStatus.read(connection).lastPulledVersion == after,
                try SyncStatus.state(Self.appliedViewKey, connection) as String? == appliedView
            else {
                // A pull's answer dropped for the same reason loses its view's moves the same way.
                if Self.mayHaveMovedTheView(response) { try Self.forgetView(connection) }
                return .stale
            }
            let inflight = try SyncOutbox(connection).localEntries().filter { $0.version != nil }
            for entry in response.entries {
                if let mine = inflight.first(where: { $0.version == entry.version }), let ours = mine.chain, let theirs = entry.chain, ours != theirs {
                    return .hubRolledBack
                }
            }
            // In the transaction that applies the page: the token always names the rows held.
            try SyncStatus.setState(Self.appliedViewKey, response.view.map { .text($0) } ?? .null, connection)
            if try Self.fastForward(response.entries, after: after, origin: self.hubReplicaID, connection) { return .applied }
            try Self.rebase(tables: tables, dropping: [], connection) { connection in
                for entry in response.entries {
                    try connection.apply(
                        Changeset(data: entry.changeset), filter: { synced.contains($0.lowercased()) }, onConflict: ReplicaConflicts.replaceConflicts)
                    try SyncStatus.setState("pulled", .integer(entry.version), connection)
                    try SyncStatus.setState("pulled_chain", entry.chain.map { .integer($0) } ?? .null, connection)
                }
                // Caught up (an empty page): the log holds every acknowledged entry up to the
                // cursor, the rest it dropped.
                return response.entries.last?.version ?? after
            }
            return .applied
        }
        switch outcome {
        case .hubRolledBack:
            try await recoverFromHubRollback()
            return .startedOver
        case .stale:
            return response.entries.isEmpty ? .caughtUp : .stale
        case .applied:
            if response.entries.isEmpty { return .caughtUp }
            if countsRows { try await noteProgress(phase: minimumPriority) }
            return .applied
        }
    }

    /// How long pushed entries are kept after the hub acknowledged them, to be sent again if the
    /// hub is restored from an older copy within that time (a Litestream restore loses at most
    /// its last seconds).
    public static let sentRetention: Duration = .seconds(7 * 24 * 3600)

    /// The hub no longer has the history this replica pulled (restored from an older copy): what
    /// this replica pushed within ``sentRetention`` goes back to the outbox and is pushed again
    /// (the hub applies once what it still has, anew what it lost), then the replica starts over
    /// from a snapshot, its synced tables becoming the restored hub's.
    func recoverFromHubRollback() async throws {
        try await database.writeInTransaction(transactionType: .immediate) { connection in
            try SyncOutbox(connection).resendSent()
        }
        _ = try await pushKeepingRefusal()
        try await catchUpFromSnapshot()
    }

    /// Replaces the synced tables' rows with a hub snapshot's, in one transaction: the log entries
    /// up to the snapshot's version are in it, so pushed changes it covers are done, and those it
    /// does not, and the pending ones, are made again, as after a pull.
    func catchUpFromSnapshot(minimumPriority: Int? = nil) async throws {
        let request = SyncSnapshotRequest(
            space: space, replicaID: hubReplicaID, tables: tables, schemaFingerprint: fingerprint,
            subscriptions: try await database.read { try Self.requestSubscriptions($0) }, minimumPriority: minimumPriority)
        let snapshot = try await transport.snapshot(request)
        let tables = self.tables
        try await database.writeWithoutTransaction { connection in
            // ATTACH cannot run inside a transaction, so the image is attached around it.
            let schema = "strata_sync_snapshot"
            try connection.execute("ATTACH ':memory:' AS " + quoteIdentifier(schema))
            defer { try? connection.execute("DETACH " + quoteIdentifier(schema)) }
            do {
                // Writable: BEGIN IMMEDIATE would fail on a read-only attached schema. It is
                // the replica's own in-memory copy and nothing writes it.
                try connection.deserialize(snapshot.database, schema: schema)
            } catch {
                throw SyncError.refused("the hub's snapshot of \(request.space) is not a database: \(error)")
            }
            // A damaged image may open and fail only where a copy reads it: check it whole first.
            let check: [String] = (try? connection.query("PRAGMA " + quoteIdentifier(schema) + ".quick_check")) ?? ["unreadable"]
            guard check == ["ok"] else {
                throw SyncError.refused("the hub's snapshot of \(request.space) is damaged: \(check.prefix(3).joined(separator: "; "))")
            }
            try connection.transaction(transactionType: .immediate) {
                try Self.rebase(tables: tables, dropping: [], connection) { connection in
                    try Self.copyTables(Self.childrenFirst(tables, connection), from: schema, on: connection)
                    try SyncStatus.setState("pulled", .integer(snapshot.version), connection)
                    try SyncStatus.setState("pulled_chain", snapshot.chain.map { .integer($0) } ?? .null, connection)
                    try SyncStatus.setState(Self.appliedViewKey, snapshot.view.map { .text($0) } ?? .null, connection)
                    try SyncStatus.setState("snapshot_needed", .null, connection)
                    return snapshot.version
                }
            }
        }
    }

    /// Makes each synced table hold the attached snapshot's rows, with values copied by SQLite
    /// itself (no conversion: invalid UTF-8 text, -0.0 and blobs stay as they were): rows the
    /// snapshot lacks are deleted (children first), the others inserted or updated where they
    /// differ. Rows that stay are never deleted, so `ON DELETE` actions of foreign keys from the
    /// replica's own tables do not fire for them.
    static func copyTables(_ tables: [String], from schema: String, on connection: Connection) throws {
        let snapshot = quoteIdentifier(schema)
        try connection.addScalarFunction(named: negativeZeroFunction, argumentCount: 1, deterministic: true) { _, values in
            .integer(values[0].double.sign == .minus ? 1 : 0)
        }
        try connection.withForeignKeysDeferred {
            for table in tables {
                let name = quoteIdentifier(table)
                // The same row as the table's key sees it (its collations, 1 = 1.0): what differs
                // within it is updated below.
                let same = try SchemaFingerprint.keyColumns(of: table, in: connection)
                    .map { "s." + quoteIdentifier($0) + " IS " + quoteIdentifier("main") + "." + name + "." + quoteIdentifier($0) }
                    .joined(separator: " AND ")
                try connection.run(
                    literal: SQLFragment(
                        sql: "DELETE FROM " + quoteIdentifier("main") + "." + name
                            + " WHERE NOT EXISTS (SELECT 1 FROM " + snapshot + "." + name + " AS s WHERE " + same + ")"))
            }
            for table in tables.reversed() {
                let name = quoteIdentifier(table)
                let keys = try SchemaFingerprint.keyColumns(of: table, in: connection)
                let columns = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
                let list = columns.map(quoteIdentifier).joined(separator: ", ")
                // Every column, keys too: a key the index calls the same ('A' under NOCASE, 1.0
                // for 1) may still be stored otherwise than the hub's.
                let sql =
                    "INSERT INTO " + quoteIdentifier("main") + "." + name + "(" + list + ") SELECT " + list + " FROM "
                    + snapshot + "." + name + " WHERE true ON CONFLICT(" + keys.map(quoteIdentifier).joined(separator: ", ") + ") DO "
                    + "UPDATE SET " + columns.map { quoteIdentifier($0) + " = excluded." + quoteIdentifier($0) }.joined(separator: ", ")
                    + " WHERE "
                    + columns.map { differs(name + "." + quoteIdentifier($0), "excluded." + quoteIdentifier($0)) }
                    .joined(separator: " OR ")
                try connection.run(literal: SQLFragment(sql: sql))
            }
        }
    }

    static let negativeZeroFunction = "strata_sync_negative_zero"

    /// SQL true when two values are not stored alike. `IS NOT` alone is not that: it compares 0
    /// and 0.0 as numbers, text under the column's collation, and -0.0 equal to 0.0, so a
    /// snapshot's 0.0 (or 'A' under NOCASE) would leave the replica's 0 (or 'a') in place.
    static func differs(_ left: String, _ right: String) -> String {
        "(typeof(\(left)) IS NOT typeof(\(right)) OR \(left) IS NOT \(right) COLLATE BINARY OR (typeof(\(left)) = 'real' AND "
            + "\(negativeZeroFunction)(\(left)) IS NOT \(negativeZeroFunction)(\(right))))"
    }

    /// The synced tables with every table before the synced tables it references, so emptying them
    /// in this order never meets an `ON DELETE RESTRICT` (a cycle keeps its declared order).
    static func childrenFirst(_ tables: [String], _ connection: Connection) throws -> [String] {
        var parents: [String: Set<String>] = [:]
        let names = Set(tables.map { $0.lowercased() })
        for table in tables {
            parents[table.lowercased()] = Set(try connection.schemaReader.foreignKeys(ofTable: table).map { $0.parentTable.lowercased() })
                .intersection(names).subtracting([table.lowercased()])
        }
        var ordered: [String] = []
        var remaining = tables
        while !remaining.isEmpty {
            // A table no remaining table references goes next.
            let next =
                remaining.firstIndex { candidate in
                    !remaining.contains { other in other != candidate && parents[other.lowercased()]?.contains(candidate.lowercased()) == true }
                } ?? 0
            ordered.append(remaining.remove(at: next))
        }
        return ordered
    }
}

/// What one transaction of a pull did with a page.
private enum PageOutcome: Sendable {
    case applied, stale, hubRolledBack
}

extension Connection {
    /// Runs `body` with foreign keys checked at commit, so rows corrected one by one may pass
    /// through states between.
    func withForeignKeysDeferred(_ body: () throws -> Void) throws {
        try execute("PRAGMA defer_foreign_keys = ON")
        defer { try? execute("PRAGMA defer_foreign_keys = OFF") }
        try body()
    }
}
