// Answers a replica drops as stale (a pull stream's frame, a pull's page): never a lost view move, no needless snapshot.
import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// A transport whose identity can change (a refreshed token), whose pulls can be held after the
/// request was built, whose frames carrying entries can be held, and which counts snapshots.
struct HeldAnswersTransport: SyncTransport {
    let hub: SyncHub
    let identity: Locked<SyncIdentity?>
    let pullsOpen = Locked(true)
    let pullWaiting = Locked(false)
    let framesOpen = Locked(true)
    let snapshots = Locked(0)
    let opened = Locked(0)
    init(hub: SyncHub, identity: SyncIdentity?) {
        self.hub = hub
        self.identity = Locked(identity)
    }
    func inner() -> InProcessSyncTransport {
        var transport = identity.current.map { InProcessSyncTransport(hub: hub, identity: $0) } ?? InProcessSyncTransport(hub: hub)
        transport.streamsPulls = true
        return transport
    }
    var signedInUser: String? { inner().signedInUser }
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await inner().push(request) }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let transport = inner()
        if !pullsOpen.current {
            pullWaiting.withLock { $0 = true }
            while !pullsOpen.current { try await Task.sleep(for: .milliseconds(5)) }
            pullWaiting.withLock { $0 = false }
        }
        return try await transport.pull(request)
    }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
        snapshots.withLock { $0 += 1 }
        return try await inner().snapshot(request)
    }
    func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>? {
        guard let frames = try inner().pullStream(request) else { return nil }
        opened.withLock { $0 += 1 }
        let open = framesOpen
        return relayed(frames) { frame in
            if !frame.response.entries.isEmpty {
                while !open.current { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }
}

@Suite struct StaleAnswerViewTests {
    static let groupRules = SyncRules(buckets: [
        SyncBucket(name: "groups", parameters: "SELECT id AS g FROM grp WHERE id IN auth.groups", data: ["doc": "grp = bucket.g", "grp": "id = bucket.g"])
    ])

    /// Bob's replica over a `HeldAnswersTransport` with `identity`, pulled once from a seeded hub
    /// (with `rules`, when given), and what keeps the hub alive; nil when the hub cannot run here.
    static func pulledBob(
        _ folder: SyncFolder, rules: SyncRules? = nil, identity: SyncIdentity?
    ) async throws -> (SyncHub, Any?, SyncReplica, HeldAnswersTransport, SyncReplica)? {
        guard let (hub, keep, admin) = try await ListClaimTests.seededHub(.sqlite, folder, rules: rules) else { return nil }
        let transport = HeldAnswersTransport(hub: hub, identity: identity)
        let bob = try ListClaimTests.replica(folder, "bob", transport: transport)
        try await bob.pull()
        return (hub, keep, admin, transport, bob)
    }

    static func rows(_ replica: SyncReplica) async throws -> [String] {
        try await replica.database.read { try $0.query("SELECT id || ':' || ifnull(grp, '-') || ':' || body FROM doc ORDER BY id") as [String] }
    }

    /// The claim narrows ({g1, g2} -> {g1}) while a stream opened on the wide token is open; a
    /// pull on the narrow token is asked for before a commit, answered after the stream applied
    /// that commit. After the next pull, no g2 row may remain.
    @Test func aPullAnswerDroppedAfterAClaimNarrowedLeadsToASnapshot() async throws {
        let folder = try SyncFolder()
        guard
            let (_, keep, admin, transport, bob) = try await Self.pulledBob(
                folder, rules: Self.groupRules, identity: SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2"]]))
        else { return }
        defer { withExtendedLifetime(keep) {} }
        #expect(try await ListClaimTests.ids(bob) == ["a", "b"])
        let following = Task { try await bob.followPullStream() }
        defer { following.cancel() }
        #expect(try await eventually { transport.opened.current > 0 })
        try await Task.sleep(for: .milliseconds(300))
        // The token is refreshed with fewer groups; a pull is asked for and held.
        transport.identity.withLock { $0 = SyncIdentity(user: "bob", listClaims: ["groups": ["g1"]]) }
        transport.pullsOpen.withLock { $0 = false }
        let racing = Task { try await bob.pull() }
        #expect(try await eventually { transport.pullWaiting.current })
        try await admin.write { try $0.execute("UPDATE doc SET body = 'secret' WHERE id = 'b'; UPDATE doc SET body = 'x2' WHERE id = 'a'") }
        try await admin.sync()
        let streamApplied = try await eventually { try await Self.rows(bob).contains("b:g2:secret") }
        transport.pullsOpen.withLock { $0 = true }
        try await racing.value
        // The pull that dropped its answer as stale ends holding the narrow view: its next
        // request named the wide view it still held, and the hub answered with a snapshot.
        let afterRacing = try await Self.rows(bob)
        #expect(!afterRacing.contains { $0.contains(":g2:") }, "held after the racing pull: \(afterRacing)")
        try await bob.pull()
        try await bob.pull()
        try await bob.pull()
        let held = try await Self.rows(bob)
        #expect(held == ["a:g1:x2"], "stream applied first: \(streamApplied); held after the next pull: \(held)")
    }

    /// An answer that moved the view, lost on its way (the hub answered, recorded the narrow
    /// view, and the connection dropped): with no commit since, every later pull found the
    /// replica's cursor at a record of the view it never applied, and moved nothing, for good.
    /// The replica names the view it holds; the hub answers a mismatch with a snapshot.
    @Test(arguments: ListClaimTests.Store.allCases)
    func anAnswerLostAfterTheViewNarrowedIsMadeGoodByTheNextPull(store: ListClaimTests.Store) async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, _) = try await ListClaimTests.seededHub(store, folder, rules: Self.groupRules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let transport = LosingTransport(hub: hub, identity: Locked(SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2"]])))
        let bob = try ListClaimTests.replica(folder, "bob", transport: transport)
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a", "b"])
        transport.identity.withLock { $0 = SyncIdentity(user: "bob", listClaims: ["groups": ["g1"]]) }
        transport.loseNextPull.withLock { $0 = true }
        await #expect(throws: LosingTransport.Lost.self) { try await bob.pull() as Void }
        #expect(try await ListClaimTests.ids(bob) == ["a", "b"]) // nothing applied yet
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a"])
        // And it stays so: the next pulls move nothing more.
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a"])
    }

    /// A space without rules: a stale frame carrying entries needs no snapshot (the cursor check
    /// alone keeps it from being applied twice). Counts snapshots.
    @Test func aStaleFrameOnASpaceWithoutRulesTakesNoSnapshot() async throws {
        let folder = try SyncFolder()
        guard let (_, keep, admin, transport, bob) = try await Self.pulledBob(folder, identity: nil) else { return }
        defer { withExtendedLifetime(keep) {} }
        transport.framesOpen.withLock { $0 = false }
        let following = Task { try await bob.followPullStream() }
        defer { following.cancel() }
        #expect(try await eventually { transport.opened.current > 0 })
        try await Task.sleep(for: .milliseconds(300))
        try await admin.write { try $0.execute("UPDATE doc SET body = 'one' WHERE id = 'a'") }
        try await admin.sync()
        // The app's pull, beside the open stream.
        try await bob.pull()
        transport.framesOpen.withLock { $0 = true }
        _ = try await following.value
        try await bob.pull()
        #expect(try await Self.rows(bob).contains("a:g1:one"))
        #expect(transport.snapshots.current == 0, "snapshots: \(transport.snapshots.current)")
    }

    /// A normal sync loop on a space without rules, with the app pulling beside it: count snapshots.
    @Test func aSyncLoopBesideAppPullsWithoutRulesTakesNoSnapshot() async throws {
        let folder = try SyncFolder()
        guard let (_, keep, admin, transport, bob) = try await Self.pulledBob(folder, identity: nil) else { return }
        defer { withExtendedLifetime(keep) {} }
        let loop = bob.startSyncing(interval: .milliseconds(20))
        for round in 0..<25 {
            try await admin.write { try $0.run("UPDATE doc SET body = ? WHERE id = 'a'", "r\(round)") }
            try await admin.sync()
            try await bob.pull()
        }
        let converged = try await eventually { try await Self.rows(bob).contains("a:g1:r24") }
        await loop.stop()
        #expect(converged)
        #expect(transport.snapshots.current == 0, "snapshots: \(transport.snapshots.current), streams opened: \(transport.opened.current)")
    }

    /// Many pulls at once through pullTogether: each answer equals the same pull answered alone.
    @Test func manyConcurrentPullsEachGetTheirOwnAnswer() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, admin) = try await ListClaimTests.seededHub(.sqlite, folder) else { return }
        defer { withExtendedLifetime(keep) {} }
        for round in 0..<30 {
            try await admin.write { try $0.run("UPDATE doc SET body = ? WHERE id = ?", "r\(round)", ["a", "b", "c"][round % 3]) }
            try await admin.sync()
        }
        let fingerprint: String
        do {
            _ = try hub.pull(SyncPullRequest(space: "s", replicaID: "x", tables: ListClaimTests.tables, schemaFingerprint: "?", after: 0, limit: 1))
            fingerprint = "?"
        } catch SyncError.schemaMismatch(_, let remote) { fingerprint = remote }
        var random = SeededRandom(seed: 7)
        let requests = (0..<400).map { index -> SyncPullRequest in
            SyncPullRequest(
                space: "s", replicaID: "p\(index)", tables: ListClaimTests.tables,
                schemaFingerprint: Int.random(in: 0..<10, using: &random) == 0 ? "bad" : fingerprint,
                after: Int64(Int.random(in: 0..<34, using: &random)), limit: Int.random(in: 1...7, using: &random))
        }
        func describe(_ result: Result<SyncPullResponse, any Error>) -> String {
            switch result {
            case .success(let r):
                return "ok \(r.hubVersion) \(r.snapshotNeeded) \(r.hubRolledBack) "
                    + r.entries.map { "\($0.version)/\($0.changeset.count)" }.joined(separator: ",")
            case .failure(let e): return "threw \(e)"
            }
        }
        let alone = requests.map { request in describe(Result { try hub.pull(request) }) }
        let together = await withTaskGroup(of: (Int, String).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    let transport = InProcessSyncTransport(hub: hub)
                    do { return (index, describe(.success(try await transport.pull(request)))) } catch { return (index, describe(.failure(error))) }
                }
            }
            var answers = [String](repeating: "", count: requests.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
        let differing = (0..<requests.count).filter { alone[$0] != together[$0] }
        #expect(differing.isEmpty, "\(differing.prefix(5).map { "\(requests[$0].after)/\(requests[$0].limit): \(alone[$0]) vs \(together[$0])" })")
    }
}

/// A transport that can lose one pull's answer after the hub gave it (a connection dropped on the
/// way back), with an identity that can change (a refreshed token).
struct LosingTransport: SyncTransport {
    struct Lost: Error {}
    let hub: SyncHub
    let identity: Locked<SyncIdentity>
    let loseNextPull = Locked(false)
    var signedInUser: String? { identity.current.user }
    func inner() -> InProcessSyncTransport { InProcessSyncTransport(hub: hub, identity: identity.current) }
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await inner().push(request) }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let response = try await inner().pull(request)
        if loseNextPull.withLock({ lose in
            defer { lose = false }; return lose
        }) {
            throw Lost()
        }
        return response
    }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner().snapshot(request) }
}
