import Foundation
import StrataSQift
import StrataTestSupport
import Testing

@testable import StrataSync

/// A pull's answer is applied only to the view its request named. Two answers that each move the
/// view from one cursor (the app's pull beside the loop's, answered by two hub processes before
/// either recorded its view) must not both land: the rows would be both moves, under the token of
/// the last, and the hub would never move the first one's rows again.
@Suite struct AppliedViewTests {
    @Test func anAnswerForAnotherViewThanTheOneHeldIsStale() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, _) = try await ListClaimTests.seededHub(.sqlite, folder, rules: SyncSubscriptionTests.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let transport = InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2", "g'4"]]))
        let bob = try ListClaimTests.replica(folder, "bob", transport: transport)
        try await bob.subscribe(SyncSubscription(bucket: "lists", parameters: ["l": "g2"]))
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["b"])
        let held = try #require(try await bob.database.read { try SyncStatus.state(SyncReplica.appliedViewKey, $0) as String? })
        let cursor = try await bob.status.lastPulledVersion
        // The subscription moves to another list: the hub's answer moves b out and a in, and names
        // the new view.
        let answer = try await transport.pull(
            SyncPullRequest(
                space: "s", replicaID: bob.hubReplicaID, tables: ListClaimTests.tables,
                schemaFingerprint: try hub.expectedFingerprint(of: ListClaimTests.tables),
                after: cursor, limit: 100, subscriptions: [SyncSubscription(bucket: "lists", parameters: ["l": "g1"])], appliedView: held))
        let newView = try #require(answer.view)
        #expect(newView != held && !answer.entries.isEmpty)
        // Another answer from the same cursor landed first (its token is now the one held).
        try await bob.database.write { try SyncStatus.setState(SyncReplica.appliedViewKey, .text("another view"), $0) }
        var counted = false
        let outcome = try await bob.absorb(answer, after: cursor, appliedView: held, minimumPriority: nil, countsRows: false, counted: &counted)
        #expect(outcome == .stale)
        #expect(try await ListClaimTests.ids(bob) == ["b"])
        #expect(try await bob.database.read { try SyncStatus.state(SyncReplica.appliedViewKey, $0) as String? } == "another view")
        #expect(try await bob.database.read { try SyncStatus.state("snapshot_needed", $0) as Int64? } == nil)
        // Holding the view the request named, the same answer applies, and names the new view.
        try await bob.database.write { try SyncStatus.setState(SyncReplica.appliedViewKey, .text(held), $0) }
        #expect(try await bob.absorb(answer, after: cursor, appliedView: held, minimumPriority: nil, countsRows: false, counted: &counted) == .applied)
        #expect(try await ListClaimTests.ids(bob) == ["a"])
        #expect(try await bob.database.read { try SyncStatus.state(SyncReplica.appliedViewKey, $0) as String? } == newView)
    }

    /// From a defect hunt: rules that read only the user record the same bytes for every user
    /// (a record keeps the claims the data rules read, not `auth.user`). A file synced as replica
    /// "one" for g1, then as "two" for g2, then as "one" for g1 again found g1's old record at its
    /// cursor, with the same token, and kept g2's rows. The token names the user.
    @Test func aFileBackUnderAnEarlierReplicaNameForAnotherUserStartsOver() async throws {
        let folder = try SyncFolder()
        guard
            let (hub, keep, _) = try await ListClaimTests.seededHub(
                .sqlite, folder, rules: SyncRules(buckets: [SyncBucket(name: "mine", data: ["doc": "grp = auth.user", "grp": "id = auth.user"])]))
        else { return }
        defer { withExtendedLifetime(keep) {} }
        let path = try ListClaimTests.schemaFile(folder, "file")
        func open(_ name: String, as user: String) throws -> SyncReplica {
            try SyncReplica(
                database: try Database(path: path), replicaID: name, space: "s", tables: ListClaimTests.tables,
                transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: user)))
        }
        func held(_ replica: SyncReplica) async throws -> [String] {
            try await ListClaimTests.ids(replica, "doc") + (try await ListClaimTests.ids(replica, "grp"))
        }
        let first = try open("one", as: "g1")
        try await first.pull()
        #expect(try await held(first) == ["a", "g1"])
        let second = try open("two", as: "g2")
        try await second.pull()
        #expect(try await held(second) == ["b", "g2"])
        let again = try open("one", as: "g1")
        try await again.pull()
        try await again.pull()
        #expect(try await held(again) == ["a", "g1"])
    }
}
