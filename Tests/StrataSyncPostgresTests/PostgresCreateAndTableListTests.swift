#if Hub
import Foundation
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
