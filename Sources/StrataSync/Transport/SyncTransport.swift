// How a replica reaches its hub: the protocol every transport implements.
import Foundation
import Strata

/// Carries pushes and pulls to a hub: in process (``InProcessSyncTransport``) or over a network.
public protocol SyncTransport: Sendable {
    /// Sends a push to the hub and returns its answer.
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse
    /// Asks the hub for log entries after a version.
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse
    /// Downloads the synced tables as they are at the hub's newest version, for a new replica or
    /// one behind the hub's trimmed log.
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot
    /// The user this transport signs in as, where it knows (nil: it does not, or a trusted
    /// caller). A replica opened with it makes its writes as that user at once, when nothing
    /// of another user is pending; otherwise it learns the user from the hub's answers.
    var signedInUser: String? { get }
    /// A stream of the pulls after `request.after`, one frame each time the hub's version moves,
    /// or nil when this transport cannot stream (the replica long polls instead). The stream
    /// ends when the hub ends it (it answered with a snapshot or a rollback, or shut down);
    /// cancelling the reading task closes it.
    func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>?
}

extension SyncTransport {
    /// Unknown: the replica learns its user from the hub's answers (a space with rules names it).
    public var signedInUser: String? { nil }

    /// A transport written before streams existed does not stream: its replicas long poll.
    public func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>? { nil }

    /// A transport written before snapshots existed cannot fetch one: such a replica syncs only
    /// while the hub keeps the log after its cursor.
    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
        throw SyncError.refused("this transport (\(type(of: self))) cannot download a snapshot of \(request.space)")
    }
}
