#if Hub
import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JWTKit
import Strata
import StrataSync
import StrataSyncHub
import StrataTestSupport
import Synchronization
import Testing

/// Issue 81's refusals over HTTP with a real JWT: reported once, held (never sent again) until
/// retried or the rules change, which the hub's answers carry as the rules version.
@Suite struct RefusalsOverHTTPTests {
    static let schema = """
        CREATE TABLE note(id TEXT PRIMARY KEY NOT NULL, owner TEXT);
        CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, name TEXT);
        """
    static let tables = ["note", "tag"]

    /// Counts the entries pushed through an HTTP transport.
    final class Counting: SyncTransport {
        let inner: HTTPSyncTransport
        let pushed = Mutex(0)
        init(_ inner: HTTPSyncTransport) { self.inner = inner }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            pushed.withLock { $0 += request.entries.count }
            return try await inner.push(request)
        }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await inner.pull(request) }
        func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner.snapshot(request) }
    }

    @Test func aRefusalIsReportedOnceAndHeldUntilTheRulesChange() async throws {
        let folder = try TemporaryDirectory()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        let rules = SyncRules(
            buckets: [SyncBucket(name: "mine", data: ["note": "owner = auth.user"]), SyncBucket(name: "tags", data: ["tag": "true"])],
            writes: ["note": "owner = auth.user"])
        try hub.setRules(rules, forSpace: "team")
        let keys = await hmacKeys(HMACKey(from: Array("a-long-hub-secret-of-more-than-32-bytes".utf8)))
        let token = try await keys.sign(
            SyncHubClaims(subject: "alice", spaces: ["team": "rw"], replica: "alice", expiration: Date().addingTimeInterval(600)))
        try Connection(storageLocation: .onDisk(folder.path("alice.sqlite"))).execute(Self.schema)
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
            var http = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token)
            http.attempts = 1
            let transport = Counting(http)
            let alice = try SyncReplica(
                database: try Database(path: folder.path("alice.sqlite")), replicaID: "alice", space: "team", tables: Self.tables,
                transport: transport)
            try await alice.write { try $0.execute("INSERT INTO tag VALUES ('t1', 'mine'); INSERT INTO note VALUES ('n1', 'alice')") }
            do {
                try await alice.sync()
                Issue.record("the tag was not refused")
            } catch SyncError.entryRefused(let refusal) {
                #expect(refusal.reason == .forbidden && refusal.table == "tag")
            }
            let sent = transport.pushed.withLock { $0 }
            try await alice.sync()
            #expect(transport.pushed.withLock { $0 } == sent, "the held write was sent again")
            #expect(try await alice.status.lastError == nil)
            #expect(try await alice.refusedChanges.count == 1)
            // Tags become writable: the next pull names the new rules, the push after offers the tag.
            var open = rules
            open.writes["tag"] = "true"
            try hub.setRules(open, forSpace: "team")
            try await alice.sync()
            try await alice.sync()
            #expect(try await alice.refusedChanges.isEmpty)
            #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM tag") as Int? } == 1)
        }
    }
}
#endif
