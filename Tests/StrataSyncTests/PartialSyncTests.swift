import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Partial sync on the running example of the docs: lists with owners and members, their todos,
/// and tags everyone has; each replica holds its user's view and writes what the rules allow.
@Suite struct PartialSyncTests {
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
            "member": "list IN (SELECT id FROM list WHERE owner = auth.user)"
        ])

    /// What `user` may see, by a hand-written query on the hub's tables (the rules' meaning).
    static let viewQueries: [String: String] = [
        "list": "SELECT id, owner, name FROM list WHERE owner = ?1 OR id IN (SELECT list FROM member WHERE user = ?1)",
        "member": "SELECT id, list, user FROM member WHERE list IN (SELECT id FROM list WHERE owner = ?1 UNION SELECT list FROM member WHERE user = ?1)",
        "todo": "SELECT id, list, title FROM todo WHERE list IN (SELECT id FROM list WHERE owner = ?1 UNION SELECT list FROM member WHERE user = ?1)",
        "tag": "SELECT id, name FROM tag WHERE ?1 IS NOT NULL"
    ]

    static func hub(_ folder: SyncFolder) throws -> SyncHub {
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("team") { try $0.execute(schema) }
        try hub.setRules(rules, forSpace: "team")
        return hub
    }

    static func replica(
        _ folder: SyncFolder, _ hub: SyncHub, user: String?, name: String? = nil,
        wrap: (any SyncTransport) -> any SyncTransport = { $0 }
    ) throws -> SyncReplica {
        let file = name ?? user ?? "admin"
        try Connection(storageLocation: .onDisk(folder.path(file + ".sqlite"))).execute(schema)
        let database = try Database(path: folder.path(file + ".sqlite"))
        let transport = user.map { InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: $0)) } ?? InProcessSyncTransport(hub: hub)
        return try SyncReplica(database: database, replicaID: file, space: "team", tables: tables, transport: wrap(transport))
    }

    static func rows(_ connection: Connection, _ table: String) throws -> [String] {
        let columns = try connection.schemaReader.columns(ofTable: table).map { "quote(" + quoteSQLName($0.name) + ")" }
        return try connection.query("SELECT " + columns.joined(separator: " || '|' || ") + " FROM " + quoteSQLName(table) + " ORDER BY 1")
    }

    /// The example's names are plain ASCII words: quoted as they are.
    static func quoteSQLName(_ name: String) -> String { "\"" + name + "\"" }

    /// The rows `user` may see, as the hand-written queries give them on the hub.
    static func expectedView(_ hub: SyncHub, user: String, _ table: String) throws -> [String] {
        try hub.withSpace("team") { try expectedView($0, user: user, table) }
    }

    /// The rows `user` may see, by the hand-written queries on `connection` (the hub's tables).
    static func expectedView(_ connection: Connection, user: String, _ table: String) throws -> [String] {
        let query =
            "SELECT "
            + (try connection.schemaReader.columns(ofTable: table).map { "quote(" + quoteSQLName($0.name) + ")" }
                .joined(separator: " || '|' || ")) + " FROM (" + (viewQueries[table] ?? "") + ") ORDER BY 1"
        return try connection.query(query, [user])
    }

    static func checkView(_ replica: SyncReplica, _ hub: SyncHub, user: String, _ context: String = "") async throws {
        for table in tables {
            let held = try await replica.database.read { try rows($0, table) }
            let expected = try expectedView(hub, user: user, table)
            try require(held == expected, "\(context) \(user) holds \(held) of \(table), the view is \(expected)")
        }
    }

    /// Syncs, a refused write being no failure here; the refusals pending after it.
    @discardableResult
    static func sync(_ replica: SyncReplica) async throws -> [SyncRefusal] {
        do { try await replica.sync() } catch let error as SyncError where !error.refusals.isEmpty {}
        return try await replica.pendingChanges.compactMap(\.refusal)
    }

    static func seed(_ admin: SyncReplica) async throws {
        try await admin.write { db in
            try db.execute(
                """
                INSERT INTO list VALUES ('L1', 'alice', 'groceries'), ('L2', 'bob', 'garage'), ('L3', 'carol', 'secret plans');
                INSERT INTO member VALUES ('m1', 'L2', 'carol');
                INSERT INTO todo VALUES ('t1', 'L1', 'milk'), ('t2', 'L2', 'paint'), ('t3', 'L3', 'private todo of carol');
                INSERT INTO tag VALUES ('g1', 'urgent');
                """)
        }
        try await admin.sync()
    }

    /// The running example's hub in `folder`, seeded by the admin replica, and `user`'s replica
    /// (on the file `name`, else the user's) synced once.
    static func seededSpace(
        _ folder: SyncFolder, signingIn user: String, name: String? = nil
    ) async throws -> (hub: SyncHub, admin: SyncReplica, replica: SyncReplica) {
        let hub = try Self.hub(folder)
        let admin = try Self.replica(folder, hub, user: nil)
        try await Self.seed(admin)
        let replica = try Self.replica(folder, hub, user: user, name: name)
        try await replica.sync()
        return (hub, admin, replica)
    }

    /// `user` signing in on the file and replica ID of `replica`.
    static func signIn(_ user: String, on replica: SyncReplica, _ hub: SyncHub) throws -> SyncReplica {
        try SyncReplica(
            database: replica.database, replicaID: replica.replicaID, space: "team", tables: Self.tables,
            transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: user)))
    }

    @Test func eachUserHoldsExactlyTheirView() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let admin = try Self.replica(folder, hub, user: nil)
        try await Self.seed(admin)
        var replicas: [String: SyncReplica] = [:]
        for user in ["alice", "bob", "carol", "dave"] {
            let replica = try Self.replica(folder, hub, user: user)
            try await replica.sync()
            try await Self.checkView(replica, hub, user: user)
            replicas[user] = replica
        }
        let alice = try #require(replicas["alice"])
        try await alice.sync()
        #expect(try await alice.database.read { try $0.query("SELECT group_concat(id) FROM (SELECT id FROM todo ORDER BY id)") as String? } == "t1")
        // The trusted replica still holds everything.
        #expect(try await admin.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 3)
    }

    @Test func aMembershipGrantMovesTheWholeListInOnePullAndARevocationTakesItOut() async throws {
        let folder = try SyncFolder()
        let (hub, admin, alice) = try await Self.seededSpace(folder, signingIn: "alice")
        let bob = try Self.replica(folder, hub, user: "bob")
        /// `replica` brought up to date, then `sql` written on it and synced.
        func syncedChange(_ replica: SyncReplica, _ sql: String) async throws {
            try await replica.sync()
            try await replica.write { try $0.execute(sql) }
            try await replica.sync()
        }
        try await bob.sync()
        // Bob owns L2: he adds 100 todos, then alice as a member.
        try await bob.write { db in
            for index in 0..<100 { try db.run("INSERT INTO todo VALUES (?, 'L2', ?)", "b\(index)", "todo \(index)") }
        }
        try await bob.write { try $0.execute("INSERT INTO member VALUES ('m2', 'L2', 'alice')") }
        try await bob.sync()
        // One pull brings the list, its members and its 101 todos.
        try await alice.pull()
        try await Self.checkView(alice, hub, user: "alice", "after the grant")
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE list = 'L2'") as Int? } == 101)
        // A todo moved into a list alice cannot see leaves her replica.
        try await syncedChange(admin, "UPDATE todo SET list = 'L3' WHERE id = 'b7'")
        try await alice.sync()
        try await Self.checkView(alice, hub, user: "alice", "after the move out")
        // The owner changes: alice now owns L3, so its rows arrive.
        try await admin.write { try $0.execute("UPDATE list SET owner = 'alice' WHERE id = 'L3'") }
        try await syncInTurn(admin, alice)
        try await Self.checkView(alice, hub, user: "alice", "after the owner change \(try await alice.database.read { try Self.rows($0, "todo") })")
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE list = 'L3'") as Int? } == 2)
        // Bob revokes her membership: every row of L2 leaves her replica in one pull.
        try await syncedChange(bob, "DELETE FROM member WHERE id = 'm2'")
        try await alice.pull()
        try await Self.checkView(alice, hub, user: "alice", "after the revocation")
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE list = 'L2'") as Int? } == 0)
    }

    @Test func aWriteTheRulesRefuseIsReportedAsForbiddenAndDiscardingItRestoresTheView() async throws {
        let folder = try SyncFolder()
        let (hub, _, alice) = try await Self.seededSpace(folder, signingIn: "alice")
        // Into a list she cannot see, a tag (no write rule), and one she may write.
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('x1', 'L2', 'sneaky')") }
        try await alice.write { try $0.execute("INSERT INTO tag VALUES ('g2', 'mine')") }
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('ok', 'L1', 'bread')") }
        let refusals = try await Self.sync(alice)
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0.reason == .forbidden })
        #expect(Set(refusals.compactMap(\.table)) == ["todo", "tag"])
        #expect(refusals.first { $0.table == "todo" }?.key == [.text("x1")])
        #expect(try Self.expectedView(hub, user: "alice", "todo").contains("'ok'|'L1'|'bread'"))
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = 'x1'") as Int? } == 0)
        // Pending, the refused rows stay on her replica (nothing is lost silently) ...
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE id = 'x1'") as Int? } == 1)
        // ... until she discards them.
        for change in try await alice.pendingChanges where change.refusal != nil { try await alice.discard(change) }
        try await alice.sync()
        try await Self.checkView(alice, hub, user: "alice", "after the discards")
        // Changing a row she may see into one she may not (old row passes, new fails) is refused too.
        try await alice.write { try $0.execute("UPDATE todo SET list = 'L3' WHERE id = 't1'") }
        #expect(try await Self.sync(alice).map(\.reason) == [.forbidden])
        #expect(try hub.withSpace("team") { try $0.query("SELECT list FROM todo WHERE id = 't1'") as String? } == "L1")
    }

    @Test func invalidRulesAreRefusedByNameAndChangeNothing() throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let bad: [(SyncRules, String)] = [
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["nope": "true"])]), "no table nope"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "missing_column = 1"])]), "missing_column"),
            (SyncRules(buckets: [SyncBucket(name: "b", parameters: "DELETE FROM list", data: ["todo": "true"])]), "DELETE"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "lower(title) = 'x'"])]), "function"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "title LIKE 'x%'"])]), "LIKE"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "list = bucket.list"])]), "bucket.list"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "list = 'a'; DROP TABLE todo"])]), ";"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "list = ?"])]), "?"),
            (SyncRules(buckets: [], writes: ["todo": "title = 'x' -- comment"]), "comments"),
            (SyncRules(buckets: [SyncBucket(name: "b", data: ["todo": "(list = 'a'"])]), "not closed")
        ]
        for (rules, needle) in bad {
            do {
                try hub.setRules(rules, forSpace: "team")
                Issue.record("rules \(rules) were accepted (\(needle))")
            } catch SyncError.invalidRules(let reason) {
                #expect(reason.contains(needle), "\(reason) does not name \(needle)")
            }
            let kept = try hub.rules(ofSpace: "team")
            #expect(kept == Self.rules, "\(String(describing: kept))")
        }
    }

    @Test func rulesReadFromAJSONFileAreTheSameRules() throws {
        let folder = try SyncFolder()
        let url = URL(fileURLWithPath: folder.path("rules.json"))
        try Self.rules.jsonData().write(to: url)
        #expect(try SyncRules(contentsOf: url) == Self.rules)
        let written = """
            {"buckets": [{"name": "everyone", "data": {"tag": "true"}}], "writes": {"tag": "name IS NOT NULL"}}
            """
        try Data(written.utf8).write(to: url)
        #expect(
            try SyncRules(contentsOf: url)
                == SyncRules(
                    buckets: [SyncBucket(name: "everyone", data: ["tag": "true"])],
                    writes: ["tag": "name IS NOT NULL"]))
        try Data("{\"buckets\": 3}".utf8).write(to: url)
        #expect(throws: SyncError.self) { try SyncRules(contentsOf: url) }
    }

    @Test func changingRulesOnALiveSpaceMovesEveryReplicaToItsNewView() async throws {
        let folder = try SyncFolder()
        let (hub, _, dave) = try await Self.seededSpace(folder, signingIn: "dave")
        try await Self.checkView(dave, hub, user: "dave")
        // Rules giving every todo to everyone, then none at all.
        try hub.setRules(SyncRules(buckets: [SyncBucket(name: "all", data: ["todo": "true"])]), forSpace: "team")
        try await dave.sync()
        #expect(try await dave.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 3)
        #expect(try await dave.database.read { try $0.query("SELECT count(*) FROM tag") as Int? } == 0)
        try hub.setRules(nil, forSpace: "team")
        try await dave.sync()
        #expect(try await dave.database.read { try $0.query("SELECT count(*) FROM tag") as Int? } == 1)
    }

    @Test func aCallerWithoutAUserIsRefusedOnASpaceWithRules() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        // The fingerprint a replica of these tables sends: a trusted pull answers it.
        try Connection(storageLocation: .onDisk(folder.path("probe.sqlite"))).execute(Self.schema)
        let database = try Database(path: folder.path("probe.sqlite"))
        final class Recorder: SyncTransport, @unchecked Sendable {
            // Written once by the one pull below, read after it returns.
            var fingerprint = ""
            let hub: SyncHub
            init(hub: SyncHub) { self.hub = hub }
            func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.push(request) }
            func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { fingerprint = request.schemaFingerprint; return try hub.pull(request) }
        }
        let recorder = Recorder(hub: hub)
        let replica = try SyncReplica(database: database, replicaID: "probe", space: "team", tables: Self.tables, transport: recorder)
        try await replica.pull()
        let request = SyncPullRequest(space: "team", replicaID: "x", tables: Self.tables, schemaFingerprint: recorder.fingerprint, after: 0, limit: 10)
        do {
            _ = try hub.pull(request, identity: nil)
            Issue.record("a pull with no user was answered")
        } catch SyncError.accessDenied(let denial) {
            #expect(denial.reason == .missing)
        }
        #expect(try hub.pull(request, identity: SyncIdentity(user: "dave")).entries.count <= 1)
    }

    @Test func anotherUserSigningInOnTheSameFileKeepsNoRowOfTheFirstUsersView() async throws {
        let folder = try SyncFolder()
        let (hub, _, alice) = try await Self.seededSpace(folder, signingIn: "alice", name: "shared")
        try await Self.checkView(alice, hub, user: "alice")
        // The same file and replica ID, now Dave's: he starts from a snapshot of his own view.
        let dave = try Self.signIn("dave", on: alice, hub)
        try await dave.sync()
        try await Self.checkView(dave, hub, user: "dave", "after the sign-in")
        #expect(try await dave.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 0)
    }

    @Test func aUserSigningInAgainAfterAnotherOnTheSameFileGetsTheirViewBack() async throws {
        let folder = try SyncFolder()
        let (hub, _, alice) = try await Self.seededSpace(folder, signingIn: "alice", name: "shared")
        func signIn(_ user: String) throws -> SyncReplica { try Self.signIn(user, on: alice, hub) }
        try await signIn("bob").sync()
        // The hub once recorded alice's view for this replica; the file holds bob's now, so her
        // pull is not answered as moves from her old view (which kept bob's rows and lacked hers).
        let again = try signIn("alice")
        try await again.sync()
        try await Self.checkView(again, hub, user: "alice", "alice after bob")
    }

    @Test func writesPendingUnderOneUserAreNeverPushedUnderAnother() async throws {
        let folder = try SyncFolder()
        let (hub, _, alice) = try await Self.seededSpace(folder, signingIn: "alice", name: "shared")
        // Written as alice, into her list; then bob (who may write L2, not L1) signs in on the file.
        try await alice.write { try $0.execute("INSERT INTO todo VALUES ('a1', 'L1', 'hers')") }
        func signIn(_ user: String) throws -> SyncReplica { try Self.signIn(user, on: alice, hub) }
        let bob = try signIn("bob")
        // His own write, made before alice's is settled, is his.
        try await bob.write { try $0.execute("INSERT INTO todo VALUES ('b0', 'L2', 'his first')") }
        let refusal = try #require(await refusalOfSync(bob), "bob pushed alice's pending write")
        #expect(refusal.reason == .userChanged)
        #expect(refusal.message.contains("alice") && refusal.message.contains("bob"), "\(refusal.message)")
        #expect(try hub.withSpace("team") { try $0.query("SELECT group_concat(id) FROM todo WHERE id IN ('a1', 'b0')") as String? } == "b0")
        #expect(try await bob.pendingChanges.map { $0.refusal?.reason } == [.userChanged])
        // Alice signs in again: her write goes, as hers.
        let again = try signIn("alice")
        try await again.sync()
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = 'a1'") as Int? } == 1)
        try await Self.checkView(again, hub, user: "alice", "alice again")
        // Bob with one pending write of alice's, which he discards: then his view, and his writes.
        try await again.write { try $0.execute("INSERT INTO todo VALUES ('a2', 'L1', 'hers too')") }
        let bobAgain = try signIn("bob")
        await #expect(throws: SyncError.self) { try await bobAgain.sync() }
        for change in try await bobAgain.pendingChanges where change.refusal?.reason == .userChanged { try await bobAgain.discard(change) }
        try await bobAgain.sync()
        try await Self.checkView(bobAgain, hub, user: "bob", "after the discard")
        try await bobAgain.write { try $0.execute("INSERT INTO todo VALUES ('b1', 'L2', 'his')") }
        try await bobAgain.sync()
        #expect(try hub.withSpace("team") { try $0.query("SELECT group_concat(id) FROM todo WHERE id IN ('a2', 'b1')") as String? } == "b1")
        // Nothing pending: carol signs in and writes at once, before any answer names her.
        let carol = try signIn("carol")
        try await carol.write { try $0.execute("INSERT INTO todo VALUES ('c1', 'L3', 'hers')") }
        try await carol.sync()
        try await Self.checkView(carol, hub, user: "carol", "carol's first write")
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = 'c1'") as Int? } == 1)
    }

    @Test func theHubNamesTheUserOnlyOnASpaceWithRulesAndRefusesAPushWrittenUnderAnother() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        try hub.createSpace("open") { try $0.execute(Self.schema) }
        func fingerprint(_ space: String) throws -> String {
            do {
                _ = try hub.pull(SyncPullRequest(space: space, replicaID: "x", tables: Self.tables, schemaFingerprint: "?", after: 0, limit: 1))
            } catch SyncError.schemaMismatch(_, let remote) {
                return remote
            }
            throw SyncError.refused("no fingerprint")
        }
        let bob = SyncIdentity(user: "bob")
        for space in ["team", "open"] {
            let spaceFingerprint = try fingerprint(space)
            let pulled = try hub.pull(
                SyncPullRequest(space: space, replicaID: "r", tables: Self.tables, schemaFingerprint: spaceFingerprint, after: 0, limit: 5),
                identity: bob)
            #expect(pulled.user == (space == "team" ? "bob" : nil))
            #expect(
                try hub.pull(SyncPullRequest(space: space, replicaID: "r", tables: Self.tables, schemaFingerprint: spaceFingerprint, after: 0, limit: 5)).user
                    == nil)
            let push = SyncPushRequest(space: space, replicaID: "r", tables: Self.tables, schemaFingerprint: spaceFingerprint, entries: [], user: "alice")
            if space == "team" {
                var written = push
                written.entries = [SyncOutboxEntry(sequence: 1, changeset: Data())]
                let answer = try hub.push(written, identity: bob)
                #expect(answer.refused?.map(\.reason) == [.userChanged])
                #expect(answer.acknowledged.isEmpty)
                // A trusted caller writes as no user: it is not refused.
                #expect(try hub.push(push).user == nil)
            } else {
                // Without rules nothing changes: the user a push names is not checked.
                #expect(try hub.push(push, identity: bob).user == nil)
            }
            var own = push
            own.user = "bob"
            #expect(try hub.push(own, identity: bob).user == (space == "team" ? "bob" : nil))
        }
        // A space without rules: another user on the file pushes what is pending, as before.
        let alice = try Self.replica(folder, hub, user: "alice", name: "open-file")
        let onOpen = try SyncReplica(
            database: alice.database, replicaID: "open-file", space: "open", tables: Self.tables,
            transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "alice")))
        try await onOpen.sync()
        try await onOpen.write { try $0.execute("INSERT INTO todo VALUES ('o1', 'L9', 'open')") }
        let asBob = try SyncReplica(
            database: alice.database, replicaID: "open-file", space: "open", tables: Self.tables,
            transport: InProcessSyncTransport(hub: hub, identity: bob))
        try await asBob.sync()
        #expect(try hub.withSpace("open") { try $0.query("SELECT count(*) FROM todo") as Int? } == 1)
    }

    @Test func theUserTravelsOnTheWireAndIsLeftOutWhenThereIsNone() throws {
        let entry = SyncOutboxEntry(sequence: 1, changeset: Data([1, 2, 3]))
        for user in ["o'brien\u{0}\u{301}", nil] as [String?] {
            let formers = user.map { ["phone#\($0)", "tablet"] }
            let push = SyncPushRequest(
                space: "team", replicaID: "r", tables: ["todo"], schemaFingerprint: "f", entries: [entry], user: user,
                formerReplicaIDs: formers)
            let body = try SyncWire.encode(push)
            let decoded = try SyncWire.decodePushRequest(body)
            #expect(decoded.user == user)
            #expect(decoded.formerReplicaIDs == formers)
            // A hub from before the fields reads the same header: nothing is added when they are empty.
            if user == nil {
                let text = String(decoding: body, as: UTF8.self)
                #expect(!text.contains("\"user\"") && !text.contains("formerReplicaIDs"))
            }
            let pull = SyncPullResponse(entries: [SyncLogEntry(version: 2, replicaID: "r", sequence: 1, changeset: Data([4]))], hubVersion: 2, user: user)
            #expect(try SyncWire.decodePullResponse(try SyncWire.encode(pull)).user == user)
            let answer = SyncPushResponse(acknowledged: [1], corrections: [], hubVersion: 2, user: user)
            #expect(try JSONDecoder().decode(SyncPushResponse.self, from: try JSONEncoder().encode(answer)).user == user)
        }
        // An answer from a hub from before the field.
        let old = Data(#"{"acknowledged": [1], "corrections": [], "hubVersion": 2}"#.utf8)
        #expect(try JSONDecoder().decode(SyncPushResponse.self, from: old).user == nil)
    }
}
