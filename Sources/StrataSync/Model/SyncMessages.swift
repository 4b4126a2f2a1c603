// The messages between a replica and its hub: pushes, pulls, snapshots and their answers.
import Foundation
import Strata

/// One captured write transaction of a replica: its changeset and its place in the replica's order.
public struct SyncOutboxEntry: Codable, Sendable, Equatable {
    /// The entry's place in the replica's order (its outbox rowid).
    public var sequence: Int64
    /// The changeset's bytes.
    public var changeset: Data
    /// An outbox entry.
    public init(sequence: Int64, changeset: Data) { self.sequence = sequence; self.changeset = changeset }
}

/// One entry of a space's log: the change the hub made applying a replica's entry.
public struct SyncLogEntry: Codable, Sendable, Equatable {
    /// The hub version this entry made.
    public var version: Int64
    /// The replica whose push it applied.
    public var replicaID: String
    /// That push entry's sequence.
    public var sequence: Int64
    /// The change the hub made, as a changeset.
    public var changeset: Data
    /// The hub's log chain through this entry (a hash of every entry up to it), which the
    /// replica sends back with its cursor so that a hub restored to an older copy is noticed;
    /// nil from a hub that keeps none.
    public var chain: Int64?
    /// A log entry.
    public init(version: Int64, replicaID: String, sequence: Int64, changeset: Data, chain: Int64? = nil) {
        self.version = version; self.replicaID = replicaID; self.sequence = sequence; self.changeset = changeset; self.chain = chain
    }
}

/// A replica's push: its entries in order, for the space and tables whose schema it names.
public struct SyncPushRequest: Codable, Sendable {
    /// The space the entries are for.
    public var space: String
    /// The pushing replica's name.
    public var replicaID: String
    /// The synced tables the entries cover.
    public var tables: [String]
    /// The replica's fingerprint of those tables' definitions, which must match the hub's.
    public var schemaFingerprint: String
    /// The outbox entries, in sequence order.
    public var entries: [SyncOutboxEntry]
    /// The user the entries were written under, as the hub last named it to this replica (nil:
    /// none yet, or a replica from before users were named). On a space with rules the hub
    /// refuses a push whose entries were written under another user than the caller, rather than
    /// check one user's writes against another's permissions.
    public var user: String?
    /// The names the same database pushed under before its replica ID changed (a re-login),
    /// while some of these entries were pending: an entry the hub applied under one of them
    /// (same sequence, same bytes), its answer lost, is acknowledged, not applied a second time.
    public var formerReplicaIDs: [String]?
    /// The replica's subscriptions (nil or empty: its whole view): a corrected row outside them
    /// comes back as absent.
    public var subscriptions: [SyncSubscription]?
    /// A push of `entries` from `replicaID`, written under `user`.
    public init(
        space: String, replicaID: String, tables: [String], schemaFingerprint: String, entries: [SyncOutboxEntry],
        user: String? = nil, formerReplicaIDs: [String]? = nil, subscriptions: [SyncSubscription]? = nil
    ) {
        self.space = space; self.replicaID = replicaID; self.tables = tables
        self.schemaFingerprint = schemaFingerprint; self.entries = entries; self.user = user
        self.formerReplicaIDs = formerReplicaIDs; self.subscriptions = subscriptions
    }
}

/// What the hub did with a push: every entry is acknowledged (applied now or before), with the
/// hub's rows where a conflict settled differently from the replica's change.
public struct SyncPushResponse: Codable, Sendable {
    /// The sequences the hub has applied (now or before).
    public var acknowledged: [Int64]
    /// Rows where the hub's policy settled a conflict otherwise than the replica's change.
    public var corrections: [SyncRow]
    /// The hub's newest version after the push.
    public var hubVersion: Int64
    /// The hub's log chain at `hubVersion` (nil from a hub that keeps none): a later pull that
    /// finds another chain there knows the hub was restored and may have lost this push.
    public var chain: Int64?
    /// The hub version each acknowledged entry was applied at, in `acknowledged` order (nil from
    /// a hub that sends none: then `hubVersion` stands for all). A pull page that ends between
    /// two of them holds the hub's account of the first and not yet of the second.
    public var versions: [Int64]?
    /// The entries the hub refused (not applied, not acknowledged; the others were).
    public var refused: [SyncRefusal]?
    /// The user whose view and write rules the hub applied (nil: every row, a space without
    /// rules or a trusted caller). The replica writes its next entries under this user.
    public var user: String?
    /// The version of the space's rules the push was checked under (nil: no rules applied): a
    /// write refused under one version is offered again once the rules change.
    public var rulesVersion: Int64?
    /// A push's answer.
    public init(
        acknowledged: [Int64], corrections: [SyncRow], hubVersion: Int64, chain: Int64? = nil,
        versions: [Int64]? = nil, refused: [SyncRefusal]? = nil, user: String? = nil, rulesVersion: Int64? = nil
    ) {
        self.acknowledged = acknowledged; self.corrections = corrections; self.hubVersion = hubVersion; self.chain = chain
        self.versions = versions; self.refused = refused; self.user = user; self.rulesVersion = rulesVersion
    }
}

/// A replica's pull: log entries after `after`, at most `limit`.
public struct SyncPullRequest: Codable, Sendable {
    /// The space to pull from.
    public var space: String
    /// The pulling replica's name.
    public var replicaID: String
    /// The synced tables.
    public var tables: [String]
    /// The replica's fingerprint of those tables' definitions.
    public var schemaFingerprint: String
    /// The version the replica has pulled up to.
    public var after: Int64
    /// At most this many entries in the answer.
    public var limit: Int
    /// The log chain at `after` as this replica pulled it (nil: not checked). A hub whose chain
    /// there differs, or which has no `after` at all, was restored from an older copy.
    public var afterChain: Int64?
    /// The newest of this replica's sequences the hub acknowledged (nil: not checked). A hub that
    /// has no record of applying it was restored from a copy older than that acknowledgement,
    /// whatever its log shows (which may be trimmed).
    public var lastAcknowledged: Int64?
    /// The replica's subscriptions (nil or empty: its whole view).
    public var subscriptions: [SyncSubscription]?
    /// A phase of a sync by priority: the view brings the instances of subscriptions of at least
    /// this priority up to date, and keeps the rest as the replica holds them (nil: the whole
    /// view).
    public var minimumPriority: Int?
    /// Asks the hub to count the rows of the replica's view (``SyncPullResponse/viewRows``).
    public var countsViewRows: Bool
    /// The token of the view the replica last applied (``SyncPullResponse/view``; nil: none, or a
    /// hub that sends none). A hub whose record of the view at `after` has another token answers
    /// with a snapshot: the replica's rows are not the view the hub would compute moves from (an
    /// answer that moved the view was lost or dropped as stale), and moves from the wrong view
    /// would leave it rows its rules no longer give it.
    public var appliedView: String?
    /// A pull after `after`, at most `limit` entries.
    public init(
        space: String, replicaID: String, tables: [String], schemaFingerprint: String, after: Int64, limit: Int,
        afterChain: Int64? = nil, lastAcknowledged: Int64? = nil, subscriptions: [SyncSubscription]? = nil,
        minimumPriority: Int? = nil, countsViewRows: Bool = false, appliedView: String? = nil
    ) {
        self.space = space; self.replicaID = replicaID; self.tables = tables
        self.schemaFingerprint = schemaFingerprint; self.after = after; self.limit = limit; self.afterChain = afterChain
        self.lastAcknowledged = lastAcknowledged; self.subscriptions = subscriptions
        self.minimumPriority = minimumPriority; self.countsViewRows = countsViewRows; self.appliedView = appliedView
    }
}

/// The entries after the cursor, and the hub's newest version.
public struct SyncPullResponse: Codable, Sendable {
    /// The log entries after the cursor, in version order.
    public var entries: [SyncLogEntry]
    /// The hub's newest version.
    public var hubVersion: Int64
    /// The hub has trimmed the log entries after the cursor: the replica catches up from a
    /// ``SyncSnapshot`` instead (``SyncReplica/pull()`` does so by itself).
    public var snapshotNeeded: Bool
    /// The hub does not have the log this replica pulled up to (it was restored from an older
    /// copy, by Litestream say): the replica sends again what it pushed, then starts over from a
    /// snapshot (``SyncReplica/pull()`` does so by itself).
    public var hubRolledBack: Bool
    /// The user whose view the hub answered with (nil: every row, a space without rules or a
    /// trusted caller).
    public var user: String?
    /// The version of the space's rules the view was answered under (nil: no rules applied).
    public var rulesVersion: Int64?
    /// The rows of the replica's whole view (its subscriptions applied) at ``hubVersion``, when
    /// the request asked (``SyncPullRequest/countsViewRows``): what progress counts towards.
    public var viewRows: Int?
    /// The token of the view this answer brings the replica to (nil: no rules applied, or a hub
    /// that sends none). The replica sends it back as ``SyncPullRequest/appliedView`` once applied.
    public var view: String?
    /// A pull's answer.
    public init(
        entries: [SyncLogEntry], hubVersion: Int64, snapshotNeeded: Bool = false, hubRolledBack: Bool = false, user: String? = nil,
        rulesVersion: Int64? = nil, viewRows: Int? = nil, view: String? = nil
    ) {
        self.entries = entries; self.hubVersion = hubVersion; self.snapshotNeeded = snapshotNeeded || hubRolledBack
        self.hubRolledBack = hubRolledBack; self.user = user; self.rulesVersion = rulesVersion; self.viewRows = viewRows
        self.view = view
    }

    private enum CodingKeys: String, CodingKey { case entries, hubVersion, snapshotNeeded, hubRolledBack, user, rulesVersion, viewRows, view }

    // A hub from before log trimming sends no `snapshotNeeded`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decode([SyncLogEntry].self, forKey: .entries)
        hubVersion = try container.decode(Int64.self, forKey: .hubVersion)
        snapshotNeeded = try container.decodeIfPresent(Bool.self, forKey: .snapshotNeeded) ?? false
        hubRolledBack = try container.decodeIfPresent(Bool.self, forKey: .hubRolledBack) ?? false
        user = try container.decodeIfPresent(String.self, forKey: .user)
        rulesVersion = try container.decodeIfPresent(Int64.self, forKey: .rulesVersion)
        viewRows = try container.decodeIfPresent(Int.self, forKey: .viewRows)
        view = try container.decodeIfPresent(String.self, forKey: .view)
    }
}

/// A replica's request for a snapshot of the synced tables, for the space and tables whose schema
/// it names.
public struct SyncSnapshotRequest: Codable, Sendable {
    /// The space to copy.
    public var space: String
    /// The asking replica's name.
    public var replicaID: String
    /// The synced tables.
    public var tables: [String]
    /// The replica's fingerprint of those tables' definitions.
    public var schemaFingerprint: String
    /// The replica's subscriptions (nil or empty: its whole view).
    public var subscriptions: [SyncSubscription]?
    /// A phase of a sync by priority: only the instances of subscriptions of at least this
    /// priority (nil: the whole view).
    public var minimumPriority: Int?
    /// A request for a snapshot of `tables` of `space`.
    public init(
        space: String, replicaID: String, tables: [String], schemaFingerprint: String, subscriptions: [SyncSubscription]? = nil,
        minimumPriority: Int? = nil
    ) {
        self.space = space; self.replicaID = replicaID; self.tables = tables; self.schemaFingerprint = schemaFingerprint
        self.subscriptions = subscriptions; self.minimumPriority = minimumPriority
    }
}

/// A space's synced tables at one hub version: a SQLite database image holding those tables (and
/// none of the hub's log), which a replica copies from and then pulls after ``version``.
public struct SyncSnapshot: Sendable, Equatable {
    /// The hub version the image is at: every log entry up to it is in the image.
    public var version: Int64
    /// The image's bytes (as `Connection.serialize()` writes them).
    public var database: Data
    /// The hub's log chain at ``version`` (nil from a hub that keeps none).
    public var chain: Int64?
    /// The token of the view the image holds (``SyncPullResponse/view``; nil: no rules applied).
    public var view: String?
    /// A snapshot of the synced tables at `version`.
    public init(version: Int64, database: Data, chain: Int64? = nil, view: String? = nil) {
        self.version = version; self.database = database; self.chain = chain; self.view = view
    }
}
