import Foundation
import Strata
import StrataSync
import StrataTestSupport
import Synchronization
import Testing

/// A transport that counts the entries it carries to the hub.
final class CountingTransport: SyncTransport {
    let inner: any SyncTransport
    let pushed = Mutex<[Int64]>([])

    init(_ inner: any SyncTransport) { self.inner = inner }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        pushed.withLock { $0 += request.entries.map(\.sequence) }
        return try await inner.push(request)
    }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await inner.pull(request) }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner.snapshot(request) }
    var signedInUser: String? { inner.signedInUser }
}

/// Issue 81: one sync reports every refusal it met, each once; a refused write is held (not
/// sent again) until the app retries or discards it, or the space's rules change, and a later
/// sync that meets nothing new succeeds.
@Suite struct RefusalsReportedOnceTests {
    @Test func everyRefusalIsReportedOnceAndHeldUntilRetriedOrTheRulesChange() async throws {
        let folder = try SyncFolder()
        let (hub, _, seeded) = try await PartialSyncTests.seededSpace(folder, signingIn: "alice")
        let counter = Mutex<CountingTransport?>(nil)
        let alice = try PartialSyncTests.replica(folder, hub, user: "alice", name: "alice-again") { inner in
            let counting = CountingTransport(inner)
            counter.withLock { $0 = counting }
            return counting
        }
        withExtendedLifetime(seeded) {}
        let transport = try #require(counter.withLock { $0 })
        // Into a list she cannot see, a tag (no write rule), and one she may write.
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('x1', 'L2', 'sneaky')") }
        try await alice.write { try $0.execute("INSERT INTO tag VALUES ('g2', 'mine')") }
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('ok', 'L1', 'bread')") }
        do {
            try await alice.sync()
            Issue.record("the refusals were not reported")
        } catch let error as SyncError {
            guard case .entriesRefused(let refusals) = error else { throw error }
            #expect(refusals.map(\.reason) == [.forbidden, .forbidden])
            #expect(Set(refusals.compactMap(\.table)) == ["todo", "tag"])
            #expect(error.refusals == refusals)
        }
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = 'ok'") as Int? } == 1)
        let refused = try await alice.refusedChanges
        #expect(refused.count == 2)
        var status = try await alice.status
        #expect(status.refusedChangeCount == 2 && status.pendingChangeCount == 2)
        // Held: the next syncs succeed, send nothing and report nothing again.
        let sentBefore = transport.pushed.withLock { $0.count }
        try await alice.sync()
        try await alice.sync()
        #expect(transport.pushed.withLock { $0.count } == sentBefore, "a held write was sent again")
        status = try await alice.status
        #expect(status.lastError == nil && status.refusedChangeCount == 2)
        // Retried: offered once more, refused again, reported again, once.
        #expect(try await alice.retry(try #require(refused.first)))
        await #expect(throws: SyncError.self) { try await alice.sync() }
        #expect(transport.pushed.withLock { $0.count } == sentBefore + 1)
        try await alice.sync()
        // The rules change (tags become writable): the held writes are offered again at the
        // first push after a pull saw the new rules, and the tag goes.
        var rules = PartialSyncTests.rules
        rules.writes["tag"] = "true"
        try hub.setRules(rules, forSpace: "team")
        try await alice.sync()
        do { try await alice.sync() } catch let error as SyncError where !error.refusals.isEmpty {
            #expect(error.refusals.map(\.table) == ["todo"], "only the todo is still refused")
        }
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM tag WHERE id = 'g2'") as Int? } == 1)
        #expect(try await alice.refusedChanges.map(\.refusal?.table) == ["todo"])
        // Discarded: gone, and the view is hers again.
        for change in try await alice.refusedChanges { try await alice.discard(change) }
        try await alice.sync()
        #expect(try await alice.status.pendingChangeCount == 0)
        try await PartialSyncTests.checkView(alice, hub, user: "alice", "after the discard")
    }

    /// Removing the rules is a rules change too: the held write is offered again and, with no
    /// rules to refuse it, applied.
    @Test func removingTheRulesOffersHeldWritesAgain() async throws {
        let folder = try SyncFolder()
        let (hub, _, seeded) = try await PartialSyncTests.seededSpace(folder, signingIn: "alice")
        withExtendedLifetime(seeded) {}
        let alice = try PartialSyncTests.replica(folder, hub, user: "alice", name: "alice-again")
        try await alice.write { try $0.execute("INSERT INTO tag VALUES ('g7', 'held')") }
        await #expect(throws: SyncError.self) { try await alice.sync() }
        try await alice.sync()
        #expect(try await alice.refusedChanges.count == 1)
        try hub.setRules(nil, forSpace: "team")
        // The first sync learns the removal (its pull asks for a snapshot of the whole space and
        // names the new rules version); the write goes at the next push.
        try await alice.sync()
        try await alice.sync()
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM tag WHERE id = 'g7'") as Int? } == 1)
        #expect(try await alice.refusedChanges.isEmpty)
        #expect(try await alice.status.pendingChangeCount == 0)
    }

    /// The background loop neither re-pushes a held write nor flips its status.
    @Test func theLoopHoldsARefusedWriteAndItsStatusSettles() async throws {
        let folder = try SyncFolder()
        let (hub, _, seeded) = try await PartialSyncTests.seededSpace(folder, signingIn: "alice")
        withExtendedLifetime(seeded) {}
        let counter = Mutex<CountingTransport?>(nil)
        let alice = try PartialSyncTests.replica(folder, hub, user: "alice", name: "alice-again") { inner in
            let counting = CountingTransport(inner)
            counter.withLock { $0 = counting }
            return counting
        }
        let transport = try #require(counter.withLock { $0 })
        let loop = alice.startSyncing(interval: .milliseconds(20), maximumBackoff: .milliseconds(100))
        try await alice.write { try $0.execute("INSERT INTO tag VALUES ('g9', 'not mine to write')") }
        // Watched for three seconds: the refusal is the loop's error at most once (its report;
        // it flipped back every second), and it is held, never sent again.
        var episodes = 0
        var showing = false
        var held = false
        for _ in 0..<120 {
            let status = try await alice.status
            let refusal = status.lastError?.contains("refused") ?? false
            if refusal, !showing { episodes += 1 }
            showing = refusal
            held = held || status.refusedChangeCount == 1
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(held)
        #expect(episodes <= 1, "the refusal became the loop's error \(episodes) times")
        await loop.stop()
        #expect(transport.pushed.withLock { $0.filter { $0 == 1 }.count } == 1, "the refused write was pushed \(transport.pushed.withLock { $0 })")
    }
}
