import Foundation
import StrataSQift
import Strata
@testable import StrataSync
import StrataTestSupport
import Testing

/// Issue 64, item 11: a table list no replica sends (a table twice, SQLite's own tables, the
/// sync engine's, an unknown or empty name) is refused by name on push, pull and snapshot,
/// never a failure deep in the store (an HTTP 500 with no body).
@Suite struct SyncTableListTests {
    static let schema = """
        CREATE TABLE t(id TEXT PRIMARY KEY, v);
        CREATE TABLE counter(id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER)
        """

    /// The lists, each with the fingerprint its tables have in the space's schema (so only the
    /// list itself is wrong).
    static func badLists() throws -> [(tables: [String], fingerprint: String)] {
        let definitions = try Connection(storageLocation: .inMemory)
        try definitions.execute(schema)
        try definitions.execute("INSERT INTO counter(n) VALUES (1)")
        try SyncLog(definitions).prepare()
        let lists: [[String]] = [
            ["t", "t"], ["t", "T"], ["sqlite_sequence"], ["sqlite_master"], ["_strata_sync_log"],
            ["_Strata_Sync_Meta"], ["nope"], [""], ["t", ""]
        ]
        return lists.map { ($0, (try? SchemaFingerprint.of(tables: $0, in: definitions)) ?? "x") }
    }

    /// Runs push, pull and snapshot with each bad list on `hub`'s space `s`, expecting a refusal.
    static func expectRefusals(_ hub: SyncHub, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (tables, fingerprint) in try badLists() {
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
                    Issue.record("\(name) of \(tables) was answered", sourceLocation: sourceLocation)
                } catch SyncError.refused, SyncError.schemaMismatch {
                } catch {
                    Issue.record("\(name) of \(tables) failed with \(error), not a refusal", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func badTableListsAreRefusedBySQLiteFolderHubs() throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("s") { try $0.execute(Self.schema) }
        try hub.withSpace("s") { try $0.execute("INSERT INTO counter(n) VALUES (1)") }
        try Self.expectRefusals(hub)
        // The message names what is wrong.
        #expect(throws: SyncError.refused("the list of tables names T twice")) {
            try HubSchema.checkTableList(["t", "T"])
        }
    }

    /// `--create` on hubs started together, and deploys that keep passing the first schema.
    /// Rules given with the creation are written with the space's tables, in one transaction.
    @Test func aSpaceCreatedWithRulesHasThemFromItsFirstVersion() throws {
        let folder = try TemporaryDirectory()
        let hub = try SyncHub(directory: folder.path("hub"))
        let rules = SyncRules(buckets: [SyncBucket(name: "all", data: ["counter": "n > 1"])])
        #expect(try hub.createSpaceIfNeeded("s", rules: rules) { try $0.execute(Self.schema) })
        #expect(try hub.rules(ofSpace: "s") == rules)
        #expect(try hub.space("s") { storage in try storage.read { try storage.rules().version } } == 1)
        #expect(!(try hub.createSpaceIfNeeded("s", rules: rules) { try $0.execute(Self.schema) }))
        #expect(try hub.space("s") { storage in try storage.read { try storage.rules().version } } == 1, "the same rules are no change")
        do {
            try hub.createSpaceIfNeeded("other", rules: SyncRules(buckets: [SyncBucket(name: "x", data: ["t": "nope = 1"])])) {
                try $0.execute(Self.schema)
            }
            Issue.record("rules naming no column were taken")
        } catch SyncError.invalidRules {}
        #expect(try hub.spaceSummaries().map(\.name) == ["s"])
    }

    @Test func createSpaceIfNeededIsIdempotentAndComparesTheSchema() throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        #expect(try hub.createSpaceIfNeeded("s") { try $0.execute(Self.schema) })
        #expect(try !hub.createSpaceIfNeeded("s") { try $0.execute(Self.schema) })
        let other = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        #expect(try !other.createSpaceIfNeeded("s") { try $0.execute(Self.schema) }, "another process finds it")
        #expect(throws: SyncError.self) { try hub.createSpace("s") { try $0.execute(Self.schema) } }
        do {
            try hub.createSpaceIfNeeded("s") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v, w)") }
            Issue.record("another schema was taken")
        } catch SyncError.refused(let message) {
            #expect(message.contains("another schema") && message.contains("other columns in t") && message.contains("counter"), "\(message)")
        }
        // Migrated since: the first schema still names one of its versions.
        try hub.migrateSpace("s", to: 2) { try $0.execute("ALTER TABLE t ADD COLUMN w TEXT") }
        #expect(try !hub.createSpaceIfNeeded("s") { try $0.execute(Self.schema) })
        #expect(
            try !hub.createSpaceIfNeeded("s") {
                try $0.execute(Self.schema + "; "); try $0.execute("ALTER TABLE t ADD COLUMN w TEXT")
            })
    }

    @Test func concurrentCreatesOnOneFolderAllSucceedOnce() async throws {
        let folder = try SyncFolder()
        let path = URL(fileURLWithPath: folder.path("hub"))
        for round in 0..<5 {
            let space = "s\(round)"
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<4 {
                    group.addTask { try SyncHub(directory: path).createSpaceIfNeeded(space) { try $0.execute(Self.schema) } }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(created == 1, "\(space): \(created) created it")
            #expect(try SyncHub(directory: path).version(ofSpace: space) == 0)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: path.path).filter { $0.hasSuffix(".creating") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
