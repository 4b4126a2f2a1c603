#if Hub
import Foundation
import StrataSQift
import Strata
@testable import StrataSync
import StrataSyncPostgres
import Testing

/// Issue 64, items 8 and 11 on PostgreSQL: hubs that create the same space at once all find it
/// made once, and a bad table list is refused, never a failure in the store.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresCreateAndTableListTests {
    static let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v); CREATE TABLE counter(id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER)"

    @Test func threeHubsCreatingOneSpaceAtOnceAllSucceed() async throws {
        let database = try PostgresTestDatabase()
        let url = database.url
        let hubs = try (0..<3).map { _ in SyncHub(store: try .postgres(url: url)) }
        let created = try await withThrowingTaskGroup(of: Bool.self) { group in
            for hub in hubs {
                group.addTask { try hub.createSpaceIfNeeded("team") { try $0.execute(Self.schema) } }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(created == 1)
        #expect(throws: SyncError.self) { try hubs[0].createSpace("team") { try $0.execute(Self.schema) } }
        do {
            try hubs[1].createSpaceIfNeeded("team") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY)") }
            Issue.record("another schema was taken")
        } catch SyncError.refused(let message) {
            #expect(message.contains("another schema"), "\(message)")
        }
        for hub in hubs { #expect(try hub.version(ofSpace: "team") == 0) }
    }

    /// Issue 79, item 11: a space created with rules is made in one transaction with them, so
    /// rules PostgreSQL's planner refuses (the last check, after the shared ones) leave no space;
    /// rules it takes are set with it, once.
    @Test func rulesRefusedAtCreationLeaveNoSpace() throws {
        let database = try PostgresTestDatabase()
        let hub = SyncHub(store: try .postgres(url: database.url))
        let json = try SyncRules(buckets: [SyncBucket(name: "all", data: ["counter": "n > 1"])]).jsonData()
        // A probe PostgreSQL cannot plan, as a rule it reads otherwise would be.
        let unplannable = InitialSpaceRules(json: json) { _ in
            [RuleProbe(place: "bucket all, data of counter", statement: "SELECT n FROM counter WHERE n = 'x'::boolean LIMIT 0", arguments: [])]
        }
        do {
            try hub.storage.createSpace("team", schema: { try $0.execute(Self.schema) }, rules: unplannable)
            Issue.record("rules PostgreSQL cannot plan were taken")
        } catch SyncError.invalidRules(let message) {
            #expect(message.contains("PostgreSQL reads it otherwise"), "\(message)")
        }
        #expect(try hub.spaceSummaries().isEmpty, "a space was left behind")
        let rules = SyncRules(buckets: [SyncBucket(name: "all", data: ["counter": "n > 1"])])
        #expect(try hub.createSpaceIfNeeded("team", rules: rules) { try $0.execute(Self.schema) })
        #expect(try hub.rules(ofSpace: "team") == rules)
        #expect(try hub.space("team") { storage in try storage.read { try storage.rules().version } } == 1)
        #expect(!(try hub.createSpaceIfNeeded("team", rules: rules) { try $0.execute(Self.schema) }))
        #expect(try hub.space("team") { storage in try storage.read { try storage.rules().version } } == 1, "the same rules are no change")
    }

    @Test func badTableListsAreRefused() throws {
        let definitions = try Connection(storageLocation: .inMemory)
        try definitions.execute(Self.schema)
        try SyncLog(definitions).prepare()
        let space = try PostgresHubSpace("s", schema: Self.schema, tables: ["t"])
        let hub = space.hub
        let lists: [[String]] = [["t", "t"], ["t", "T"], ["sqlite_sequence"], ["_strata_sync_log"], ["nope"], [""], ["t", ""]]
        for tables in lists {
            let fingerprint = (try? SchemaFingerprint.of(tables: tables, in: definitions)) ?? "x"
            let requests: [(String, () throws -> Void)] = [
                ("snapshot", { _ = try hub.snapshot(SyncSnapshotRequest(space: "s", replicaID: "r", tables: tables, schemaFingerprint: fingerprint)) }),
                (
                    "pull",
                    { _ = try hub.pull(SyncPullRequest(space: "s", replicaID: "r", tables: tables, schemaFingerprint: fingerprint, after: 0, limit: 10)) }
                ),
                ("push", { _ = try hub.push(SyncPushRequest(space: "s", replicaID: "r", tables: tables, schemaFingerprint: fingerprint, entries: [])) })
            ]
            for (name, request) in requests {
                do {
                    try request()
                    Issue.record("\(name) of \(tables) was answered")
                } catch SyncError.refused, SyncError.schemaMismatch {
                } catch {
                    Issue.record("\(name) of \(tables) failed with \(error), not a refusal")
                }
            }
        }
    }
}
#endif
