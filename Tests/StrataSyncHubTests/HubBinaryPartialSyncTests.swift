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
import Testing

/// Issue 79's items on the `strata-sync-hub` binary itself, over HTTP with real JWTs, on both
/// stores: rules refused at start leave nothing (a claim against an INTEGER column, a claim
/// against a BLOB column); a changed claim, a rule reading another table and a bucket value of
/// another numeric type are followed; a raw NULL key is refused; and one user's pull after she
/// joins 3,000 groups stays within the hub's memory.
@Suite struct HubBinaryPartialSyncTests {
    static let schema = """
        CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org TEXT, proj TEXT);
        CREATE TABLE proj(id TEXT PRIMARY KEY NOT NULL, public INTEGER NOT NULL);
        CREATE TABLE note(id TEXT PRIMARY KEY, owner TEXT);
        CREATE TABLE grp(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, level REAL);
        CREATE TABLE item(id TEXT PRIMARY KEY NOT NULL, grp TEXT NOT NULL, level INTEGER);
        CREATE TABLE ledger(id TEXT PRIMARY KEY NOT NULL, orgnum INTEGER, tag BLOB);
        """
    static let tables = ["doc", "proj", "note", "grp", "item", "ledger"]
    static let rules = SyncRules(
        buckets: [
            SyncBucket(name: "org", data: ["doc": "org = auth.org"]),
            SyncBucket(name: "public", data: ["doc": "proj IN (SELECT id FROM proj WHERE public = 1)", "proj": "public = 1"]),
            SyncBucket(name: "notes", data: ["note": "owner = auth.user"]),
            SyncBucket(
                name: "groups", parameters: "SELECT id AS g, level AS l FROM grp WHERE owner = auth.user",
                data: ["grp": "id = bucket.g", "item": "grp = bucket.g AND level = bucket.l"])
        ],
        writes: ["note": "owner = auth.user"])
    static let secret = "a-long-hub-secret-of-more-than-32-bytes"
    static let groups = 3_000

    /// The hub's store arguments and the space's name: a folder, or PostgreSQL (a space of its own).
    static func store(_ kind: String, _ folder: TemporaryDirectory) -> (arguments: [String], space: String, hub: () throws -> SyncHub)? {
        if kind == "postgres" {
            guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return nil }
            return (["--postgres", url], "bin_" + String(UInt64.random(in: 0...UInt64.max), radix: 16), { SyncHub(store: try .postgres(url: url)) })
        }
        let path = folder.path("hub")
        return ([path], "team", { try SyncHub(directory: URL(fileURLWithPath: path)) })
    }

    /// Peak resident memory of process `pid` (`VmHWM`), in MB.
    static func peakMegabytes(of pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.unicodeScalars.filter { ("0"..."9").contains($0) }
            return (Double(String(String.UnicodeScalarView(digits))) ?? 0) / 1024
        }
        return 0
    }

    @Test(arguments: ["sqlite", "postgres"])
    func theHubBinaryFollowsEveryRuleItAcceptsAndRefusesTheRest(kind: String) async throws {
        let folder = try TemporaryDirectory()
        guard let store = Self.store(kind, folder) else { return }
        let space = store.space
        try Data(Self.schema.utf8).write(to: folder.url.appendingPathComponent("schema.sql"))
        try Data(Self.secret.utf8).write(to: folder.url.appendingPathComponent("key"))
        try Self.rules.jsonData().write(to: folder.url.appendingPathComponent("rules.json"))
        let common = ["--jwt-key", folder.path("key"), "--create", space, "--schema", folder.path("schema.sql"), "--log-level", "warning"]

        // Items 1, 5 and 6: a claim against an INTEGER or a BLOB column is refused at start, and
        // the refused start creates nothing.
        for (rule, column) in [("orgnum = auth.org", "orgnum"), ("tag = auth.org", "tag")] {
            let bad = SyncRules(buckets: [SyncBucket(name: "ledger", data: ["ledger": rule])])
            try bad.jsonData().write(to: folder.url.appendingPathComponent("bad.json"))
            let (status, output) = try runToEnd(
                try builtExecutable(named: "strata-sync-hub"), store.arguments + common + ["--rules", space + "=" + folder.path("bad.json"), "--port", "0"],
                in: folder.url)
            #expect(status == 1, "\(output)")
            #expect(output.contains(column) && output.contains("auth.org"), "\(output)")
            #expect(try store.hub().spaceSummaries().allSatisfy { $0.name != space }, "a refused start left the space")
        }

        var process: ChildProcess?
        var port = 0
        for _ in 0..<5 where process == nil {
            port = try unusedLocalPort()
            let started = try SyncHubCommandTests.start(
                store.arguments + common + ["--rules", space + "=" + folder.path("rules.json")], port: port,
                log: folder.url.appendingPathComponent("hub.log"))
            if await SyncHubCommandTests.healthy(started, port: port, within: 60) { process = started } else { started.terminate() }
        }
        let hubProcess = try #require(
            process, "the hub never answered: \((try? String(contentsOf: folder.url.appendingPathComponent("hub.log"), encoding: .utf8)) ?? "")")
        defer { if hubProcess.isRunning { hubProcess.terminate() } }

        // The backend writes through a hub of its own on the same store (trusted, in process).
        let backend = try store.hub()
        try Connection(storageLocation: .onDisk(folder.path("admin.sqlite"))).execute(Self.schema)
        let admin = try SyncReplica(
            database: try Database(path: folder.path("admin.sqlite")), replicaID: "admin", space: space, tables: Self.tables,
            transport: InProcessSyncTransport(hub: backend))
        try await admin.write { db in
            try db.execute(
                """
                INSERT INTO proj VALUES ('p1', 1), ('p2', 0);
                INSERT INTO doc VALUES ('a', 'o1', NULL), ('b', 'o2', NULL), ('c', 'o3', 'p2');
                INSERT INTO grp VALUES ('g-real', 'bob', 1.0);
                INSERT INTO item VALUES ('i-real', 'g-real', 1), ('i-other', 'g-real', 2);
                """)
        }
        try await admin.sync()

        let keys = await hmacKeys(HMACKey(from: Array(Self.secret.utf8)))
        let expires = Date().addingTimeInterval(600)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        func token(_ org: String?) async throws -> String {
            try await keys.sign(OrgClaims(sub: "bob", spaces: [space: "rw"], replica: "bob", exp: .init(value: expires), org: org))
        }
        let path = folder.path("bob.sqlite")
        try Connection(storageLocation: .onDisk(path)).execute(Self.schema)
        func bob(_ org: String?) async throws -> SyncReplica {
            var http = HTTPSyncTransport(url: url, token: try await token(org))
            http.attempts = 1
            return try SyncReplica(database: try Database(path: path), replicaID: "bob", space: space, tables: Self.tables, transport: http)
        }
        func ids(_ replica: SyncReplica, _ table: String) async throws -> [String] {
            try await replica.database.read { try $0.query(literal: "SELECT id FROM \(identifier: table) ORDER BY id") }
        }

        // Item 2: a new token with another claim moves the rows in one pull.
        let first = try await bob("o1")
        try await first.sync()
        #expect(try await ids(first, "doc") == ["a"])
        // Item 7: the bucket's REAL 1.0 matches the INTEGER 1, on both stores.
        #expect(try await ids(first, "item") == ["i-real"])
        let second = try await bob("o2")
        try await second.sync()
        #expect(try await ids(second, "doc") == ["b"])

        // Item 3: a rule reading another table follows that table.
        try await admin.write { try $0.execute("UPDATE proj SET public = 1 WHERE id = 'p2'") }
        try await admin.sync()
        try await second.sync()
        #expect(try await ids(second, "doc") == ["b", "c"])
        try await admin.write { try $0.execute("UPDATE proj SET public = 0 WHERE id = 'p2'") }
        try await admin.sync()
        try await second.sync()
        #expect(try await ids(second, "doc") == ["b"])

        // Item 4: a raw push of a NULL key is refused by the hub, whatever the replica checks.
        var bytes: [UInt8] = [0x54, 2, 1, 0] + Array("note".utf8) + [0]
        bytes += [18, 0, 5, 3, 3] + Array("bob".utf8)
        var raw = HTTPSyncTransport(url: url, token: try await token("o2"))
        raw.attempts = 1
        var fingerprint = "?"
        var refused = false
        for _ in 0..<2 where !refused {
            do {
                let response = try await raw.push(
                    SyncPushRequest(
                        space: space, replicaID: "bob", tables: Self.tables, schemaFingerprint: fingerprint,
                        entries: [SyncOutboxEntry(sequence: 9_999, changeset: Data(bytes))], user: "bob"))
                #expect(response.refused?.first?.reason == .nullKey, "\(response)")
                refused = true
            } catch SyncError.schemaMismatch(_, let remote) {
                fingerprint = remote
            }
        }
        #expect(refused)
        #expect(try backend.withSpaceRows(space, "SELECT count(*) FROM note") == 0)

        // Item 9: bob joins 3,000 groups, each with an item; his next pull stays small.
        var start = 0
        while start < Self.groups {
            let range = start..<min(Self.groups, start + 1_000)
            try await admin.write { db in
                for index in range {
                    try db.run("INSERT INTO grp VALUES (?, 'bob', 2)", "g\(index)")
                    try db.run("INSERT INTO item VALUES (?, ?, 2)", "i\(index)", "g\(index)")
                }
            }
            try await admin.sync()
            start = range.upperBound
        }
        let before = Self.peakMegabytes(of: hubProcess.processIdentifier)
        try await second.sync()
        let after = Self.peakMegabytes(of: hubProcess.processIdentifier)
        #expect(try await ids(second, "item").count == Self.groups + 1)
        // Issue 79 measured over 2 GB for this pull (one OR of every instance); linear is tens of MB.
        #expect(after < 600, "the hub's peak memory went from \(Int(before)) MB to \(Int(after)) MB in one pull")
        print("hub binary (\(kind)): peak \(Int(before)) MB before bob's pull of \(Self.groups) groups, \(Int(after)) MB after")
    }
}

extension SyncHub {
    /// One integer the space's tables answer, on either store (a trusted snapshot of them).
    func withSpaceRows(_ space: String, _ sql: String, tables: [String] = HubBinaryPartialSyncTests.tables) throws -> Int {
        var fingerprint = "?"
        for _ in 0..<2 {
            do {
                let image = try snapshot(SyncSnapshotRequest(space: space, replicaID: "oracle", tables: tables, schemaFingerprint: fingerprint))
                let connection = try Connection(storageLocation: .inMemory)
                try connection.deserialize(image.database)
                return try connection.query(sql) ?? -1
            } catch SyncError.schemaMismatch(_, let remote) {
                fingerprint = remote
            }
        }
        throw SyncError.refused("the hub's snapshot kept refusing its own fingerprint")
    }
}
#endif
