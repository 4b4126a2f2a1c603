// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// StrataSync's "Partial sync and permissions" article, word for word between the markers, run in
// a new folder and checked by what it prints.
import Foundation
import Strata
import StrataSync
import Testing

extension READMEExamples {
    @Test func partialSyncArticleRunsAsPrinted() async throws {
        try await inNewFolder { try await partialSyncAndPermissions() }
        #expect(printed.take() == ["1", "2", "1", "forbidden todo", "userChanged", "[\"everyone\"]"])
    }

    func partialSyncAndPermissions() async throws {
        // DOC:begin PartialSyncAndPermissions 1
        let hub = try SyncHub(directory: URL(fileURLWithPath: "hub"))
        try hub.createSpace("team") { db in
            try db.execute("""
                CREATE TABLE list(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, name TEXT);
                CREATE TABLE member(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, user TEXT NOT NULL);
                CREATE TABLE todo(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, title TEXT);
                CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, name TEXT);
                """)
        }
        let rules = SyncRules(buckets: [
            SyncBucket(name: "lists",
                       parameters: "SELECT id AS list FROM list WHERE owner = auth.user UNION SELECT list FROM member WHERE user = auth.user",
                       data: ["list": "id = bucket.list", "todo": "list = bucket.list", "member": "list = bucket.list"]),
            SyncBucket(name: "everyone", data: ["tag": "true"]),
        ], writes: [
            "list": "owner = auth.user",
            "todo": "list IN (SELECT id FROM list WHERE owner = auth.user UNION SELECT list FROM member WHERE user = auth.user)",
            "member": "list IN (SELECT id FROM list WHERE owner = auth.user)",
        ])
        try hub.setRules(rules, forSpace: "team")
        // DOC:end
        // DOC:begin PartialSyncAndPermissions 2
        func replica(_ user: String) throws -> SyncReplica {
            let database = try Database(path: user + ".sqlite")
            try database.write { db in
                try db.execute("""
                    CREATE TABLE list(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, name TEXT);
                    CREATE TABLE member(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, user TEXT NOT NULL);
                    CREATE TABLE todo(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, title TEXT);
                    CREATE TABLE tag(id TEXT PRIMARY KEY NOT NULL, name TEXT);
                    """)
            }
            return try SyncReplica(database: database, replicaID: user + "-phone", space: "team",
                                   tables: ["list", "member", "todo", "tag"],
                                   transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: user)))
        }
        let alice = try replica("alice"), bob = try replica("bob")
        try await alice.write { db in
            try db.execute("INSERT INTO list VALUES ('groceries', 'alice', 'Groceries'); INSERT INTO todo VALUES ('t1', 'groceries', 'milk')")
        }
        try await bob.write { db in
            try db.execute("INSERT INTO list VALUES ('garage', 'bob', 'Garage'); INSERT INTO todo VALUES ('t2', 'garage', 'paint')")
        }
        try await alice.sync(); try await bob.sync(); try await alice.sync()
        print(try await alice.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } ?? 0)   // 1
        // DOC:end
        // DOC:begin PartialSyncAndPermissions 3
        try await bob.write { db in try db.execute("INSERT INTO member VALUES ('m1', 'garage', 'alice')") }
        try await bob.sync()
        try await alice.sync()
        print(try await alice.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } ?? 0)   // 2
        try await bob.write { db in try db.execute("DELETE FROM member WHERE id = 'm1'") }
        try await bob.sync()
        try await alice.sync()
        print(try await alice.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } ?? 0)   // 1
        // DOC:end
        // DOC:begin PartialSyncAndPermissions 4
        try await alice.write { db in try db.execute("INSERT INTO todo VALUES ('t3', 'garage', 'not hers')") }
        do { try await alice.sync() } catch SyncError.entryRefused(let refusal) {
            print(refusal.reason, refusal.table ?? "")                      // forbidden todo
        }
        for change in try await alice.pendingChanges where change.refusal != nil { try await alice.discard(change) }
        // DOC:end
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM todo WHERE id = 't3'") as Int? } == 0)
        try await alice.write { db in try db.execute("INSERT INTO todo VALUES ('t4', 'groceries', 'bread')") }
        let shared = try SyncReplica(database: alice.database, replicaID: "alice-phone", space: "team",
                                     tables: ["list", "member", "todo", "tag"],
                                     transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "bob")))
        // DOC:begin PartialSyncAndPermissions 5
        do { try await shared.sync() } catch SyncError.entryRefused(let refusal) {
            print(refusal.reason)                                            // userChanged
            for change in try await shared.pendingChanges where change.refusal?.reason == .userChanged {
                try await shared.discard(change)                             // or sign the previous user in again
            }
        }
        // DOC:end
        #expect(try await shared.pendingChangeCount == 0)
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = 't4'") as Int? } == 0)
        // DOC:begin PartialSyncAndPermissions 6
        let json = """
            {"buckets": [{"name": "everyone", "data": {"tag": "true"}}], "writes": {"tag": "name IS NOT NULL"}}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: "rules.json"))
        let fromFile = try SyncRules(contentsOf: URL(fileURLWithPath: "rules.json"))
        print(fromFile.buckets.map(\.name))                               // ["everyone"]
        // DOC:end
        // DOC:begin PartialSyncAndPermissions 7
        let roles = SyncRules(buckets: [
            SyncBucket(name: "lists", parameters: "SELECT list FROM member WHERE user = auth.user",
                       data: ["member": "list = bucket.list", "todo": "list = bucket.list"]),
        ], writes: [
            "todo": "list IN (SELECT list FROM member WHERE user = auth.user AND role = 'write')",
        ])
        try hub.createSpace("roles") { db in
            try db.execute("""
                CREATE TABLE member(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, user TEXT NOT NULL, role TEXT NOT NULL);
                CREATE TABLE todo(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, title TEXT);
                """)
        }
        try hub.setRules(roles, forSpace: "roles")
        try hub.withSpace("roles") { db in
            try db.execute("INSERT INTO member VALUES ('m1', 'trip', 'carol', 'read'), ('m2', 'trip', 'dave', 'write')")
        }
        // DOC:end
        func member(_ user: String) throws -> SyncReplica {
            try Connection(path: user + "-roles.sqlite").execute(
                "CREATE TABLE IF NOT EXISTS member(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, user TEXT NOT NULL, role TEXT NOT NULL);"
                    + "CREATE TABLE IF NOT EXISTS todo(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, title TEXT)")
            return try SyncReplica(database: try Database(path: user + "-roles.sqlite"), replicaID: user + "-roles", space: "roles",
                                   tables: ["member", "todo"], transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: user)))
        }
        let carol = try member("carol"), dave = try member("dave")
        try await dave.write { db in try db.execute("INSERT INTO todo VALUES ('p1', 'trip', 'passports')") }
        try await dave.sync()
        try await carol.write { db in try db.execute("INSERT INTO todo VALUES ('p2', 'trip', 'tent')") }
        await #expect(throws: SyncError.self) { try await carol.sync() }
        #expect(try await carol.refusedChanges.map { $0.refusal?.reason } == [.forbidden])
        #expect(try hub.withSpace("roles") { try $0.query("SELECT group_concat(id) FROM todo") as String? } == "p1")
        #expect(try await carol.database.read { try $0.query("SELECT count(*) FROM member") as Int? } == 2)
        try hub.withSpace("roles") { db in try db.execute("INSERT INTO member VALUES ('m3', 'home', 'dave', 'write')") }
        try await dave.sync()
        #expect(try await dave.database.read { try $0.query("SELECT count(*) FROM member") as Int? } == 3)
        try await { () async throws in
            // DOC:begin PartialSyncAndPermissions 8
            let member = try member("dave")
            try await member.subscribe(SyncSubscription(bucket: "lists", parameters: ["list": "trip"], priority: 1))
            try await member.sync()       // dave now holds the trip list's rows only
            try await member.unsubscribe(SyncSubscription(bucket: "lists", parameters: ["list": "trip"], priority: 1))
            // DOC:end
            #expect(try await member.database.read { try $0.query("SELECT group_concat(list) FROM member") as String? } == "trip,trip")
            try await member.sync()
            #expect(try await member.database.read { try $0.query("SELECT count(*) FROM member WHERE list = 'home'") as Int? } == 1)
        }()
    }
}
