import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Schema versions of a space: replicas on version 1 and version 2 sync side by side (each with
/// the columns it knows), destructive steps are refused by name, and a replica that upgrades its
/// own tables keeps its outbox and cursor. Each test runs on both hub stores: the SQLite folder,
/// and PostgreSQL (with the `Hub` trait and STRATA_POSTGRES_URL), where the hub's rows are read
/// by a replica made from its snapshot.
@Suite struct SyncSchemaVersionTests {
    typealias Store = SyncModelPropertyTests.Store
    static let version1 = "CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v INTEGER)"
    static let version2Steps =
        "ALTER TABLE t ADD COLUMN extra TEXT NOT NULL DEFAULT 'none'; CREATE TABLE tag(id TEXT NOT NULL PRIMARY KEY, name TEXT); CREATE INDEX t_v ON t(v)"

    /// A hub on `store` with space "s" made by `schema`, or nil (saying why) when PostgreSQL is
    /// not at hand.
    final class TestHub: Sendable {
        let hub: SyncHub
        let folder: SyncFolder
        #if Hub
        let postgres: SyncModelPostgresDatabase?
        #endif

        init?(_ store: Store, schema: String = SyncSchemaVersionTests.version1) throws {
            folder = try SyncFolder()
            if store == .postgres {
                #if Hub
                guard let server = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
                    print("SyncSchemaVersionTests on PostgreSQL skipped: STRATA_POSTGRES_URL is unset (eval \"$(.ci/postgres.sh start)\")")
                    return nil
                }
                let database = try SyncModelPostgresDatabase(server: server)
                postgres = database
                hub = SyncHub(store: try .postgres(url: database.url))
                #else
                print("SyncSchemaVersionTests on PostgreSQL skipped: built without the Hub trait")
                return nil
                #endif
            } else {
                #if Hub
                postgres = nil
                #endif
                hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
            }
            try hub.createSpace("s") { try $0.execute(schema) }
        }

        /// `sql`'s rows over the hub's tables, read by a new replica at version 2 made from the
        /// hub's snapshot (the same on both stores).
        func rows(_ sql: String) async throws -> [String] {
            let witness = try SyncSchemaVersionTests.replica(folder, "witness-" + UUID().uuidString, version: 2, hub: hub)
            try await witness.bootstrap()
            return try await witness.database.read { try $0.query(sql) as [String] }
        }
    }

    static func replica(_ folder: SyncFolder, _ name: String, version: Int, hub: SyncHub) throws -> SyncReplica {
        let database = try Database(path: folder.path(name + ".sqlite"))
        try database.executeWrite { try $0.execute(version1 + (version == 2 ? "; " + version2Steps : "")) }
        return try SyncReplica(
            database: database, replicaID: name, space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub),
            settings: SyncReplicaSettings(pullPageSize: 3, maximumPushEntries: 7))
    }

    @Test(arguments: Store.allCases)
    func versionOneAndVersionTwoReplicasSyncSideBySide(store: Store) async throws {
        var seeds: [UInt64] = []
        if let text = ProcessInfo.processInfo.environment["STRATA_SYNC_SCHEMA_SEED"], let seed = UInt64(text) {
            seeds = [seed]
        } else {
            try PropertyCheck.run("schema versions side by side", cases: 4) { random in seeds.append(random.next()) }
        }
        for seed in seeds {
            do {
                guard try await Self.sideBySide(seed: seed, store: store) else { return }
            } catch {
                Issue.record("schema versions side by side (\(store.rawValue) hub) failed with seed \(seed) (STRATA_SYNC_SCHEMA_SEED): \(error)")
                throw error
            }
        }
    }

    /// False when the store is not at hand.
    static func sideBySide(seed: UInt64, store: Store) async throws -> Bool {
        var random = SeededRandom(seed: seed)
        guard let testHub = try TestHub(store) else { return false }
        let hub = testHub.hub, folder = testHub.folder
        let old = try replica(folder, "old", version: 1, hub: hub)
        try await old.write { try $0.execute("INSERT INTO t VALUES ('before', 0)") }
        try await old.sync()
        try hub.migrateSpace("s", to: 2) { try $0.execute(Self.version2Steps) }
        #expect(try hub.schemaVersion(ofSpace: "s") == 2)
        let new = try replica(folder, "new", version: 2, hub: hub)
        var expected: [String: String] = ["before": "0|none"] // id -> v|extra at the hub
        for step in 0..<random.int(10...40) {
            let id = "k\(random.int(0...6))", value = random.int(0...99)
            // Each writer starts from the hub's newest rows: a changeset carries only the columns a
            // write changed from what the writer saw, so a write on a stale copy that leaves a
            // value as it saw it does not set it (the model would expect it to).
            if random.oneIn(2) {
                try await old.sync()
                try await old.write { try $0.run("INSERT INTO t(id, v) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET v = excluded.v", id, value) }
                try await old.sync()
                let extra = expected[id].map { String($0.split(separator: "|")[1]) } ?? "none"
                expected[id] = "\(value)|\(extra)"
            } else {
                let extra = "x\(step)"
                try await new.sync()
                try await new.write {
                    try $0.run(
                        "INSERT INTO t(id, v, extra) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET v = excluded.v, extra = excluded.extra", id, value, extra)
                }
                try await new.sync()
                expected[id] = "\(value)|\(extra)"
            }
        }
        try await syncInTurn(old, new)
        let atHub = try await testHub.rows("SELECT id || '=' || v || '|' || extra FROM t ORDER BY id")
        #expect(atHub == expected.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }, "replay with STRATA_SYNC_SCHEMA_SEED=\(seed)")
        let hubNarrow = try await testHub.rows("SELECT id || '=' || v FROM t ORDER BY id")
        #expect(try await old.database.read { try $0.query("SELECT id || '=' || v FROM t ORDER BY id") as [String] } == hubNarrow, "seed \(seed)")
        #expect(try await new.database.read { try $0.query("SELECT id || '=' || v || '|' || extra FROM t ORDER BY id") as [String] } == atHub, "seed \(seed)")
        let pending = (try await old.pendingChangeCount, try await new.pendingChangeCount)
        #expect(pending == (0, 0))
        return true
    }

    static let destructiveSteps = [
        ("DROP TABLE t", "drops or renames the table t"),
        ("ALTER TABLE t RENAME TO u", "drops or renames the table t"),
        ("ALTER TABLE t RENAME COLUMN v TO w", "renames or drops the column t.v"),
        ("DROP INDEX t_v; ALTER TABLE t DROP COLUMN v", "drops the column t.v"),
        ("DROP INDEX t_v", "drops the index t_v")
    ]

    @Test(arguments: Store.allCases)
    func destructiveStepsAreRefusedByNameAndChangeNothing(store: Store) async throws {
        for (step, reason) in Self.destructiveSteps {
            guard let testHub = try TestHub(store, schema: Self.version1 + "; CREATE INDEX t_v ON t(v)") else { return }
            let hub = testHub.hub
            let writer = try Self.replica(testHub.folder, "writer", version: 1, hub: hub)
            try await writer.write { try $0.execute("INSERT INTO t VALUES ('a', 1)") }
            try await writer.sync()
            let before = try Self.shape(testHub)
            do {
                try hub.migrateSpace("s", to: 2) { try $0.execute(step) }
                Issue.record("\(step) was not refused (\(store.rawValue) hub)")
            } catch SyncError.schemaChangeRefused(let space, let version, let why) {
                #expect(space == "s" && version == 2 && why.contains(reason), "\(why)")
            }
            #expect(try hub.schemaVersion(ofSpace: "s") == 1)
            #expect(try Self.shape(testHub) == before, "\(step) changed the \(store.rawValue) hub's tables")
            if store == .sqlite {
                #expect(try hub.withSpace("s") { !$0.isInTransaction }, "the refused step's transaction is gone")
            }
            // A version that does not follow the space's is refused too.
            #expect(throws: SyncError.self) { try hub.migrateSpace("s", to: 1) { _ in } }
            // And the space goes on syncing as before.
            try await writer.write { try $0.execute("INSERT INTO t VALUES ('b', 2)") }
            try await writer.sync()
            let reader = try Self.replica(testHub.folder, "reader", version: 1, hub: hub)
            try await reader.sync()
            #expect(try await reader.database.read { try $0.query("SELECT id || '=' || v FROM t ORDER BY id") as [String] } == ["a=1", "b=2"])
        }
    }

    /// The hub's tables as its store holds them: SQLite's definitions and rows, or PostgreSQL's
    /// columns, indexes, triggers and rows.
    static func shape(_ testHub: TestHub) throws -> [String] {
        #if Hub
        if let postgres = testHub.postgres {
            return try postgres.texts(
                """
                SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '-')
                FROM information_schema.columns WHERE table_schema = 's' ORDER BY 1
                """) + postgres.texts("SELECT indexdef FROM pg_indexes WHERE schemaname = 's' ORDER BY 1")
                + postgres.texts("SELECT tgname || ' ' || tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1")
                + postgres.texts("SELECT id || '=' || v FROM s.t ORDER BY id")
        }
        #endif
        return try testHub.hub.withSpace("s") {
            try $0.query("SELECT sql FROM sqlite_master ORDER BY name") + $0.query("SELECT id || '=' || v FROM t ORDER BY id") as [String]
        }
    }

    @Test(arguments: Store.allCases)
    func aReplicaThatUpgradesItsOwnTablesKeepsItsOutboxAndCursor(store: Store) async throws {
        guard let testHub = try TestHub(store) else { return }
        let hub = testHub.hub, folder = testHub.folder
        let other = try Self.replica(folder, "other", version: 1, hub: hub)
        try await other.write { try $0.execute("INSERT INTO t VALUES ('o', 1)") }
        try await other.sync()
        let phone = try Self.replica(folder, "phone", version: 1, hub: hub)
        try await phone.sync()
        try await phone.write { try $0.execute("INSERT INTO t VALUES ('pending', 2)") }
        let pulled = try await phone.lastPulledVersion
        // The app's version 2: the hub first, then the app's own migration, then a new replica.
        try hub.migrateSpace("s", to: 2) { try $0.execute(Self.version2Steps) }
        let upgraded = try await upgradedReplica(phone, by: Self.version2Steps, hub: hub)
        #expect(try await upgraded.pendingChangeCount == 1)
        #expect(try await upgraded.lastPulledVersion == pulled)
        #expect(upgraded.hubReplicaID == phone.hubReplicaID)
        try await upgraded.sync()
        #expect(try await testHub.rows("SELECT id || '|' || extra FROM t ORDER BY id") == ["o|none", "pending|none"])
        #expect(try await upgraded.database.read { try $0.query("SELECT id || '|' || extra FROM t ORDER BY id") as [String] } == ["o|none", "pending|none"])
    }
}
