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

/// A token with an `org` claim beside the hub's own.
struct OrgClaims: JWTPayload {
    var sub: SubjectClaim
    var spaces: [String: String]
    var replica: String
    var exp: ExpirationClaim
    var org: String?
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// What a view depends on, over real HTTP with real JWTs, on both hub stores: a claim that
/// changes between tokens, a rule that reads another table, a NULL key pushed raw, and the rules
/// and files that `strata-sync-hub` refuses (a misspelt key, rules refused at creation).
@Suite struct PartialSyncDependencyHTTPTests {
    static let schema = """
        CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org TEXT, proj TEXT);
        CREATE TABLE proj(id TEXT PRIMARY KEY NOT NULL, public INTEGER NOT NULL);
        CREATE TABLE note(id TEXT PRIMARY KEY, owner TEXT);
        """
    static let tables = ["doc", "proj", "note"]
    static let rules = SyncRules(
        buckets: [
            SyncBucket(name: "org", data: ["doc": "org = auth.org"]),
            SyncBucket(name: "public", data: ["doc": "proj IN (SELECT id FROM proj WHERE public = 1)", "proj": "public = 1"]),
            SyncBucket(name: "notes", data: ["note": "owner = auth.user"])
        ],
        writes: ["note": "owner = auth.user"])

    static func hub(_ store: String, _ folder: TemporaryDirectory) throws -> (SyncHub, String)? {
        if store == "postgres" {
            guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return nil }
            let space = "dep_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            return (SyncHub(store: try .postgres(url: url)), space)
        }
        return (try SyncHub(directory: folder.url.appendingPathComponent("hub")), "team")
    }

    @Test(arguments: ["sqlite", "postgres"])
    func claimsAndOtherTablesAreFollowedAndNullKeysRefused(store: String) async throws {
        let folder = try TemporaryDirectory()
        guard let (hub, space) = try Self.hub(store, folder) else { return }
        try hub.createSpace(space) { try $0.execute(Self.schema) }
        try hub.setRules(Self.rules, forSpace: space)
        try Connection(storageLocation: .onDisk(folder.path("admin.sqlite"))).execute(Self.schema)
        let admin = try SyncReplica(
            database: try Database(storageLocation: .onDisk(folder.path("admin.sqlite"))), replicaID: "admin", space: space,
            tables: Self.tables, transport: InProcessSyncTransport(hub: hub))
        try await admin.write { db in
            try db.execute(
                """
                INSERT INTO proj VALUES ('p1', 1), ('p2', 0);
                INSERT INTO doc VALUES ('a', 'o1', NULL), ('b', 'o2', NULL), ('c', 'o3', 'p2');
                """)
        }
        try await admin.sync()
        let keys = await hmacKeys(HMACKey(from: Array("a-long-hub-secret-of-more-than-32-bytes".utf8)))
        let expires = Date().addingTimeInterval(600)
        @Sendable func token(_ org: String?) async throws -> String {
            try await keys.sign(OrgClaims(sub: "bob", spaces: [space: "rw"], replica: "bob", exp: .init(value: expires), org: org))
        }
        let path = folder.path("bob.sqlite")
        try Connection(storageLocation: .onDisk(path)).execute(Self.schema)
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
            func bob(_ org: String?) async throws -> SyncReplica {
                var http = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: try await token(org))
                http.attempts = 1
                return try SyncReplica(database: try Database(path: path), replicaID: "bob", space: space, tables: Self.tables, transport: http)
            }
            func ids(_ replica: SyncReplica) async throws -> [String] {
                try await replica.database.read { try $0.query("SELECT id FROM doc ORDER BY id") }
            }
            let first = try await bob("o1")
            try await first.sync()
            #expect(try await ids(first) == ["a"])
            // A new token with another org: o1's row leaves, o2's arrives.
            let second = try await bob("o2")
            try await second.sync()
            #expect(try await ids(second) == ["b"])
            // p2 goes public: its doc arrives, though only proj changed.
            try await admin.write { try $0.execute("UPDATE proj SET public = 1 WHERE id = 'p2'") }
            try await admin.sync()
            try await second.sync()
            #expect(try await ids(second) == ["b", "c"])
            try await admin.write { try $0.execute("UPDATE proj SET public = 0 WHERE id = 'p2'") }
            try await admin.sync()
            try await second.sync()
            #expect(try await ids(second) == ["b"])
            // A raw push of a NULL key: refused by the hub, whatever the replica checked.
            var bytes: [UInt8] = [0x54, 2, 1, 0] + Array("note".utf8) + [0]
            bytes += [18, 0, 5, 3, 3] + Array("bob".utf8)
            var http = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: try await token("o2"))
            http.attempts = 1
            var expected = "?"
            for _ in 0..<2 {
                do {
                    let response = try await http.push(
                        SyncPushRequest(
                            space: space, replicaID: "bob", tables: Self.tables, schemaFingerprint: expected,
                            entries: [SyncOutboxEntry(sequence: 9_999, changeset: Data(bytes))], user: "bob"))
                    #expect(response.refused?.first?.reason == .nullKey, "\(response)")
                    break
                } catch SyncError.schemaMismatch(_, let remote) {
                    expected = remote
                }
            }
            #expect(expected != "?")
        }
    }
}
#endif
