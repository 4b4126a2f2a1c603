// What an app shows of a replica: pending writes, the pulled version, the last error, read from
// its bookkeeping.
import Foundation
import Strata

/// What an app shows about a replica's sync.
public struct SyncStatus: Sendable, Equatable {
    /// Captured writes the hub has not acknowledged.
    public var pendingChangeCount: Int
    /// The hub version pulled up to.
    public var lastPulledVersion: Int64
    /// Why the last sync failed; nil once one succeeds.
    public var lastError: String?
    /// The synced tables wait for the hub's snapshot (after a team switch, a schema widened, a
    /// hub restored): until a pull brings it they still hold what they held before, whatever
    /// ``lastPulledVersion`` says.
    public var needsSnapshot: Bool
    /// Pending writes refused and held (``SyncReplica/refusedChanges``), counted in
    /// ``pendingChangeCount`` too.
    public var refusedChangeCount: Int
    /// How far the last first sync (or start over from a snapshot) came: rows held of rows in
    /// the view, phase by phase (nil: none reported yet).
    public var progress: SyncProgress?

    /// A status made of its parts.
    public init(
        pendingChangeCount: Int, lastPulledVersion: Int64, lastError: String?, needsSnapshot: Bool = false, refusedChangeCount: Int = 0,
        progress: SyncProgress? = nil
    ) {
        self.pendingChangeCount = pendingChangeCount
        self.lastPulledVersion = lastPulledVersion
        self.lastError = lastError
        self.needsSnapshot = needsSnapshot
        self.refusedChangeCount = refusedChangeCount
        self.progress = progress
    }

    /// The status of the replica kept in `connection`'s database (zeros before its first sync).
    public static func read(_ connection: Connection) throws -> SyncStatus {
        let outbox = SyncOutbox(connection)
        guard try outbox.exists() else {
            return SyncStatus(pendingChangeCount: 0, lastPulledVersion: 0, lastError: nil)
        }
        let pending = try outbox.count()
        let pulled: Int64 = try outbox.state("pulled") ?? 0
        let error: String? = try outbox.state("last_error")
        let snapshot: Int64? = try outbox.state("snapshot_needed")
        return SyncStatus(
            pendingChangeCount: pending, lastPulledVersion: pulled, lastError: error, needsSnapshot: snapshot == 1,
            refusedChangeCount: try outbox.refusals().count, progress: try SyncProgress.read(outbox))
    }

    /// The hub's log chain at the pulled version, as the last pull or snapshot brought it.
    static func pulledChain(_ connection: Connection) throws -> Int64? {
        try SyncOutbox(connection).state("pulled_chain")
    }

    /// A value kept in the replica's state table.
    static func state<Value: Extractable>(_ key: String, _ connection: Connection) throws -> Value? where Value.DataType == Value {
        try SyncOutbox(connection).state(key)
    }

    static func setState(_ key: String, _ value: BindingValue, _ connection: Connection) throws {
        try SyncOutbox(connection).setState(key, value)
    }
}
