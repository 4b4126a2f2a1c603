import Foundation
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Schema versions of a space: replicas on version 1 and version 2 sync side by side (each with
/// the columns it knows), destructive steps are refused by name, and a replica that upgrades its
/// own tables keeps its outbox and cursor.
@Suite struct SyncSchemaVersionTests {
    static let version1 = "CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v)"
    static let version2Steps = "ALTER TABLE t ADD COLUMN extra TEXT NOT NULL DEFAULT 'none'; CREATE TABLE tag(id TEXT NOT NULL PRIMARY KEY, name TEXT); CREATE INDEX t_v ON t(v)"

    static func replica(_ folder: SyncFolder, _ name: String, version: Int, hub: SyncHub) throws -> SyncReplica {
        let database = try Database(storageLocation: .onDisk(folder.path(name + ".sqlite")))
        try database.executeWrite { try $0.execute(version1 + (version == 2 ? "; " + version2Steps : "")) }
        return try SyncReplica(database: database, replicaID: name, space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub),
                               settings: SyncReplicaSettings(pullPageSize: 3, maximumPushEntries: 7))
    }

    @Test func versionOneAndVersionTwoReplicasSyncSideBySide() async throws {
        var seeds: [UInt64] = []
        if let text = ProcessInfo.processInfo.environment["STRATA_SYNC_SCHEMA_SEED"], let seed = UInt64(text) {
            seeds = [seed]
        } else {
            try PropertyCheck.run("schema versions side by side", cases: 4) { random in seeds.append(random.next()) }
        }
        for seed in seeds {
            do {
                try await Self.sideBySide(seed: seed)
            } catch {
                Issue.record("schema versions side by side failed with seed 0x\(String(seed, radix: 16, uppercase: true)): \(error)")
                throw error
            }
        }
    }

    static func sideBySide(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("s") { try $0.execute(Self.version1) }
        let old = try replica(folder, "old", version: 1, hub: hub)
        try await old.write { try $0.execute("INSERT INTO t VALUES ('before', 0)") }
        try await old.sync()
        try hub.migrateSpace("s", to: 2) { try $0.execute(Self.version2Steps) }
        #expect(try hub.schemaVersion(ofSpace: "s") == 2)
        let new = try replica(folder, "new", version: 2, hub: hub)
        var expected: [String: String] = ["before": "0|none"]   // id -> v|extra at the hub
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
                try await new.write { try $0.run("INSERT INTO t(id, v, extra) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET v = excluded.v, extra = excluded.extra", id, value, extra) }
                try await new.sync()
                expected[id] = "\(value)|\(extra)"
            }
        }
        try await old.sync()
        try await new.sync()
        let atHub: [String] = try hub.withSpace("s") { try $0.query("SELECT id || '=' || v || '|' || extra FROM t ORDER BY id") }
        #expect(atHub == expected.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }, "replay with STRATA_SYNC_SCHEMA_SEED=\(seed)")
        let hubNarrow: [String] = try hub.withSpace("s") { try $0.query("SELECT id || '=' || v FROM t ORDER BY id") }
        #expect(try await old.database.read { try $0.query("SELECT id || '=' || v FROM t ORDER BY id") as [String] } == hubNarrow, "seed \(seed)")
        #expect(try await new.database.read { try $0.query("SELECT id || '=' || v || '|' || extra FROM t ORDER BY id") as [String] } == atHub, "seed \(seed)")
        let pending = (try await old.pendingChangeCount, try await new.pendingChangeCount)
        #expect(pending == (0, 0))
    }

    @Test(arguments: [
        ("DROP TABLE t", "drops or renames the table t"),
        ("ALTER TABLE t RENAME TO u", "drops or renames the table t"),
        ("ALTER TABLE t RENAME COLUMN v TO w", "renames or drops the column t.v"),
        ("DROP INDEX t_v; ALTER TABLE t DROP COLUMN v", "drops the column t.v"),
        ("DROP INDEX t_v", "drops the index t_v"),
    ])
    func destructiveStepsAreRefusedByNameAndChangeNothing(step: String, reason: String) throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("s") { try $0.execute(Self.version1 + "; CREATE INDEX t_v ON t(v); INSERT INTO t VALUES ('a', 1)") }
        let before: [String] = try hub.withSpace("s") { try $0.query("SELECT sql FROM sqlite_master ORDER BY name") }
        do {
            try hub.migrateSpace("s", to: 2) { try $0.execute(step) }
            Issue.record("\(step) was not refused")
        } catch SyncError.schemaChangeRefused(let space, let version, let why) {
            #expect(space == "s" && version == 2 && why.contains(reason), "\(why)")
        }
        #expect(try hub.schemaVersion(ofSpace: "s") == 1)
        #expect(try hub.withSpace("s") { !$0.isInTransaction }, "the refused step's transaction is gone")
        #expect(try hub.withSpace("s") { try $0.query("SELECT sql FROM sqlite_master ORDER BY name") as [String] } == before)
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 1)
        // A version that does not follow the space's is refused too.
        #expect(throws: SyncError.self) { try hub.migrateSpace("s", to: 1) { _ in } }
    }

    @Test func aReplicaThatUpgradesItsOwnTablesKeepsItsOutboxAndCursor() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("s") { try $0.execute(Self.version1) }
        let other = try Self.replica(folder, "other", version: 1, hub: hub)
        try await other.write { try $0.execute("INSERT INTO t VALUES ('o', 1)") }
        try await other.sync()
        let phone = try Self.replica(folder, "phone", version: 1, hub: hub)
        try await phone.sync()
        try await phone.write { try $0.execute("INSERT INTO t VALUES ('pending', 2)") }
        let pulled = try await phone.lastPulledVersion
        // The app's version 2: the hub first, then the app's own migration, then a new replica.
        try hub.migrateSpace("s", to: 2) { try $0.execute(Self.version2Steps) }
        try await phone.database.write { try $0.execute(Self.version2Steps) }
        let upgraded = try SyncReplica(database: phone.database, replicaID: "phone", space: "s", tables: ["t"],
                                       transport: InProcessSyncTransport(hub: hub))
        #expect(try await upgraded.pendingChangeCount == 1)
        #expect(try await upgraded.lastPulledVersion == pulled)
        #expect(upgraded.hubReplicaID == phone.hubReplicaID)
        try await upgraded.sync()
        #expect(try hub.withSpace("s") { try $0.query("SELECT id || '|' || extra FROM t ORDER BY id") as [String] } == ["o|none", "pending|none"])
        #expect(try await upgraded.database.read { try $0.query("SELECT id || '|' || extra FROM t ORDER BY id") as [String] } == ["o|none", "pending|none"])
    }
}
