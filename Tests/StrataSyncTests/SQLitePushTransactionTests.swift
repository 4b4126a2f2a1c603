import Foundation
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Issue 66, item 2: the SQLite folder store applies a push in one transaction (one lock, one
/// commit, one fsync), each entry a savepoint, so a refused entry is undone alone.
@Suite struct SQLitePushTransactionTests {
    /// Counts the commits of the hub's space `s` while `body` runs.
    static func commits(on hub: SyncHub, during body: () async throws -> Void) async throws -> Int {
        let count = Locked(0)
        try hub.withSpace("s") { connection in
            connection.commitHook {
                count.withLock { $0 += 1 }
                return false
            }
        }
        defer { try? hub.withSpace("s") { $0.commitHook(nil) } }
        try await body()
        return count.withLock { $0 }
    }

    @Test func aPushOfManyEntriesCommitsOnce() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        for index in 0..<25 {
            try await sync.replica.write { try $0.run("INSERT INTO t(id, v) VALUES (?, ?)", "row-\(index)", index) }
        }
        let commits = try await Self.commits(on: sync.hub) { try await sync.replica.push() }
        #expect(commits == 1)
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 25)
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 25)
        #expect(try await sync.replica.status.pendingChangeCount == 0)
    }

    /// An entry the hub refuses (here a foreign key) is undone alone inside the push's
    /// transaction: the entries before and after it commit with the push, in that one commit.
    @Test func aRefusedEntryIsUndoneAloneInsideThePush() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let schema = """
            CREATE TABLE parent(id TEXT PRIMARY KEY);
            CREATE TABLE child(id TEXT PRIMARY KEY, parent TEXT REFERENCES parent(id))
            """
        try hub.createSpace("s") { try $0.execute(schema) }
        let database = try Database(storageLocation: .onDisk(folder.path("r.sqlite")))
        try database.executeWrite { try $0.execute(schema) }
        let replica = try SyncReplica(
            database: database, replicaID: "r", space: "s", tables: ["parent", "child"], transport: InProcessSyncTransport(hub: hub))
        try await replica.write { try $0.execute("INSERT INTO parent VALUES ('a')") }
        // The replica's own file has no foreign keys on: the hub's has, and refuses this one.
        try await replica.write { try $0.execute("INSERT INTO child VALUES ('orphan', 'missing')") }
        try await replica.write { try $0.execute("INSERT INTO parent VALUES ('b')") }
        let commits = try await Self.commits(on: hub) { _ = try? await replica.push() }
        #expect(commits == 1)
        #expect(try hub.withSpace("s") { try $0.query("SELECT group_concat(id, ',') FROM (SELECT id FROM parent ORDER BY id)") as String? } == "a,b")
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM child") as Int? } == 0)
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 2)
        #expect(try hub.withSpace("s") { $0.isInTransaction } == false)
    }
}
