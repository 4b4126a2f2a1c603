// Limits and sizes: the hub's, a replica's, and what a space may be called.
import Foundation
import Strata

/// The limits a hub keeps on what one request may carry.
public struct SyncLimits: Sendable, Equatable {
    /// Entries per push.
    public var maximumEntriesPerPush: Int
    /// Changeset bytes per push.
    public var maximumPushBytes: Int
    /// Entries per pull answer (a request asking for more gets this many).
    public var maximumEntriesPerPull: Int
    /// Changeset bytes per pull answer (at least one entry is always sent).
    public var maximumPullBytes: Int
    /// Rows one partial-sync pull may move (arrivals and departures together). A user whose
    /// moves would pass it (thousands of groups joined at once, a claim that changes their whole
    /// view) gets a snapshot of their view instead, so one pull's memory stays bounded.
    public var maximumRowsPerPull: Int

    /// The defaults: 1,000 entries and 8 MiB both ways, 50,000 rows moved per pull.
    public init(
        maximumEntriesPerPush: Int = 1_000, maximumPushBytes: Int = 8 << 20,
        maximumEntriesPerPull: Int = 1_000, maximumPullBytes: Int = 8 << 20,
        maximumRowsPerPull: Int = 50_000
    ) {
        self.maximumEntriesPerPush = maximumEntriesPerPush
        self.maximumPushBytes = maximumPushBytes
        self.maximumEntriesPerPull = maximumEntriesPerPull
        self.maximumPullBytes = maximumPullBytes
        self.maximumRowsPerPull = maximumRowsPerPull
    }
}

/// How a replica pages its pulls and batches its pushes.
public struct SyncReplicaSettings: Sendable, Equatable {
    /// Log entries asked for per pull request (the hub may answer fewer).
    public var pullPageSize: Int
    /// Outbox entries per push request, within the hub's limit (1,000 by default).
    public var maximumPushEntries: Int
    /// Changeset bytes per push request, within the hub's body limit (8 MiB by default); a
    /// single write larger than this is never pushed and is reported as refused (`.tooLarge`).
    public var maximumPushBytes: Int
    /// How ``SyncReplica/write(_:)`` captures a write: the pre-update hook where the linked
    /// SQLite has it, else a session (tests force each).
    package var capturePath: CapturePath = .automatic

    /// Settings with the defaults: pages of 500, pushes of at most 500 entries and 4 MiB.
    public init(pullPageSize: Int = 500, maximumPushEntries: Int = 500, maximumPushBytes: Int = 4 << 20) {
        self.pullPageSize = pullPageSize
        self.maximumPushEntries = maximumPushEntries
        self.maximumPushBytes = maximumPushBytes
    }
}

/// A write captured by a replica and not yet acknowledged by the hub.
public struct SyncPendingChange: Sendable, Equatable {
    /// The write's place in the replica's order.
    public let sequence: Int64
    /// What the write changed.
    public let changeset: Changeset
    /// The synced tables it changed.
    public let tables: [String]
    /// Why the hub refused it at the last push, if it did.
    public let refusal: SyncRefusal?
}

/// A space name is a file name in the hub's folder: letters, digits, `-`, `_` and `.` only.
func validateSpaceName(_ name: String) throws {
    let allowed = name.unicodeScalars.allSatisfy {
        ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" || $0 == "."
    }
    guard !name.isEmpty, allowed, !name.hasPrefix(".") else {
        throw SyncError.refused("a space name must be letters, digits, '-', '_' and '.', not \(name.debugDescription)")
    }
}

/// How changes are captured.
package enum CapturePath: String, Sendable {
    /// The hook where the linked SQLite has it, else the session.
    case automatic
    /// The pre-update hook (throws when the linked SQLite lacks it).
    case hook
    /// The session extension.
    case session
}
