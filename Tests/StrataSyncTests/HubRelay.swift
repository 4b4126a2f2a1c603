import StrataSync

/// A test transport that changes only its pushes (or their answers): it hands pulls and snapshots
/// to `hub` as they are.
protocol HubRelay: SyncTransport {
    var hub: SyncHub { get }
}

extension HubRelay {
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try hub.pull(request) }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try hub.snapshot(request) }
}
