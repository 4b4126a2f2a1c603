import Foundation
import Strata
@testable import StrataSync
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

    /// A space file whose child rows reference their parent through a deferred foreign key.
    static func deferredSpace(in folder: SyncFolder) throws -> Connection {
        let connection = try Connection(storageLocation: .onDisk(folder.path("space.sqlite")))
        try connection.execute("PRAGMA foreign_keys = ON")
        try connection.execute(
            """
            CREATE TABLE parent(id TEXT PRIMARY KEY);
            CREATE TABLE child(id TEXT PRIMARY KEY, parent TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)
            """)
        return connection
    }

    /// Releasing a savepoint checks no deferred foreign key: a write that leaves one unresolved
    /// is undone alone, as its own COMMIT failed before, and the push's other writes commit
    /// (left in place, it would fail the push's COMMIT on every resend).
    @Test func aDeferredForeignKeyLeftByOneWriteIsUndoneWithIt() throws {
        let folder = try SyncFolder()
        let connection = try Self.deferredSpace(in: folder)
        let storage = SQLiteSpaceStorage(connection: connection)
        var firstError: (any Error)?
        try storage.applyingPush(replica: "r", sequences: [1, 2]) {
            do {
                try storage.write { try connection.execute("INSERT INTO child VALUES ('orphan', 'missing')") }
            } catch {
                firstError = error
            }
            try storage.write { try connection.execute("INSERT INTO parent VALUES ('p')") }
        }
        #expect((firstError as? SQLiteError)?.resultCode == .constraintForeignKey)
        #expect(try connection.query("SELECT count(*) FROM child") as Int? == 0)
        #expect(try connection.query("SELECT count(*) FROM parent") as Int? == 1)
        #expect(connection.isInTransaction == false)
    }

    /// Another process holding the space's file past the busy timeout makes the store
    /// unavailable for now (the push is sent again), not a bare SQLite error.
    @Test func aLockedSpaceFileIsUnavailableNotAFailure() throws {
        let folder = try SyncFolder()
        let connection = try Self.deferredSpace(in: folder)
        let other = try Connection(storageLocation: .onDisk(folder.path("space.sqlite")))
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("ROLLBACK") }
        let storage = SQLiteSpaceStorage(connection: connection)
        #expect(throws: SyncHubStoreUnavailable.self) {
            try storage.applyingPush(replica: "r", sequences: [1]) {
                try storage.write { try connection.execute("INSERT INTO parent VALUES ('p')") }
            }
        }
        #expect(connection.isInTransaction == false)
    }
}
