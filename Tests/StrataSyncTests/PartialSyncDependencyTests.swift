import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// What a view depends on besides its own table's rows, followed or refused: a claim compared
/// with a typed column, a claim that changes, a table a subquery reads, a NULL key, a user with
/// thousands of instances, and rules files that misspell a key.
@Suite struct PartialSyncDependencyTests {
    static let schema = """
        CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org INTEGER, proj TEXT, body TEXT);
        CREATE TABLE proj(id TEXT PRIMARY KEY NOT NULL, public INTEGER NOT NULL);
        """
    static let tables = ["doc", "proj"]

    final class Space {
        let folder: SyncFolder
        let hub: SyncHub
        let admin: SyncReplica
        init(rules: SyncRules, limits: SyncLimits = SyncLimits(), schema: String = PartialSyncDependencyTests.schema) async throws {
            folder = try SyncFolder()
            hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")), limits: limits)
            try hub.createSpace("s") { try $0.execute(schema) }
            try hub.setRules(rules, forSpace: "s")
            admin = try Self.replica(folder, hub, schema: schema, file: "admin", identity: nil)
        }

        static func replica(_ folder: SyncFolder, _ hub: SyncHub, schema: String, file: String, identity: SyncIdentity?) throws -> SyncReplica {
            let path = folder.path(file + ".sqlite")
            if !FileManager.default.fileExists(atPath: path) { try Connection(storageLocation: .onDisk(path)).execute(schema) }
            let transport = identity.map { InProcessSyncTransport(hub: hub, identity: $0) } ?? InProcessSyncTransport(hub: hub)
            let tables = try Connection(storageLocation: .inMemory).withSchema(schema)
            return try SyncReplica(database: try Database(path: path), replicaID: file, space: "s", tables: tables, transport: transport)
        }

        /// `identity`'s replica on the file `file` (the same file and replica ID again: a new token).
        func replica(_ file: String, _ identity: SyncIdentity, schema: String = PartialSyncDependencyTests.schema) throws -> SyncReplica {
            try Self.replica(folder, hub, schema: schema, file: file, identity: identity)
        }

        func ids(_ replica: SyncReplica, _ table: String = "doc") async throws -> [String] {
            try await replica.database.read { try $0.query("SELECT id FROM " + quoteIdentifier(table) + " ORDER BY id") }
        }

        func admin(_ sql: String) async throws {
            try await admin.write { try $0.execute(sql) }
            try await admin.sync()
        }
    }

    @Test func aClaimComparedWithAnIntegerColumnIsRefusedOnEveryStore() async throws {
        let space = try await Space(rules: SyncRules(buckets: [SyncBucket(name: "all", data: ["doc": "true"])]))
        for rule in ["org = auth.org", "auth.org = org", "doc.org > auth.org", "org IN (1, auth.org)"] {
            do {
                try space.hub.setRules(SyncRules(buckets: [SyncBucket(name: "org", data: ["doc": rule])]), forSpace: "s")
                Issue.record("accepted \(rule)")
            } catch SyncError.invalidRules(let message) {
                #expect(message.contains("bucket org, data of doc"), "\(message)")
                #expect(message.contains("auth.org"), "\(message)")
            }
        }
    }

    @Test func aBucketValueMeetsColumnsOfItsOwnKindOnlyAndFollowsUpdates() async throws {
        let space = try await Space(rules: SyncRules(buckets: [SyncBucket(name: "all", data: ["doc": "true"])]))
        // body is TEXT, the bucket's value an INTEGER: SQLite compares '1' and 1 as equal (TEXT
        // affinity), PostgreSQL refuses, so the rules are refused; an expression that hid the
        // value's kind (`public + 0`) is arithmetic, refused too.
        for (parameters, data) in [("SELECT public AS p FROM proj", "body = bucket.p"), ("SELECT public + 0 AS p FROM proj", "body = bucket.p")] {
            do {
                try space.hub.setRules(SyncRules(buckets: [SyncBucket(name: "b", parameters: parameters, data: ["doc": data])]), forSpace: "s")
                Issue.record("accepted \(parameters) with \(data)")
            } catch SyncError.invalidRules(let message) {
                #expect(message.contains("bucket b"), "\(message)")
            }
        }
        // Against an INTEGER column: followed through updates.
        try space.hub.setRules(
            SyncRules(buckets: [SyncBucket(name: "level", parameters: "SELECT public AS p FROM proj WHERE id = auth.proj", data: ["doc": "org = bucket.p"])]),
            forSpace: "s")
        try await space.admin(
            """
            INSERT INTO proj VALUES ('p1', 1);
            INSERT INTO doc VALUES ('a', 1, NULL, '1'), ('b', 1, NULL, '1'), ('c', 2, NULL, '2');
            """)
        let bob = try space.replica("bob", SyncIdentity(user: "bob", claims: ["proj": "p1"]))
        try await bob.sync()
        #expect(try await space.ids(bob) == ["a", "b"])
        // An update arrives, a row that no longer matches leaves, one that now does arrives.
        try await space.admin("UPDATE doc SET body = 'new' WHERE id = 'a'; UPDATE doc SET org = 2 WHERE id = 'b'; UPDATE doc SET org = 1 WHERE id = 'c'")
        try await bob.sync()
        #expect(try await space.ids(bob) == ["a", "c"])
        #expect(try await bob.database.read { try $0.query("SELECT body FROM doc WHERE id = 'a'") as String? } == "new")
    }

    @Test func aChangedClaimMovesTheViewInOnePull() async throws {
        let space = try await Space(rules: SyncRules(buckets: [SyncBucket(name: "org", data: ["doc": "proj = auth.org"])], writes: [:]))
        try await space.admin("INSERT INTO doc VALUES ('a', 1, 'o1', 'x'), ('b', 2, 'o2', 'y'), ('c', 2, 'o2', 'z')")
        let first = try space.replica("bob", SyncIdentity(user: "bob", claims: ["org": "o1"]))
        try await first.sync()
        #expect(try await space.ids(first) == ["a"])
        // Bob's next token names org o2: o1's rows leave, o2's arrive, without a snapshot.
        let second = try space.replica("bob", SyncIdentity(user: "bob", claims: ["org": "o2"]))
        try await second.sync()
        #expect(try await space.ids(second) == ["b", "c"])
        // A row changed meanwhile is judged by the claims of each side.
        try await space.admin("UPDATE doc SET proj = 'o1' WHERE id = 'c'; UPDATE doc SET body = 'new' WHERE id = 'a'")
        let third = try space.replica("bob", SyncIdentity(user: "bob", claims: ["org": "o1"]))
        try await third.sync()
        #expect(try await space.ids(third) == ["a", "c"])
        #expect(try await third.database.read { try $0.query("SELECT body FROM doc WHERE id = 'a'") as String? } == "new")
        // A claim taken away: the view is empty.
        let fourth = try space.replica("bob", SyncIdentity(user: "bob"))
        try await fourth.sync()
        #expect(try await space.ids(fourth) == [])
    }

    @Test func aDemotedRoleLosesTheRowsOfItsFormerRole() async throws {
        let rules = SyncRules(buckets: [
            SyncBucket(name: "role", data: ["doc": "body = 'public' OR auth.role = 'admin'"])
        ])
        let space = try await Space(rules: rules)
        try await space.admin("INSERT INTO doc VALUES ('a', 1, NULL, 'public'), ('b', 1, NULL, 'secret')")
        let admin = try space.replica("eve", SyncIdentity(user: "eve", claims: ["role": "admin"]))
        try await admin.sync()
        #expect(try await space.ids(admin) == ["a", "b"])
        let viewer = try space.replica("eve", SyncIdentity(user: "eve", claims: ["role": "viewer"]))
        try await viewer.sync()
        #expect(try await space.ids(viewer) == ["a"])
    }

    @Test func aRuleThatReadsAnotherTableFollowsThatTable() async throws {
        let rules = SyncRules(buckets: [
            SyncBucket(name: "public", data: ["doc": "proj IN (SELECT id FROM proj WHERE public = 1)", "proj": "public = 1"])
        ])
        let space = try await Space(rules: rules)
        try await space.admin(
            """
            INSERT INTO proj VALUES ('p1', 1), ('p2', 0);
            INSERT INTO doc VALUES ('a', 1, 'p1', 'x'), ('b', 1, 'p2', 'y');
            """)
        let bob = try space.replica("bob", SyncIdentity(user: "bob"))
        try await bob.sync()
        #expect(try await space.ids(bob) == ["a"])
        // p1 goes private and p2 public: only the project's row changed, yet the tasks move.
        try await space.admin("UPDATE proj SET public = 0 WHERE id = 'p1'; UPDATE proj SET public = 1 WHERE id = 'p2'")
        try await bob.sync()
        #expect(try await space.ids(bob) == ["b"])
        #expect(try await space.ids(bob, "proj") == ["p2"])
        // And a change to the rule's own table alone still moves by the log.
        try await space.admin("UPDATE doc SET proj = 'p2' WHERE id = 'a'")
        try await bob.sync()
        #expect(try await space.ids(bob) == ["a", "b"])
    }

    /// A transport whose every request comes after the backend changed the table a rule's
    /// subquery reads (for the first 50 requests): each pull's answer is a snapshot.
    struct ChurningTransport: SyncTransport {
        let inner: InProcessSyncTransport
        let requests: Locked<Int>
        let churn: @Sendable () async throws -> Void
        var signedInUser: String? { inner.signedInUser }
        func churnFirst() async throws {
            if requests.withLock({
                $0 += 1; return $0
            }) <= 50 {
                try await churn()
            }
        }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await inner.push(request) }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
            try await churnFirst()
            return try await inner.pull(request)
        }
        func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
            try await churnFirst()
            return try await inner.snapshot(request)
        }
    }

    @Test func aTableThatChangesFasterThanSnapshotsDoesNotKeepASyncGoing() async throws {
        let rules = SyncRules(buckets: [
            SyncBucket(name: "public", data: ["doc": "proj IN (SELECT id FROM proj WHERE public = 1)", "proj": "public = 1"])
        ])
        let space = try await Space(rules: rules)
        try await space.admin("INSERT INTO proj VALUES ('p1', 1), ('p9', 0); INSERT INTO doc VALUES ('a', 1, 'p1', 'x')")
        let admin = space.admin
        let requests = Locked(0)
        let path = space.folder.path("bob.sqlite")
        try Connection(storageLocation: .onDisk(path)).execute(Self.schema)
        let bob = try SyncReplica(
            database: try Database(path: path), replicaID: "bob", space: "s", tables: Self.tables,
            transport: ChurningTransport(
                inner: InProcessSyncTransport(hub: space.hub, identity: SyncIdentity(user: "bob")), requests: requests,
                churn: {
                    try await admin.write { try $0.execute("UPDATE proj SET public = 1 - public WHERE id = 'p9'") }
                    try await admin.sync()
                }))
        try await bob.sync()
        #expect(try await space.ids(bob) == ["a"])
        try await space.admin("UPDATE proj SET public = 0 WHERE id = 'p1'")
        try await bob.sync()
        #expect(try await space.ids(bob) == [])
        // Each sync took at most two snapshots, then ended on the second one's whole view.
        #expect(requests.withLock { $0 } <= 10, "\(requests.withLock { $0 }) requests")
    }

    @Test func aPushedRowWithANullKeyIsRefusedAtTheHub() async throws {
        let schema = "CREATE TABLE note(id TEXT PRIMARY KEY, owner TEXT)"
        let space = try await Space(
            rules: SyncRules(buckets: [SyncBucket(name: "mine", data: ["note": "owner = auth.user"])], writes: ["note": "owner = auth.user"]),
            schema: schema)
        try space.hub.withSpace("s") { try $0.execute("INSERT INTO note VALUES (NULL, 'bob')") }
        let fingerprint: String
        do {
            _ = try space.hub.pull(SyncPullRequest(space: "s", replicaID: "probe", tables: ["note"], schemaFingerprint: "?", after: 0, limit: 1))
            Issue.record("a wrong fingerprint was accepted")
            return
        } catch SyncError.schemaMismatch(_, let remote) {
            fingerprint = remote
        }
        // A raw changeset: INSERT INTO note VALUES (NULL, 'alice'), written by hand (SQLite's
        // session never records a row with a NULL key, so no replica makes one).
        var bytes: [UInt8] = [0x54, 2, 1, 0] + Array("note".utf8) + [0]
        bytes += [18, 0, 5, 3, 5] + Array("alice".utf8)
        let request = SyncPushRequest(
            space: "s", replicaID: "raw", tables: ["note"], schemaFingerprint: fingerprint,
            entries: [SyncOutboxEntry(sequence: 1, changeset: Data(bytes))], user: "alice")
        let response = try space.hub.push(request, identity: SyncIdentity(user: "alice"))
        let refusal = try #require(response.refused?.first)
        #expect(refusal.reason == .nullKey)
        #expect(refusal.table == "note")
        #expect(try space.hub.withSpace("s") { try $0.query("SELECT count(*) FROM note") as Int } == 1)
    }

    @Test func aUserWithThousandsOfInstancesGetsTheirViewAndPastTheLimitASnapshot() async throws {
        let schema = """
            CREATE TABLE grp(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL);
            CREATE TABLE item(id TEXT PRIMARY KEY NOT NULL, grp TEXT NOT NULL);
            """
        let rules = SyncRules(buckets: [
            SyncBucket(
                name: "groups", parameters: "SELECT id AS g FROM grp WHERE owner = auth.user",
                data: ["grp": "id = bucket.g", "item": "grp = bucket.g"])
        ])
        for limit in [50_000, 100] {
            let space = try await Space(rules: rules, limits: SyncLimits(maximumRowsPerPull: limit), schema: schema)
            let alice = try space.replica("alice", SyncIdentity(user: "alice"), schema: schema)
            try await alice.sync()
            var sql = "INSERT INTO grp VALUES ('other', 'bob'); INSERT INTO item VALUES ('io', 'other');"
            for index in 0..<1_500 { sql += "INSERT INTO grp VALUES ('g\(index)', 'alice'); INSERT INTO item VALUES ('i\(index)', 'g\(index)');" }
            try await space.admin(sql)
            try await alice.sync()
            let held = try await alice.database.read { try $0.query("SELECT count(*) FROM item") as Int }
            #expect(held == 1_500, "limit \(limit)")
            #expect(try await space.ids(alice, "item").contains("io") == false)
            // Half the groups are given away: their items leave.
            try await space.admin("UPDATE grp SET owner = 'bob' WHERE rowid % 2 = 0")
            try await alice.sync()
            let expected = try space.hub.withSpace("s") {
                try $0.query("SELECT count(*) FROM item WHERE grp IN (SELECT id FROM grp WHERE owner = 'alice')") as Int
            }
            #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM item") as Int } == expected, "limit \(limit)")
        }
    }

    @Test func aRulesFileWithAKeyRulesDoNotHaveIsRefusedNamingTheNearest() throws {
        let cases: [(String, String, String)] = [
            (#"{"buckets": [{"name": "b", "paramaters": "SELECT 1 AS x", "data": {"doc": "true"}}]}"#, "paramaters", "parameters"),
            (#"{"bucket": []}"#, "bucket", "buckets"),
            (#"{"buckets": [], "write": {"doc": "true"}}"#, "write", "writes"),
            (#"{"buckets": [{"name": "b", "data": {"doc": "true"}, "dat": {}}]}"#, "dat", "data")
        ]
        for (json, key, nearest) in cases {
            do {
                _ = try SyncRules(json: Data(json.utf8))
                Issue.record("accepted \(json)")
            } catch SyncError.invalidRules(let message) {
                #expect(message.contains("\"\(key)\""), "\(message)")
                #expect(message.contains("did you mean \"\(nearest)\""), "\(message)")
            }
        }
        // The keys it has still read as before, and a bucket needs its name and data.
        let rules = try SyncRules(json: Data(#"{"buckets": [{"name": "b", "parameters": "SELECT 1 AS x", "data": {"doc": "true"}}], "writes": {}}"#.utf8))
        #expect(rules.buckets.first?.parameters == "SELECT 1 AS x")
        #expect(throws: SyncError.self) { try SyncRules(json: Data(#"{"buckets": [{"data": {"doc": "true"}}]}"#.utf8)) }
    }

    /// A key written twice in one object (a corrected line appended below the old one) is
    /// refused: JSONDecoder kept the first, so `"doc": "true"` made the bucket public.
    @Test func aRulesFileThatWritesAKeyTwiceIsRefusedNamingIt() throws {
        let cases: [(String, String)] = [
            (#"{"buckets": [{"name": "b", "data": {"doc": "true", "doc": "owner = auth.user"}}]}"#, "$.buckets[0].data.doc"),
            (
                #"{"buckets": [{"name": "b", "parameters": "SELECT 1 AS x", "parameters": "SELECT 2 AS x", "data": {"doc": "true"}}]}"#,
                "$.buckets[0].parameters"
            ),
            (#"{"buckets": [], "writes": {"doc": "true"}, "writes": {}}"#, "$.writes")
        ]
        for (json, path) in cases {
            do {
                _ = try SyncRules(json: Data(json.utf8))
                Issue.record("accepted \(json)")
            } catch SyncError.invalidRules(let message) {
                #expect(message.contains(path) && message.contains("twice"), "\(message)")
            }
        }
        // The same key in two objects is two keys.
        let rules = try SyncRules(json: Data(#"{"buckets": [{"name": "a", "data": {"doc": "true"}}, {"name": "b", "data": {"doc": "true"}}]}"#.utf8))
        #expect(rules.buckets.count == 2)
    }

    @Test func aRuleSQLiteCannotCompileIsRefusedInWordsNamingTheRule() async throws {
        let space = try await Space(rules: SyncRules(buckets: [SyncBucket(name: "all", data: ["doc": "true"])]))
        do {
            try space.hub.setRules(SyncRules(buckets: [SyncBucket(name: "b", data: ["doc": "nosuchcolumn = 1"])]), forSpace: "s")
            Issue.record("accepted a rule naming no column")
        } catch SyncError.invalidRules(let message) {
            // SQLite's own words, which vary by version (3.41 adds a hint about quotes).
            #expect(message.hasPrefix("bucket b, data of doc: no such column: "), "\(message)")
            #expect(message.contains("nosuchcolumn"), "\(message)")
            #expect(!message.contains("code="), "\(message)")
        }
    }

    @Test func rulesTheHubCouldNotFollowAreRefused() async throws {
        let schema = """
            CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, proj INTEGER, body TEXT, size INTEGER GENERATED ALWAYS AS (length(body)));
            CREATE TABLE proj(id TEXT PRIMARY KEY NOT NULL, public INTEGER NOT NULL);
            CREATE VIEW public_proj AS SELECT id FROM proj WHERE public = 1;
            """
        let folder = try SyncFolder()
        let hub = try folder.hub(schema)
        for (rule, words) in [
            ("proj IN proj", "IN takes a list or a SELECT in parentheses"),
            ("proj IN (SELECT id FROM public_proj)", "is a view"),
            ("size > 3", "generated column"),
            // `proj` is a column of doc and a table: as a column, an INTEGER against a claim.
            ("proj = auth.org", "a claim, always text")
        ] {
            do {
                try hub.setRules(SyncRules(buckets: [SyncBucket(name: "b", data: ["doc": rule])]), forSpace: "s")
                Issue.record("accepted \(rule)")
            } catch SyncError.invalidRules(let message) {
                #expect(message.contains(words), "\(rule): \(message)")
            }
        }
        #expect(try hub.rules(ofSpace: "s") == nil)
    }

    @Test func aClaimIsOneNameWhateverItsCase() async throws {
        let space = try await Space(rules: SyncRules(buckets: [SyncBucket(name: "org", data: ["doc": "body = auth.ORG"])]))
        try await space.admin("INSERT INTO doc VALUES ('a', 1, NULL, 'x'), ('b', 1, NULL, 'y'), ('c', 1, NULL, 'z')")
        let first = try space.replica("bob", SyncIdentity(user: "bob", claims: ["org": "x", "ORG": "y"]))
        try await first.sync()
        let held = try await space.ids(first)
        // Which of the two the rule reads is one choice, made alike for the SQL and the record:
        // a change of the other moves nothing, a change of it moves the rows.
        #expect(held == ["a"])
        let second = try space.replica("bob", SyncIdentity(user: "bob", claims: ["org": "x", "ORG": "z"]))
        try await second.sync()
        #expect(try await space.ids(second) == ["a"])
        let third = try space.replica("bob", SyncIdentity(user: "bob", claims: ["org": "z", "ORG": "z"]))
        try await third.sync()
        #expect(try await space.ids(third) == ["c"])
    }

    @Test func refusedRulesAtCreationCreateNoSpaceAndTheSameRulesAgainAreNoChange() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let bad = SyncRules(buckets: [SyncBucket(name: "b", data: ["nosuchtable": "true"])])
        #expect(throws: SyncError.self) { try hub.createSpaceIfNeeded("s", rules: bad, schema: { try $0.execute(Self.schema) }) }
        #expect(throws: SyncError.self) { try hub.rules(ofSpace: "s") }
        let good = SyncRules(buckets: [SyncBucket(name: "b", data: ["doc": "true"])])
        #expect(try hub.createSpaceIfNeeded("s", rules: good, schema: { try $0.execute(Self.schema) }))
        let version = try hub.withSpace("s") { try $0.query("SELECT value FROM _strata_sync_meta WHERE key = 'rules_version'") as Int? }
        #expect(try !hub.createSpaceIfNeeded("s", rules: good, schema: { try $0.execute(Self.schema) }))
        try hub.setRules(good, forSpace: "s")
        #expect(try hub.withSpace("s") { try $0.query("SELECT value FROM _strata_sync_meta WHERE key = 'rules_version'") as Int? } == version)
        #expect(try hub.rules(ofSpace: "s") == good)
    }
}

extension Connection {
    /// The tables `schema` creates, in its order.
    fileprivate func withSchema(_ schema: String) throws -> [String] {
        try execute(schema)
        return try query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
    }
}
