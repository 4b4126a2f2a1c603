// A hub in the same process: tests, and apps that keep the hub beside the replicas.
import Foundation
import Strata

/// A transport to a hub in the same process.
public struct InProcessSyncTransport: SyncTransport {
    /// The hub every request goes to.
    public let hub: SyncHub
    /// A transport to `hub`.
    public init(hub: SyncHub) { self.hub = hub }
    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.push(request) }
    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try hub.pull(request) }
    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try hub.snapshot(request) }
}
