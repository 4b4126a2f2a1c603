import Foundation
import Strata
@testable import StrataSync
import StrataTestSupport
import Synchronization
import Testing

/// User switches and re-logins: a write whose answer was lost is never applied again over a newer
/// value, only the former names that can hold such a write are kept, a space switch forgets them,
/// and the HTTP transport names its JWT's user. (One test per defect a probe of user switches
/// found.)
@Suite struct SyncUserSwitchTests {
    /// Loses the answer of the first push once `losing` (the hub applied it), and records every
    /// push request it sends.
    final class Recording: SyncTransport, Sendable {
        let inner: InProcessSyncTransport
        private let state: Mutex<(losing: Bool, requests: [SyncPushRequest])>
        init(_ inner: InProcessSyncTransport, losing: Bool) {
            self.inner = inner
            state = Mutex((losing, []))
        }
        var signedInUser: String? { inner.signedInUser }
        var requests: [SyncPushRequest] { state.withLock { $0.requests } }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            state.withLock { $0.requests.append(request) }
            let response = try await inner.push(request)
            if state.withLock({ state in
                defer { state.losing = false }; return state.losing
            }) {
                throw SyncError.hubUnreachable(url: "test", reason: "the answer was lost")
            }
            return response
        }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await inner.pull(request) }
        func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner.snapshot(request) }
    }

    /// The phone's write applied but its answer lost, the laptop's newer value over it; then the
    /// phone's file reopened under each of `names` with no sync between, and synced under the last.
    static func reopenedUnder(_ names: [String]) async throws -> (rows: [String], requests: [SyncPushRequest]) {
        let folder = try SyncFolder()
        let hub = try SyncDataIntegrityTests.hub(folder)
        try await SyncDataIntegrityTests.phoneWriteWhoseAnswerIsLostThenLaptopChangesIt(folder, hub)
        let recording = Recording(InProcessSyncTransport(hub: hub), losing: false)
        var last: SyncReplica?
        for name in names {
            last = try SyncDataIntegrityTests.replica(folder, name, file: "phone", transport: recording)
        }
        try await #require(last).sync()
        return (try SyncDataIntegrityTests.hubRows(hub), recording.requests)
    }

    /// Nine re-logins offline pushed the one name that held the applied write out of the 8
    /// kept, and the write was applied again over a newer value. Only names a push went out
    /// under are kept now.
    @Test func nineOfflineReLoginsDoNotReplayALostAnswer() async throws {
        let (rows, requests) = try await Self.reopenedUnder((2...10).map { "phone-\($0)" })
        #expect(rows == ["a='new'"])
        #expect(requests.first?.formerReplicaIDs?.count == 1)
    }

    /// Switching back and forth between two accounts kept duplicates of their names, which
    /// pushed the first name out after three distinct ones.
    @Test func switchingBackAndForthKeepsTheNameThatHoldsTheWrite() async throws {
        let (rows, requests) = try await Self.reopenedUnder(["phone-2", "phone-3", "phone-2", "phone-3", "phone-2", "phone-3", "phone-2", "phone-3", "phone-2"])
        #expect(rows == ["a='new'"])
        let formers = requests.first?.formerReplicaIDs ?? []
        #expect(Set(formers).count == formers.count)
    }

    /// A space switch (after the pending write was discarded) kept the old space's former IDs,
    /// and every push to the new space named them.
    @Test func aSpaceSwitchForgetsFormerIDs() async throws {
        let folder = try SyncFolder()
        let hub = try SyncDataIntegrityTests.hub(folder)
        try hub.createSpace("s2") { try $0.execute(SyncDataIntegrityTests.schema) }
        try await SyncDataIntegrityTests.phoneWriteWhoseAnswerIsLostThenLaptopChangesIt(folder, hub)
        let relogged = try SyncDataIntegrityTests.replica(folder, "phone-2", file: "phone", transport: InProcessSyncTransport(hub: hub))
        #expect(try await relogged.discardPendingChanges() == 1)
        let recording = Recording(InProcessSyncTransport(hub: hub), losing: false)
        let moved = try SyncReplica(database: relogged.database, replicaID: "phone-2", space: "s2", tables: ["t"], transport: recording)
        try await moved.sync()
        try await moved.write { try $0.execute("INSERT INTO t VALUES ('z', 1)") }
        try await moved.sync()
        #expect(!recording.requests.isEmpty)
        #expect(recording.requests.allSatisfy { $0.formerReplicaIDs == nil })
    }

    /// The HTTP transport named no user, so after another user signed in on a file, that user's
    /// own writes were taken for the previous user's until the hub's first answer, refused as
    /// `userChanged`, and later applied under the previous user. It now names the JWT's `sub`
    /// (the user the hub will verify), or the user it was given.
    @Test func theHTTPTransportNamesItsJWTsSubject() throws {
        func jwt(_ payload: String) -> String {
            let encoded = Data(payload.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return "eyJhbGciOiJIUzI1NiJ9." + encoded + ".c2lnbmF0dXJl"
        }
        let url = URL(fileURLWithPath: "/")
        #expect(HTTPSyncTransport(url: url, token: jwt(#"{"sub":"bob","org":"o1"}"#)).signedInUser == "bob")
        // Base64url with its padding removed, and a name that needs it: '?' and '>' encode to '/' and '+'.
        #expect(HTTPSyncTransport(url: url, token: jwt(#"{"sub":"o'brien?>~"}"#)).signedInUser == "o'brien?>~")
        #expect(HTTPSyncTransport(url: url, token: "a-shared-token").signedInUser == nil)
        #expect(HTTPSyncTransport(url: url, token: jwt(#"{"org":"o1"}"#)).signedInUser == nil)
        #expect(HTTPSyncTransport(url: url, token: "a.b.c").signedInUser == nil)
        #expect(HTTPSyncTransport(url: url).signedInUser == nil)
        #expect(HTTPSyncTransport(url: url, token: "shared", user: "carol").signedInUser == "carol")
    }
}

/// A file another user pushed rows from, without pulling them back, then signed into by a user
/// the rules show none of them to.
@Suite struct SyncUserSwitchPartialViewTests {
    static func switchedFile(pullingAfterPush: Bool, bobsID: String, aliceSyncsFirst: Bool) async throws -> (bob: SyncReplica, hub: SyncHub) {
        let folder = try SyncFolder()
        let hub = try PartialSyncTests.hub(folder)
        let alice = try PartialSyncTests.replica(folder, hub, user: "alice", name: "shared")
        if aliceSyncsFirst { try await alice.sync() }
        try await alice.write { db in
            try db.execute("INSERT INTO list VALUES ('l-a', 'alice', 'groceries'); INSERT INTO todo VALUES ('t-a', 'l-a', 'milk')")
        }
        try await alice.push()
        if pullingAfterPush { try await alice.pull() }
        let bob = try SyncReplica(
            database: alice.database, replicaID: bobsID, space: "team", tables: PartialSyncTests.tables,
            transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "bob")))
        try await bob.sync()
        return (bob, hub)
    }

    /// Bob's first sync leaves him exactly his view (none of Alice's rows), whether or not
    /// Alice's pushed rows came back in a pull before he signed in; the hub keeps them.
    @Test(arguments: [false, true], ["shared", "shared-bob"])
    func aNewUsersFirstSyncLeavesOnlyTheirView(pullingAfterPush: Bool, bobsID: String) async throws {
        for aliceSyncsFirst in [true, false] {
            try await check(pullingAfterPush: pullingAfterPush, bobsID: bobsID, aliceSyncsFirst: aliceSyncsFirst)
        }
    }

    func check(pullingAfterPush: Bool, bobsID: String, aliceSyncsFirst: Bool) async throws {
        let (bob, hub) = try await Self.switchedFile(pullingAfterPush: pullingAfterPush, bobsID: bobsID, aliceSyncsFirst: aliceSyncsFirst)
        let lists = try await bob.database.read { try PartialSyncTests.rows($0, "list") }
        let todos = try await bob.database.read { try PartialSyncTests.rows($0, "todo") }
        #expect(lists == [], "pulled after push: \(pullingAfterPush), Bob's ID: \(bobsID), Alice synced first: \(aliceSyncsFirst)")
        #expect(todos == [], "pulled after push: \(pullingAfterPush), Bob's ID: \(bobsID), Alice synced first: \(aliceSyncsFirst)")
        let kept: Int? = try hub.withSpace("team") { try $0.query("SELECT count(*) FROM list WHERE id = 'l-a'") }
        #expect(kept == 1)
        #expect(try await bob.pendingChanges.isEmpty)
    }
}
