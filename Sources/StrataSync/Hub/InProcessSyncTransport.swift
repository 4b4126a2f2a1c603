// A hub in the same process: tests, and apps that keep the hub beside the replicas.
import Foundation
import Strata

/// A transport to a hub in the same process.
///
/// ```swift
/// let trusted = InProcessSyncTransport(hub: hub)                                   // every row
/// let alice = InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "alice"))  // her view
/// ```
public struct InProcessSyncTransport: SyncTransport {
    /// The hub every request goes to.
    public let hub: SyncHub
    /// Who syncs through it: nil for a trusted caller that sees and writes every row, whatever
    /// the space's rules.
    public let identity: SyncIdentity?
    /// Whether a replica's sync loop follows a pull stream (``SyncTransport/pullStream(_:)``)
    /// rather than pulling again after each interval: the hub sends each new version as it
    /// commits.
    public var streamsPulls = false

    /// A trusted transport to `hub`: every row, whatever the space's rules.
    public init(hub: SyncHub) {
        self.hub = hub
        self.identity = nil
    }

    /// A transport to `hub` for `identity`: on a space with rules, the rows of its buckets, and the
    /// writes its write rules allow.
    public init(hub: SyncHub, identity: SyncIdentity) {
        self.hub = hub
        self.identity = identity
    }

    /// The identity's user (nil for a trusted caller).
    public var signedInUser: String? { identity?.user }

    private var caller: SyncCaller { identity.map { .user($0) } ?? .trusted }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.push(request, caller: caller) }
    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await hub.pullTogether(request, caller: caller) }
    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try hub.snapshot(request, caller: caller) }

    /// The hub's frames for `request` as they come, when ``streamsPulls`` is on.
    public func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>? {
        guard streamsPulls else { return nil }
        let hub = self.hub
        let caller = self.caller
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await hub.followPulls(request, caller: caller, heartbeat: .seconds(15), until: .now + .seconds(3_600)) { frame in
                        guard let frame else { return true }
                        if case .terminated = continuation.yield(frame) { return false }
                        return true
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
