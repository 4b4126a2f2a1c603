import Strata
import StrataSync

/// A transport to a hub that can be replaced while replicas use it, as a DNS name is pointed at a
/// machine restored from a backup: set `hub` to the new one.
public final class RedirectableTransport: SyncTransport, Sendable {
    package let hub: Locked<SyncHub>

    public init(_ hub: SyncHub) { self.hub = Locked(hub) }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.current.push(request) }
    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try hub.current.pull(request) }
    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try hub.current.snapshot(request) }
}
