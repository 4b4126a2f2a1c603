// List claims (`"groups": ["g1", "g2"]` in a token, `IN auth.groups` in rules): the same view on
// every hub store, moved in one pull when the list changes, an empty or absent list matching
// nothing under IN and everything under NOT IN, and write rules that read them.
import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

#if Hub
import StrataSyncPostgres
#endif

@Suite struct ListClaimTests {
    static let schema = """
        CREATE TABLE grp(id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, grp TEXT, body TEXT);
        """
    static let tables = ["grp", "doc"]

    enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A hub on `store` with the space `s`, and what keeps its database alive; nil when the store
    /// cannot run here (PostgreSQL without STRATA_POSTGRES_URL).
    static func hub(_ store: Store, _ folder: SyncFolder, schema: String = schema) throws -> (SyncHub, Any?)? {
        switch store {
        case .sqlite:
            let hub = try folder.hub(schema)
            return (hub, nil)
        case .postgres:
            #if Hub
            guard let server = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return nil }
            let database = try SyncModelPostgresDatabase(server: server)
            let hub = SyncHub(store: try .postgres(url: database.url))
            try hub.createSpace("s") { try $0.execute(schema) }
            return (hub, database)
            #else
            return nil
            #endif
        }
    }

    /// `hub(store, folder)` with `rules` (when given) on its space `s` and the admin's rows synced
    /// in, the admin's replica beside it; nil when the store cannot run here.
    static func seededHub(_ store: Store, _ folder: SyncFolder, rules: SyncRules? = nil) async throws -> (SyncHub, Any?, SyncReplica)? {
        guard let (hub, keep) = try hub(store, folder) else { return nil }
        if let rules { try hub.setRules(rules, forSpace: "s") }
        return (hub, keep, try await seed(hub, folder))
    }

    /// The file `file`.sqlite in `folder`, made with the schema unless it is there already: a
    /// replica's database before the replica is opened. Returns its path.
    static func schemaFile(_ folder: SyncFolder, _ file: String = "bob") throws -> String {
        let path = folder.path(file + ".sqlite")
        if !FileManager.default.fileExists(atPath: path) { try Connection(storageLocation: .onDisk(path)).execute(schema) }
        return path
    }

    static func replica(_ folder: SyncFolder, _ hub: SyncHub, _ file: String, _ identity: SyncIdentity?) throws -> SyncReplica {
        try replica(folder, file, transport: identity.map { InProcessSyncTransport(hub: hub, identity: $0) } ?? InProcessSyncTransport(hub: hub))
    }

    /// The replica `file` of the space `s` over `transport`, on its `schemaFile`.
    static func replica(_ folder: SyncFolder, _ file: String, transport: some SyncTransport) throws -> SyncReplica {
        try SyncReplica(database: try Database(path: try schemaFile(folder, file)), replicaID: file, space: "s", tables: tables, transport: transport)
    }

    static func ids(_ replica: SyncReplica, _ table: String = "doc") async throws -> [String] {
        try await replica.database.read { try $0.query("SELECT id FROM " + quoteIdentifier(table) + " ORDER BY id") }
    }

    static func seed(_ hub: SyncHub, _ folder: SyncFolder) async throws -> SyncReplica {
        let admin = try replica(folder, hub, "admin", nil)
        try await admin.write {
            try $0.execute(
                """
                INSERT INTO grp VALUES ('g1', 'one'), ('g2', 'two'), ('g3', 'three'), ('g''4', 'quote');
                INSERT INTO doc VALUES ('a', 'g1', 'x'), ('b', 'g2', 'y'), ('c', 'g3', 'z'), ('d', 'g''4', 'q'), ('e', NULL, 'n');
                """)
        }
        try await admin.sync()
        return admin
    }

    @Test(arguments: Store.allCases)
    func aListClaimInAParameterQueryGivesTheGroupsItNamesOnEveryStore(store: Store) async throws {
        let folder = try SyncFolder()
        let rules = SyncRules(
            buckets: [
                SyncBucket(
                    name: "groups", parameters: "SELECT id AS g FROM grp WHERE id IN auth.groups", data: ["doc": "grp = bucket.g", "grp": "id = bucket.g"])
            ],
            writes: ["doc": "grp IN auth.groups"])
        guard let (hub, keep, admin) = try await Self.seededHub(store, folder, rules: rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let bob = try Self.replica(folder, hub, "bob", SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g'4"]]))
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["a", "d"])
        #expect(try await Self.ids(bob, "grp") == ["g'4", "g1"])
        // The next token lists other groups: g1's rows leave and g3's arrive in one pull.
        let again = try Self.replica(folder, hub, "bob", SyncIdentity(user: "bob", listClaims: ["groups": ["g3", "g'4"]]))
        try await again.pull()
        #expect(try await Self.ids(again) == ["c", "d"])
        // A write to a listed group goes through; one to another group is refused and stays.
        // (A push is refused or taken by transaction: two transactions.)
        try await again.write { try $0.execute("INSERT INTO doc VALUES ('f', 'g3', 'mine')") }
        try await again.write { try $0.execute("INSERT INTO doc VALUES ('g', 'g2', 'theirs')") }
        do {
            try await again.sync()
            Issue.record("a write to a group outside the list was accepted")
        } catch {}
        try await admin.pull()
        #expect(try await Self.ids(admin) == ["a", "b", "c", "d", "e", "f"])
        // A string claim is a list of one; no claim, an empty list: nothing.
        let single = try Self.replica(folder, hub, "carol", SyncIdentity(user: "carol", claims: ["groups": "g2"]))
        try await single.sync()
        #expect(try await Self.ids(single) == ["b"])
        let none = try Self.replica(folder, hub, "dave", SyncIdentity(user: "dave"))
        try await none.sync()
        #expect(try await Self.ids(none) == [])
    }

    @Test(arguments: Store.allCases)
    func aListClaimInADataRuleIsRecheckedWhenItChanges(store: Store) async throws {
        let folder = try SyncFolder()
        let rules = SyncRules(buckets: [
            SyncBucket(name: "listed", data: ["doc": "grp IN auth.groups"]),
            SyncBucket(name: "unblocked", data: ["grp": "id NOT IN auth.blocked"])
        ])
        guard let (hub, keep, admin) = try await Self.seededHub(store, folder, rules: rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let eve = try Self.replica(folder, hub, "eve", SyncIdentity(user: "eve", listClaims: ["groups": ["g2", "g3"], "blocked": ["g1"]]))
        try await eve.sync()
        #expect(try await Self.ids(eve) == ["b", "c"])
        #expect(try await Self.ids(eve, "grp") == ["g'4", "g2", "g3"])
        // The lists change: the view moves in one pull, and a row changed meanwhile is judged by
        // each side's lists.
        try await admin.write { try $0.execute("UPDATE doc SET grp = 'g1' WHERE id = 'c'; UPDATE doc SET body = 'new' WHERE id = 'b'") }
        try await admin.sync()
        let later = try Self.replica(folder, hub, "eve", SyncIdentity(user: "eve", listClaims: ["groups": ["g1"], "blocked": []]))
        try await later.pull()
        #expect(try await Self.ids(later) == ["a", "c"])
        // NOT IN an empty list is true for every row (NOT IN (NULL) would be true for none).
        #expect(try await Self.ids(later, "grp") == ["g'4", "g1", "g2", "g3"])
        // The list taken away: IN an absent list matches nothing.
        let bare = try Self.replica(folder, hub, "eve", SyncIdentity(user: "eve"))
        try await bare.pull()
        #expect(try await Self.ids(bare) == [])
    }

    @Test func aListClaimIsReadOnlyUnderIn() throws {
        let folder = try SyncFolder()
        let hub = try folder.hub(Self.schema)
        // Used as a value it is the string claim of that name (NULL for a list); a list claim
        // compared with a column of another kind is refused like any claim.
        try hub.setRules(SyncRules(buckets: [SyncBucket(name: "b", data: ["doc": "grp = auth.groups"])]), forSpace: "s")
        try hub.createSpace("n") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY NOT NULL, n INTEGER)") }
        #expect(throws: SyncError.self) {
            try hub.setRules(SyncRules(buckets: [SyncBucket(name: "b", data: ["t": "n IN auth.groups"])]), forSpace: "n")
        }
    }
}
