import Foundation
import StrataSQift
import Strata
@testable import StrataSync
import StrataTestSupport
import Testing

/// The sync engine's own tables come from one declaration and one versioned migration: a new
/// replica or space is made by it, and a database made before versions were recorded (the
/// shapes earlier releases left) is recognized, upgraded in one transaction, and syncs on.
@Suite struct SyncBookkeepingTests {
    @Test func aNewReplicaAndSpaceRecordTheLatestVersionAndTheDeclaredTables() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: folder.url)
        try hub.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v)") }
        let database = try Database(path: folder.path("r.sqlite"))
        try database.executeWrite { try $0.execute("CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v)") }
        _ = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        let (replicaVersion, tables, inflightColumns) = try database.executeRead { connection in
            (
                try SyncBookkeepingVersion(table: SyncBookkeeping.state, legacyVersion: { _ in -1 }).currentVersion(connection),
                try [SyncBookkeeping.outbox, SyncBookkeeping.inflight, SyncBookkeeping.sent, SyncBookkeeping.refused].filter {
                    try connection.schemaReader.table(named: $0.name) != nil
                }.count,
                try connection.schemaReader.columns(ofTable: SyncBookkeeping.inflight.name).map(\.name)
            )
        }
        #expect(replicaVersion == SyncBookkeeping.replica.latestVersion)
        #expect(tables == 4)
        #expect(inflightColumns.contains("chain"))
        let (hubVersion, logColumns) = try hub.withSpace("s") { connection in
            (
                try SyncBookkeepingVersion(table: SyncBookkeeping.meta, legacyVersion: { _ in -1 }).currentVersion(connection),
                try connection.schemaReader.columns(ofTable: SyncBookkeeping.log.name).map(\.name)
            )
        }
        #expect(hubVersion == SyncBookkeeping.hub.latestVersion)
        #expect(logColumns == ["version", "replica", "sequence", "changeset", "at", "chain"])
        #expect(try hub.schemaVersion(ofSpace: "s") == 1)
    }

    /// A space file and a replica database in the first release's shape (no `at`, `chain` or
    /// `digest`, no meta or schema table, no version recorded) upgrade when opened, keep their
    /// rows, and sync; the log's new entries carry the time they were applied.
    @Test func aSpaceAndAReplicaFromTheFirstShapeUpgradeAndSync() async throws {
        let folder = try SyncFolder()
        let space = try Connection(storageLocation: .onDisk(folder.path("s.sqlite")))
        try space.execute(
            """
            CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v);
            CREATE TABLE _strata_sync_log(version INTEGER PRIMARY KEY AUTOINCREMENT, replica TEXT NOT NULL, sequence INTEGER NOT NULL, changeset BLOB NOT NULL);
            CREATE TABLE _strata_sync_applied(replica TEXT NOT NULL, sequence INTEGER NOT NULL, version INTEGER NOT NULL, conflicts TEXT NOT NULL, PRIMARY KEY(replica, sequence)) WITHOUT ROWID;
            INSERT INTO t VALUES ('a', 1);
            """)
        let database = try Database(path: folder.path("r.sqlite"))
        try database.executeWrite { connection in
            try connection.execute(
                """
                CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v);
                INSERT INTO t VALUES ('a', 1);
                CREATE TABLE _strata_sync_outbox(sequence INTEGER PRIMARY KEY AUTOINCREMENT, changeset BLOB NOT NULL);
                CREATE TABLE _strata_sync_state(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                CREATE TABLE _strata_sync_inflight(sequence INTEGER PRIMARY KEY, version INTEGER NOT NULL, changeset BLOB NOT NULL);
                CREATE TABLE _strata_sync_sent(sequence INTEGER PRIMARY KEY, changeset BLOB NOT NULL, at INTEGER NOT NULL);
                CREATE TABLE _strata_sync_refused(sequence INTEGER PRIMARY KEY, refusal TEXT NOT NULL);
                INSERT INTO _strata_sync_state VALUES ('incarnation', 'kept');
                """)
        }
        let hub = try SyncHub(directory: folder.url)
        let replica = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        #expect(replica.incarnation == "kept")
        try await replica.write { try $0.run("INSERT INTO t VALUES (?, ?)", "b", 2) }
        try await replica.sync()
        let (ids, at, digests) = try hub.withSpace("s") { connection in
            (
                try connection.query("SELECT group_concat(id, ',') FROM (SELECT id FROM t ORDER BY id)") as String?,
                try connection.query("SELECT at FROM _strata_sync_log ORDER BY version DESC LIMIT 1") as Int64? ?? 0,
                try connection.query("SELECT count(*) FROM _strata_sync_applied WHERE digest IS NOT NULL") as Int?
            )
        }
        #expect(ids == "a,b")
        #expect(abs(at - Int64(Date().timeIntervalSince1970)) < 3600)
        #expect(digests == 1)
        #expect(try hub.schemaVersion(ofSpace: "s") == 1)
        let upgraded = try database.executeRead { try $0.schemaReader.columns(ofTable: "_strata_sync_inflight").map(\.name) }
        #expect(upgraded.contains("chain"))
    }

    /// A step that fails leaves the database as it was: nothing created, no version recorded.
    @Test func aFailingStepLeavesNothingBehind() throws {
        let connection = try Connection(storageLocation: .inMemory)
        struct Boom: Error {}
        let migration = VersionedMigration(
            steps: [
                .init(1) { try $0.execute("CREATE TABLE a(x)") },
                .init(2) { _ in throw Boom() }
            ], store: SyncBookkeepingVersion(table: SyncKeyValues("kv"), legacyVersion: { _ in 0 }))
        #expect(throws: Boom.self) { try migration.migrate(connection) }
        #expect(try connection.schemaReader.userTableNames().isEmpty)
        #expect(!connection.isInTransaction)
        let newer = VersionedMigration(
            steps: [.init(1) { try $0.execute("CREATE TABLE a(x)") }],
            store: SyncBookkeepingVersion(table: SyncKeyValues("kv"), legacyVersion: { _ in 0 }))
        #expect(try newer.migrate(connection) == 1)
        #expect(try newer.migrate(connection) == 0)
        #expect(throws: MigratorError.self) {
            try VersionedMigration(steps: [], store: SyncBookkeepingVersion(table: SyncKeyValues("kv"), legacyVersion: { _ in 0 })).migrate(connection)
        }
    }

    /// Sequences are never given twice, though the outbox has no AUTOINCREMENT counter: not after
    /// the outbox empties by acknowledgement, nor after a discard, nor across the upgrade from
    /// the counter (a replica whose outbox was emptied keeps counting from its old high mark).
    @Test func sequencesAreNeverReused() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: folder.url)
        try hub.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v)") }
        let database = try Database(path: folder.path("r.sqlite"))
        try database.executeWrite { connection in
            try connection.execute(
                """
                CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v);
                CREATE TABLE _strata_sync_outbox(sequence INTEGER PRIMARY KEY AUTOINCREMENT, changeset BLOB NOT NULL);
                CREATE TABLE _strata_sync_state(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                CREATE TABLE _strata_sync_inflight(sequence INTEGER PRIMARY KEY, version INTEGER NOT NULL, changeset BLOB NOT NULL, chain INTEGER);
                CREATE TABLE _strata_sync_sent(sequence INTEGER PRIMARY KEY, changeset BLOB NOT NULL, at INTEGER NOT NULL);
                CREATE TABLE _strata_sync_refused(sequence INTEGER PRIMARY KEY, refusal TEXT NOT NULL);
                INSERT INTO _strata_sync_outbox VALUES (41, x'00');
                DELETE FROM _strata_sync_outbox;
                CREATE VIEW pending AS SELECT count(*) AS n FROM _strata_sync_outbox;
                """)
        }
        let replica = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        #expect(replica.incarnation == "", "a database with history keeps the plain name")
        try await replica.write { try $0.run("INSERT INTO t VALUES (?, ?)", "a", 1) }
        #expect(try await replica.pendingChanges.map(\.sequence) == [42])
        try await replica.sync()
        try await replica.write { try $0.run("INSERT INTO t VALUES (?, ?)", "b", 2) }
        let second = try await replica.pendingChanges
        #expect(second.map(\.sequence) == [43])
        if let change = second.first { #expect(try await replica.discard(change)) }
        try await replica.write { try $0.run("INSERT INTO t VALUES (?, ?)", "c", 3) }
        #expect(try await replica.pendingChanges.map(\.sequence) == [44])
        try await replica.sync()
        let sequences = try hub.withSpace("s") {
            try $0.query("SELECT group_concat(sequence, ',') FROM (SELECT sequence FROM _strata_sync_log ORDER BY version)") as String?
        }
        #expect(sequences == "42,44")
        let autoincrement = try database.executeRead { try $0.query("SELECT count(*) FROM sqlite_sequence WHERE name = '_strata_sync_outbox'") as Int? }
        #expect(autoincrement == 0)
        // The app's view over the outbox survived the rebuild and reads the new table.
        let viewed = try database.executeRead { try $0.query("SELECT n FROM pending") as Int? }
        #expect(viewed == 0)
    }
}
