// Partial sync on the PostgreSQL hub store: the running example, rules PostgreSQL would read
// otherwise than SQLite refused when set, and rules set through one hub served by another.
// Runs with the `Hub` trait and STRATA_POSTGRES_URL (`.ci/postgres.sh start`), as .ci/run does.
#if Hub
import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

@Suite struct PostgresPartialSyncTests {
    /// A hub on a database of its own, with the running example's space and rules; nil (the test
    /// skipped) without a server.
    static func hub() throws -> (SyncHub, SyncModelPostgresDatabase)? {
        guard let server = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
            print("PostgresPartialSyncTests skipped: STRATA_POSTGRES_URL is unset (eval \"$(.ci/postgres.sh start)\")")
            return nil
        }
        let database = try SyncModelPostgresDatabase(server: server)
        let hub = SyncHub(store: try .postgres(url: database.url))
        try hub.createSpace("team") { try $0.execute(PartialSyncTests.schema) }
        try hub.setRules(PartialSyncTests.rules, forSpace: "team")
        return (hub, database)
    }

    static func checkView(_ replica: SyncReplica, _ hub: SyncHub, user: String, _ context: String = "") async throws {
        let image = try SyncModelPropertyTests.hubImage(hub)
        for table in PartialSyncTests.tables {
            let held = try await replica.database.read { try PartialSyncTests.rows($0, table) }
            let expected = try PartialSyncTests.expectedView(image, user: user, table)
            try require(held == expected, "\(context) \(user) holds \(held) of \(table), the view is \(expected)")
        }
    }

    @Test func theRunningExampleKeepsEachUserToTheirViewAndRefusesTheirForbiddenWrites() async throws {
        guard let (hub, database) = try Self.hub() else { return }
        defer { withExtendedLifetime(database) {} }
        let folder = try SyncFolder()
        #expect(try hub.rules(ofSpace: "team") == PartialSyncTests.rules)
        let admin = try PartialSyncTests.replica(folder, hub, user: nil)
        try await PartialSyncTests.seed(admin)
        var replicas: [String: SyncReplica] = [:]
        for user in ["alice", "bob", "carol", "dave", "o'brien"] {
            let replica = try PartialSyncTests.replica(folder, hub, user: user)
            try await replica.sync()
            try await Self.checkView(replica, hub, user: user)
            replicas[user] = replica
        }
        let alice = try #require(replicas["alice"]), bob = try #require(replicas["bob"])
        #expect(try await alice.database.read { try $0.query("SELECT group_concat(id) FROM (SELECT id FROM todo ORDER BY id)") as String? } == "t1")

        // A grant moves bob's list with its 100 todos into alice's replica in one pull.
        try await bob.write { db in
            for index in 0..<100 { try db.run("INSERT INTO todo VALUES (?, 'L2', ?)", "b\(index)", "todo \(index)") }
        }
        try await bob.write { try $0.execute("INSERT INTO member VALUES ('m2', 'L2', 'alice')") }
        try await bob.sync()
        try await alice.pull()
        try await Self.checkView(alice, hub, user: "alice", "after the grant")
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE list = 'L2'") as Int? } == 101)

        // Writes the rules refuse: a todo into carol's list, a tag; one she may write goes on.
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('x1', 'L3', 'sneaky')") }
        try await alice.write { try $0.execute("INSERT INTO tag VALUES ('g2', 'mine')") }
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('ok', 'L1', 'bread')") }
        let refusals = try await PartialSyncTests.sync(alice)
        #expect(refusals.map(\.reason) == [.forbidden, .forbidden])
        #expect(Set(refusals.compactMap(\.table)) == ["todo", "tag"])
        #expect(try database.texts("SELECT id FROM team.todo WHERE id IN ('x1', 'ok') ORDER BY id") == ["ok"])
        #expect(try database.texts("SELECT id FROM team.tag ORDER BY id") == ["g1"])
        for change in try await alice.pendingChanges where change.refusal != nil { try await alice.discard(change) }
        try await alice.sync()
        try await Self.checkView(alice, hub, user: "alice", "after the discards")

        // The revocation takes the list out again, in one pull.
        try await bob.sync()
        try await bob.write { try $0.execute("DELETE FROM member WHERE id = 'm2'") }
        try await bob.sync()
        try await alice.pull()
        try await Self.checkView(alice, hub, user: "alice", "after the revocation")
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE list = 'L2'") as Int? } == 0)
        for (user, replica) in replicas {
            try await replica.sync()
            try await Self.checkView(replica, hub, user: user, "at the end")
        }
    }

    @Test func rulesPostgreSQLReadsOtherwiseAreRefusedWhenSetAndChangeNothing() async throws {
        guard let server = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return }
        let database = try SyncModelPostgresDatabase(server: server)
        let hub = SyncHub(store: try .postgres(url: database.url))
        try hub.createSpace("typed") {
            try $0.execute("CREATE TABLE item(id BIGINT PRIMARY KEY NOT NULL, done INTEGER NOT NULL, owner TEXT NOT NULL, weight REAL)")
        }
        // SQLite runs each of these; PostgreSQL's types refuse them.
        let bad: [(SyncRules, String)] = [
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["item": "done = TRUE"])]), "bucket b, data of item"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["item": "done"])]), "bucket b, data of item"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["item": "owner = 1"])]), "bucket b, data of item"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["item": "true"])], writes: ["item": "owner"]), "write rule of item"),
            (
                SyncRules(buckets: [
                    SyncBucket(
                        name: "b", parameters: "SELECT id AS i FROM item WHERE done = 'yes' OR TRUE = 1",
                        data: ["item": "id = bucket.i"])
                ]), "bucket b, parameters"
            )
        ]
        for (rules, place) in bad {
            do {
                try hub.setRules(rules, forSpace: "typed")
                Issue.record("rules \(rules) were accepted")
            } catch SyncError.invalidRules(let reason) {
                #expect(reason.contains(place) && reason.contains("PostgreSQL"), "\(reason)")
            }
            #expect(try hub.rules(ofSpace: "typed") == nil)
        }
        // Typed values compare as on SQLite: integers, reals and text with quotes, bound, never spliced.
        let rules = SyncRules(
            buckets: [
                SyncBucket(
                    name: "mine", parameters: "SELECT id AS item FROM item WHERE owner = auth.user AND done = 0",
                    data: ["item": "id = bucket.item OR weight > 1.5"])
            ],
            writes: ["item": "owner = auth.user"])
        try hub.setRules(rules, forSpace: "typed")
        let folder = try SyncFolder()
        func replica(_ user: String?, _ file: String) throws -> SyncReplica {
            let path = folder.path(file + ".sqlite")
            try Connection(storageLocation: .onDisk(path))
                .execute("CREATE TABLE item(id BIGINT PRIMARY KEY NOT NULL, done INTEGER NOT NULL, owner TEXT NOT NULL, weight REAL)")
            let transport = user.map { InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: $0)) } ?? InProcessSyncTransport(hub: hub)
            return try SyncReplica(
                database: try Database(path: path), replicaID: file, space: "typed",
                tables: ["item"], transport: transport)
        }
        let admin = try replica(nil, "admin")
        try await admin.write { db in
            try db.execute(
                """
                INSERT INTO item VALUES (1, 0, 'o''brien', 1.0), (2, 1, 'o''brien', NULL), (3, 0, 'x'' OR ''1''=''1', 2.0),
                    (-9223372036854775808, 0, 'o''brien', -0.0), (9223372036854775807, 0, 'e'||char(769), 1e308)
                """)
        }
        try await admin.sync()
        let obrien = try replica("o'brien", "obrien")
        try await obrien.sync()
        let held: [Int64] = try await obrien.database.read { try $0.query("SELECT id FROM item ORDER BY id") }
        #expect(held == [-9223372036854775808, 1, 3, 9223372036854775807])
        // The quote-and-OR name is a name like any other: it sees its item and the heavy ones.
        let injected = try replica("x' OR '1'='1", "injected")
        try await injected.sync()
        #expect(try await injected.database.read { try $0.query("SELECT id FROM item ORDER BY id") as [Int64] } == [3, 9223372036854775807])
    }

    /// Claims against INTEGER and BLOB columns (a 500 for every pull, and `'\\x6f6b'` read as the
    /// bytes `ok`) are refused when set, as on SQLite; bucket values compare with their own types
    /// (1.0 and 1 equal, as SQLite says); NUMERIC values keep their digits (10^50 + 1 is not 10^50).
    @Test func typedValuesCompareAsOnSQLiteOrTheRulesAreRefused() async throws {
        guard let server = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return }
        let database = try SyncModelPostgresDatabase(server: server)
        defer { withExtendedLifetime(database) {} }
        let hub = SyncHub(store: try .postgres(url: database.url))
        let schema = """
            CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org INTEGER, data BLOB, owner TEXT);
            CREATE TABLE acct(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, amount NUMERIC, have REAL, need INTEGER);
            """
        try hub.createSpace("typed") { try $0.execute(schema) }
        for rule in ["org = auth.org", "data = auth.org", "org IN (auth.org)"] {
            do {
                try hub.setRules(SyncRules(buckets: [SyncBucket(name: "b", data: ["doc": rule])]), forSpace: "typed")
                Issue.record("accepted \(rule)")
            } catch SyncError.invalidRules(let message) {
                #expect(message.contains("bucket b, data of doc"), "\(message)")
            }
        }
        let rules = SyncRules(buckets: [
            SyncBucket(
                name: "mine", parameters: "SELECT amount AS a, have AS h, need AS n FROM acct WHERE owner = auth.user",
                data: ["acct": "amount = bucket.a AND bucket.h = bucket.n"])
        ])
        try hub.setRules(rules, forSpace: "typed")
        _ = try database.rows(
            """
            INSERT INTO typed.acct(id, owner, amount, have, need) VALUES
                ('a1', 'alice', 100000000000000000000000000000000000000000000000001, 1.0, 1),
                ('b1', 'bob', 100000000000000000000000000000000000000000000000000, 1.0, 1),
                ('c1', 'carol', 7, 2.5, 2),
                ('d1', 'dave', 100000000000000000.5, 1.0, 1),
                ('e1', 'erin', 100000000000000000, 1.0, 1),
                ('f1', 'frank', 0.1, 1.0, 1),
                ('g1', 'grace', 0.1000000000000000000001, 1.0, 1)
            """)
        let folder = try SyncFolder()
        func replica(_ user: String) throws -> SyncReplica {
            let path = folder.path(user + ".sqlite")
            try Connection(storageLocation: .onDisk(path)).execute(schema)
            return try SyncReplica(
                database: try Database(path: path), replicaID: user, space: "typed", tables: ["doc", "acct"],
                transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: user)))
        }
        for (user, expected) in [
            ("alice", ["a1"]), ("bob", ["b1"]), ("carol", [String]()), ("dave", ["d1"]), ("erin", ["e1"]), ("frank", ["f1"]),
            ("grace", ["g1"])
        ] {
            let replica = try replica(user)
            try await replica.sync()
            let held: [String] = try await replica.database.read { try $0.query("SELECT id FROM acct ORDER BY id") }
            #expect(held == expected, "\(user) holds \(held)")
        }
    }

    @Test func rulesSetThroughOneHubAreServedByAnotherOnTheSameDatabase() async throws {
        guard let (first, database) = try Self.hub() else { return }
        defer { withExtendedLifetime(database) {} }
        let second = SyncHub(store: try .postgres(url: database.url))
        let folder = try SyncFolder()
        let admin = try PartialSyncTests.replica(folder, first, user: nil)
        try await PartialSyncTests.seed(admin)
        let carol = try PartialSyncTests.replica(folder, second, user: "carol")
        try await carol.sync()
        try await Self.checkView(carol, second, user: "carol")
        #expect(try await carol.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 2)
        // Everyone sees every todo now: the second hub serves the change at once, and carol's
        // replica receives the moves.
        let everything = SyncRules(buckets: [SyncBucket(name: "all", data: ["list": "true", "todo": "true", "member": "true", "tag": "true"])])
        try first.setRules(everything, forSpace: "team")
        #expect(try second.rules(ofSpace: "team") == everything)
        try await carol.sync()
        #expect(try await carol.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 3)
        // No rules: the whole space, as before rules existed.
        try second.setRules(nil, forSpace: "team")
        #expect(try first.rules(ofSpace: "team") == nil)
        try await carol.sync()
        #expect(try await carol.database.read { try $0.query("SELECT count(*) FROM list") as Int? } == 3)
    }
}
#endif
