#if Hub
import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import JWTKit
import Strata
import StrataSync
import StrataSyncHub
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// Every answer a replica gets, as the bytes the hub sent (the wire encodings are canonical), and
/// every error it threw.
final class RecordingTransport: SyncTransport, @unchecked Sendable {
    // @unchecked Sendable: `answers` is only touched under `lock`.
    private let lock = NSLock()
    private var answers: [Data] = []
    let inner: HTTPSyncTransport

    init(_ inner: HTTPSyncTransport) { self.inner = inner }

    var recorded: [Data] { lock.withLock { answers } }

    private func record<T>(_ body: () async throws -> T, _ encode: (T) throws -> Data) async throws -> T {
        do {
            let answer = try await body()
            let bytes = try encode(answer)
            lock.withLock { answers.append(bytes) }
            return answer
        } catch {
            lock.withLock { answers.append(Data(String(describing: error).utf8)) }
            throw error
        }
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try await record({ try await inner.push(request) }, { try JSONEncoder().encode($0) })
    }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try await record({ try await inner.pull(request) }, { try SyncWire.encode($0) })
    }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
        try await record({ try await inner.snapshot(request) }, { try SyncWire.encode($0) })
    }
}

/// Partial sync over real HTTP with real JWTs: a user who was never a member of another's list
/// gets no byte of its private rows, from any route (pull, long poll, snapshot, a push with a
/// refused write, a conflict's correction). On both hub stores: PostgreSQL's half runs with
/// STRATA_POSTGRES_URL, in a space of its own on that database.
@Suite struct PartialSyncLeakTests {
    static let secretMarkers = ["ALICE-PRIVATE-TITLE", "ALICE-LIST-NAME", "ALICE-SECOND-TODO-ID", "ALICE-LATE-TITLE"]

    static func replica(
        _ folder: TemporaryDirectory, _ name: String, space: String, port: Int, token: String,
        wait: Duration = .zero
    ) throws -> (SyncReplica, RecordingTransport) {
        let database = try Database(storageLocation: .onDisk(folder.path(name + ".sqlite")))
        try database.executeWrite { try $0.execute(PartialSyncHubExample.schema) }
        var http = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token)
        http.attempts = 1
        http.pullWait = wait
        let transport = RecordingTransport(http)
        return (
            try SyncReplica(
                database: database, replicaID: name, space: space, tables: PartialSyncHubExample.tables,
                transport: transport), transport
        )
    }

    /// `sql`'s first column as text, run on the hub's tables (a trusted snapshot, on either store).
    static func hubValues(_ hub: SyncHub, space: String, _ sql: String) throws -> [String] {
        var fingerprint = "?"
        for _ in 0..<2 {
            do {
                let snapshot = try hub.snapshot(
                    SyncSnapshotRequest(
                        space: space, replicaID: "leak-oracle", tables: PartialSyncHubExample.tables,
                        schemaFingerprint: fingerprint))
                let connection = try Connection(storageLocation: .inMemory)
                try connection.deserialize(snapshot.database)
                return try connection.query(sql)
            } catch SyncError.schemaMismatch(_, let remote) {
                fingerprint = remote
            }
        }
        throw SyncError.refused("the hub's snapshot kept refusing its own fingerprint")
    }

    @Test(arguments: ["sqlite", "postgres"])
    func aUserWhoIsNeverAMemberGetsNoByteOfAnothersPrivateRows(store: String) async throws {
        let folder = try TemporaryDirectory()
        let hub: SyncHub
        let space: String
        if store == "postgres" {
            guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
                print("PartialSyncLeakTests on PostgreSQL skipped: STRATA_POSTGRES_URL is unset (eval \"$(.ci/postgres.sh start)\")")
                return
            }
            hub = SyncHub(store: try .postgres(url: url))
            space = "leak_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        } else {
            hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
            space = "team"
        }
        try hub.createSpace(space) { try $0.execute(PartialSyncHubExample.schema) }
        try hub.setRules(PartialSyncHubExample.rules, forSpace: space)
        let keys = await hmacKeys(HMACKey(from: Array("a-long-hub-secret-of-more-than-32-bytes".utf8)))
        let expires = Date().addingTimeInterval(600)
        let aliceToken = try await keys.sign(SyncHubClaims(subject: "alice", spaces: [space: "rw"], replica: "alice", expiration: expires))
        let malloryToken = try await keys.sign(SyncHubClaims(subject: "mallory", spaces: [space: "rw"], replica: "mallory", expiration: expires))
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
            let (alice, _) = try Self.replica(folder, "alice", space: space, port: port, token: aliceToken)
            let (mallory, seen) = try Self.replica(folder, "mallory", space: space, port: port, token: malloryToken, wait: .seconds(2))
            try await alice.write { db in
                try db.execute(
                    """
                    INSERT INTO list VALUES ('secret-list', 'alice', 'ALICE-LIST-NAME');
                    INSERT INTO todo VALUES ('private-todo', 'secret-list', 'ALICE-PRIVATE-TITLE');
                    INSERT INTO todo VALUES ('ALICE-SECOND-TODO-ID', 'secret-list', 'two');
                    INSERT INTO tag VALUES ('public-tag', 'everyone sees this');
                    """)
            }
            try await alice.sync()
            // A snapshot, then pulls.
            try await mallory.bootstrap()
            #expect(try await mallory.database.read { try $0.query("SELECT count(*) FROM tag") as Int? } == 1)
            #expect(try await mallory.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 0)
            // A long poll answered by alice's later private write.
            async let polled: Void = mallory.pull()
            try await Task.sleep(for: .milliseconds(300))
            try await alice.write { try $0.execute("INSERT INTO todo VALUES ('late', 'secret-list', 'ALICE-LATE-TITLE')") }
            try await alice.sync()
            try await polled
            // Writes the rules refuse, each on alice's rows: a todo under her todo's key, her
            // list's key taken over, and a member row adding herself to alice's list.
            try await mallory.write { try $0.execute("INSERT INTO todo VALUES ('private-todo', 'secret-list', 'mine now')") }
            try await mallory.write { try $0.execute("INSERT INTO list VALUES ('secret-list', 'mallory', 'taken')") }
            try await mallory.write { try $0.execute("INSERT INTO member VALUES ('sneak', 'secret-list', 'mallory')") }
            do { try await mallory.sync() } catch let error as SyncError where !error.refusals.isEmpty {}
            let refusals = try await mallory.pendingChanges.compactMap(\.refusal)
            #expect(refusals.count == 3)
            #expect(refusals.allSatisfy { $0.reason == .forbidden || $0.reason == .dependsOnRefused }, "\(refusals)")
            // Both write the public tag (its write rule lets everyone): mallory's later write is
            // pushed while alice's is unseen, and settled by the policy.
            try await alice.write { try $0.execute("UPDATE tag SET name = 'renamed by alice' WHERE id = 'public-tag'") }
            try await alice.sync()
            try await mallory.write { try $0.execute("UPDATE tag SET name = 'renamed by mallory' WHERE id = 'public-tag'") }
            for change in try await mallory.pendingChanges where change.refusal != nil { try await mallory.discard(change) }
            do { try await mallory.sync() } catch let error as SyncError where !error.refusals.isEmpty {}
            // No byte of alice's private rows in any answer mallory got.
            let answers = seen.recorded
            #expect(answers.count >= 6)
            for answer in answers {
                for marker in Self.secretMarkers {
                    #expect(answer.range(of: Data(marker.utf8)) == nil, "an answer to mallory holds \(marker)")
                }
            }
            for refusal in refusals {
                for marker in Self.secretMarkers { #expect(!refusal.description.contains(marker)) }
            }
            #expect(try await mallory.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 0)
            #expect(try Self.hubValues(hub, space: space, "SELECT title FROM todo WHERE id = 'private-todo'") == ["ALICE-PRIVATE-TITLE"])
            #expect(try Self.hubValues(hub, space: space, "SELECT CAST(count(*) AS TEXT) FROM member") == ["0"])
        }
    }
}

/// The docs' running example, for the hub's suites.
enum PartialSyncHubExample {
    static let schema = """
        CREATE TABLE list(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, name TEXT);
        CREATE TABLE member(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, user TEXT NOT NULL);
        CREATE TABLE todo(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, title TEXT);
        CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, name TEXT);
        """
    static let tables = ["list", "member", "todo", "tag"]
    static let rules = SyncRules(
        buckets: [
            SyncBucket(
                name: "lists",
                parameters: "SELECT id AS list FROM list WHERE owner = auth.user UNION SELECT list FROM member WHERE user = auth.user",
                data: ["list": "id = bucket.list", "todo": "list = bucket.list", "member": "list = bucket.list"]),
            SyncBucket(name: "everyone", data: ["tag": "true"])
        ],
        writes: [
            "list": "owner = auth.user",
            "todo": "list IN (SELECT id FROM list WHERE owner = auth.user UNION SELECT list FROM member WHERE user = auth.user)",
            "member": "list IN (SELECT id FROM list WHERE owner = auth.user)",
            "tag": "true"
        ])
}
#endif
