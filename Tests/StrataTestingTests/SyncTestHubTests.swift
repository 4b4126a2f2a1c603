import Foundation
import Strata
import StrataSync
import StrataTesting
import Testing

@Suite struct SyncTestHubTests {
    static let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, title TEXT)"

    @Test func replicasConvergeThroughTheInProcessHub() async throws {
        let hub = try SyncTestHub(space: "team") { try $0.execute(Self.schema) }
        #expect(hub.tables == ["todo"])
        let phone = try hub.makeReplica("phone")
        let laptop = try hub.makeReplica("laptop")
        try await phone.write { try $0.run("INSERT INTO todo VALUES ('1', 'ann', 'milk')") }
        try await laptop.write { try $0.run("INSERT INTO todo VALUES ('2', 'bob', 'eggs')") }
        try await hub.syncAll([phone, laptop])
        for replica in [phone, laptop] {
            let titles: [String] = try await replica.database.read { try $0.query("SELECT title FROM todo ORDER BY id") }
            #expect(titles == ["milk", "eggs"])
        }
        #expect(try hub.hub.version(ofSpace: "team") == 2)
    }

    @Test func aSpaceWithRulesGivesEachIdentityOnlyItsRows() async throws {
        let rules = SyncRules(
            buckets: [SyncBucket(name: "mine", parameters: "SELECT auth.user AS owner", data: ["todo": "owner = bucket.owner"])],
            writes: ["todo": "owner = auth.user"])
        let hub = try SyncTestHub(rules: rules) { try $0.execute(Self.schema) }
        let ann = try hub.makeReplica("ann-phone", identity: SyncIdentity(user: "ann"))
        let bob = try hub.makeReplica("bob-phone", identity: SyncIdentity(user: "bob"))
        try await ann.write { try $0.run("INSERT INTO todo VALUES ('1', 'ann', 'milk')") }
        try await bob.write { try $0.run("INSERT INTO todo VALUES ('2', 'bob', 'eggs')") }
        try await hub.syncAll([ann, bob])
        #expect(try await ann.database.read { try $0.query("SELECT id FROM todo ORDER BY id") as [String] } == ["1"])
        #expect(try await bob.database.read { try $0.query("SELECT id FROM todo ORDER BY id") as [String] } == ["2"])
    }

    @Test func eachReplicaHasADatabaseOfItsOwnInTheHubsFolder() throws {
        let hub = try SyncTestHub { try $0.execute(Self.schema) }
        let first = try hub.makeReplica("one")
        let second = try hub.makeReplica("one-again")
        let firstFile = try first.database.read { $0.fileName }
        let secondFile = try second.database.read { $0.fileName }
        #expect(firstFile != secondFile)
        #expect(firstFile.hasPrefix(hub.directory.url.resolvingSymlinksInPath().path) || firstFile.hasPrefix(hub.directory.url.path))
        #expect(second.replicaID == "one-again")
    }

    @Test func virtualTablesAndTheirShadowTablesAreNotSynced() async throws {
        let hub = try SyncTestHub { db in
            try db.execute(Self.schema)
            try db.execute("CREATE VIRTUAL TABLE todo_search USING fts5(title)")
            try db.execute("CREATE VIEW open_todo AS SELECT * FROM todo")
        }
        #expect(hub.tables == ["todo"])
        let replica = try hub.makeReplica("phone")
        try await replica.sync()
    }

    /// A refused write fails its replica's sync; the others still sync in both rounds.
    @Test func syncAllSyncsEveryReplicaWhenOneIsRefused() async throws {
        let rules = SyncRules(
            buckets: [SyncBucket(name: "all", data: ["todo": "true"])],
            writes: ["todo": "owner = auth.user"])
        let hub = try SyncTestHub(rules: rules) { try $0.execute(Self.schema) }
        let ann = try hub.makeReplica("ann-phone", identity: SyncIdentity(user: "ann"))
        let bob = try hub.makeReplica("bob-phone", identity: SyncIdentity(user: "bob"))
        try await ann.write { try $0.run("INSERT INTO todo VALUES ('1', 'bob', 'not mine to write')") }
        try await bob.write { try $0.run("INSERT INTO todo VALUES ('2', 'bob', 'eggs')") }
        await #expect(throws: (any Error).self) { try await hub.syncAll([ann, bob]) }
        // Bob synced after Ann's refusal, and Ann pulled Bob's row in the second round.
        #expect(try hub.hub.version(ofSpace: "app") == 1)
        let annSees: [String] = try await ann.database.read { try $0.query("SELECT id FROM todo WHERE id = '2'") }
        #expect(annSees == ["2"])
    }
}
