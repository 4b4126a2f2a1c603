import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Bootstrap and compaction: the hub trims its log, and a replica behind it (or a new one)
/// catches up from a snapshot of the synced tables, keeping its own pending work.
@Suite struct SyncSnapshotTests {
    static let schema = """
        CREATE TABLE item(id TEXT PRIMARY KEY, v, n REAL);
        CREATE TABLE note(id TEXT PRIMARY KEY, item TEXT REFERENCES item(id) ON DELETE RESTRICT, body TEXT)
        """

    static func makeHub(_ folder: SyncFolder) throws -> SyncHub {
        let hub = try folder.hub(Self.schema)
        return hub
    }

    /// Replica `name` of `hub`'s space, in process.
    static func makeReplica(_ name: String, _ folder: SyncFolder, _ hub: SyncHub) throws -> SyncReplica {
        try makeReplica(name, folder, InProcessSyncTransport(hub: hub))
    }

    static func makeReplica(_ name: String, _ folder: SyncFolder, _ transport: any SyncTransport) throws -> SyncReplica {
        let database = try Database(path: folder.path(name + ".sqlite"))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; " + Self.schema) }
        return try SyncReplica(database: database, replicaID: name, space: "s", tables: ["item", "note"], transport: transport)
    }

    /// Every synced row with each value's storage class and bytes, so a conversion shows.
    static func contents(_ connection: Connection) throws -> [String] {
        let items: [String] = try connection.query(
            "SELECT id || '|' || typeof(v) || '|' || coalesce(hex(v), '') || '|' || typeof(n) || '|' || coalesce(quote(n), '') FROM item ORDER BY id")
        let notes: [String] = try connection.query("SELECT id || '|' || coalesce(item, '-') || '|' || coalesce(hex(body), '-') FROM note ORDER BY id")
        return items + ["--"] + notes
    }

    @Test func aReplicaBehindTheTrimmedLogCatchesUpFromASnapshotKeepingItsPendingWrite() async throws {
        let folder = try SyncFolder()
        let hub = try Self.makeHub(folder)
        let writer = try Self.makeReplica("writer", folder, hub)
        let behind = try Self.makeReplica("behind", folder, hub)
        try await writer.write { try $0.run("INSERT INTO item(id, v) VALUES ('a', 1), ('b', 2)") }
        try await writer.write { try $0.run("INSERT INTO note(id, item, body) VALUES ('n1', 'a', 'x')") }
        try await syncInTurn(writer, behind)
        #expect(try await behind.lastPulledVersion == 2)
        for step in 0..<5 {
            try await writer.write { try $0.run("UPDATE item SET v = ? WHERE id = 'a'", step) }
        }
        try await writer.write { try $0.execute("DELETE FROM note; DELETE FROM item WHERE id = 'b'") }
        try await writer.sync()
        #expect(try hub.trimLog(ofSpace: "s", keepingLast: 1) == 7)
        #expect(try hub.version(ofSpace: "s") == 8)

        // The behind replica's own write goes to the hub first, then the snapshot replaces its rows.
        try await behind.write { try $0.run("INSERT INTO item(id, v) VALUES ('c', 'mine')") }
        try await behind.sync()
        let hubContents = try hub.withSpace("s") { try Self.contents($0) }
        #expect(try await behind.database.read { try Self.contents($0) } == hubContents)
        #expect(hubContents.contains("c|text|\(Data("mine".utf8).map { String(format: "%02X", $0) }.joined())|null|NULL"))
        #expect(try await behind.lastPulledVersion == hub.version(ofSpace: "s"))
        #expect(try await behind.pendingChangeCount == 0)

        // A new replica of a trimmed space starts from the snapshot too.
        let fresh = try Self.makeReplica("fresh", folder, hub)
        try await fresh.sync()
        #expect(try await fresh.database.read { try Self.contents($0) } == hubContents)
        // The writer was at the newest version: it pulls on from the log.
        try await behind.write { try $0.run("UPDATE item SET n = -0.0 WHERE id = 'a'") }
        try await syncInTurn(behind, writer, fresh)
        let final = try hub.withSpace("s") { try Self.contents($0) }
        for replica in [writer, behind, fresh] {
            #expect(try await replica.database.read { try Self.contents($0) } == final)
        }
    }

    /// A catch-up from a snapshot deletes only rows the hub no longer has: a table of the
    /// replica's own (not synced) whose foreign key cascades from a synced row keeps its rows.
    @Test func aCatchUpKeepsTheReplicasOwnRowsThatCascadeFromSyncedRows() async throws {
        let folder = try SyncFolder()
        let hub = try Self.makeHub(folder)
        let writer = try Self.makeReplica("writer", folder, hub)
        let local = try Self.makeReplica("local", folder, hub)
        try await local.database.writeWithoutTransaction {
            try $0.execute("CREATE TABLE mine(id INTEGER PRIMARY KEY, item TEXT REFERENCES item(id) ON DELETE CASCADE, memo TEXT)")
        }
        try await writer.write { try $0.run("INSERT INTO item(id, v) VALUES ('a', 1), ('b', 2)") }
        try await syncInTurn(writer, local)
        try await local.database.writeInTransaction { try $0.run("INSERT INTO mine(item, memo) VALUES ('a', 'keep'), ('b', 'goes with b')") }
        try await writer.write { try $0.execute("UPDATE item SET v = 10 WHERE id = 'a'; DELETE FROM item WHERE id = 'b'") }
        try await writer.sync()
        try hub.trimLog(ofSpace: "s", keepingLast: 0)
        try await local.sync()
        #expect(try await local.database.read { try Self.contents($0) } == hub.withSpace("s") { try Self.contents($0) })
        #expect(try await local.database.read { try $0.query("SELECT memo FROM mine") as [String] } == ["keep"])
    }

    /// Two callers of the replica's serialized push arrive together: never side by side.
    @Test func pushesFromTheLoopAndTheAppNeverOverlap() async throws {
        let folder = try SyncFolder()
        let hub = try Self.makeHub(folder)
        let replica = try Self.makeReplica("r", folder, InProcessSyncTransport(hub: hub))
        for index in 0..<20 { try await replica.write { try $0.run("INSERT INTO item(id, v) VALUES (?, 1)", "i\(index)") } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try await replica.push() } }
            for _ in 0..<4 { group.addTask { try await replica.sync() } }
            try await group.waitForAll()
        }
        try await replica.sync()
        #expect(try hub.version(ofSpace: "s") == 20)
        #expect(try await replica.database.read { try Self.contents($0) } == hub.withSpace("s") { try Self.contents($0) })
        let duplicates = try hub.withSpace("s") {
            try $0.query("SELECT count(*) FROM (SELECT replica, sequence FROM _strata_sync_log GROUP BY 1, 2 HAVING count(*) > 1)") as Int?
        }
        #expect(duplicates == 0)
    }

    @Test func trimmingByAgeKeepsTheVersionCounting() async throws {
        let folder = try SyncFolder()
        let hub = try Self.makeHub(folder)
        let replica = try Self.makeReplica("r", folder, hub)
        try await replica.write { try $0.run("INSERT INTO item(id, v) VALUES ('a', 1)") }
        try await replica.write { try $0.run("INSERT INTO item(id, v) VALUES ('b', 1)") }
        try await replica.sync()
        #expect(try hub.trimLog(ofSpace: "s", olderThan: Date().addingTimeInterval(-3600)) == 0)
        #expect(try hub.trimLog(ofSpace: "s", olderThan: Date().addingTimeInterval(3600)) == 2)
        #expect(try hub.trimLog(ofSpace: "s", keepingLast: 0) == 0)
        #expect(try hub.version(ofSpace: "s") == 2)
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 0)
        // A replica at the trimmed horizon needs no snapshot; the next version is 3, not 1.
        try await replica.write { try $0.run("INSERT INTO item(id, v) VALUES ('c', 1)") }
        try await replica.sync()
        #expect(try hub.version(ofSpace: "s") == 3)
        #expect(try await replica.lastPulledVersion == 3)
    }

    /// Seeded: rows of every storage class and hard value (invalid UTF-8 as TEXT, -0.0, ±inf,
    /// Int64 limits, NUL, combining marks after quotes) written through one replica reach a new one
    /// through `bootstrap()` with the same storage classes and bytes as the hub holds.
    @Test func bootstrapCopiesEveryValueBitForBit() async throws {
        var seeds: [UInt64] = []
        try PropertyCheck.run("sync bootstrap copies values exactly", cases: 4) { random in seeds.append(random.next()) }
        for seed in seeds {
            var random = SeededRandom(seed: seed)
            let folder = try SyncFolder()
            let hub = try Self.makeHub(folder)
            let writer = try Self.makeReplica("writer", folder, hub)
            var rows: [(String, BindingValue, Bool)] = []
            for index in 0..<random.int(1...25) {
                let asInvalidText = random.oneIn(4)
                rows.append(
                    (
                        "k\(index)" + Gen.text(&random, maxPieces: 2, nul: false), asInvalidText ? .blob(Gen.invalidUTF8(&random)) : Gen.value(&random),
                        asInvalidText
                    ))
            }
            let batch = rows
            try await writer.write { db in
                for (id, value, asText) in batch {
                    try db.run(
                        asText ? "INSERT OR REPLACE INTO item(id, v) VALUES (?, CAST(? AS TEXT))" : "INSERT OR REPLACE INTO item(id, v) VALUES (?, ?)", id,
                        value.bindable)
                }
            }
            try await writer.sync()
            let fresh = try Self.makeReplica("fresh", folder, hub)
            try await fresh.bootstrap()
            let expected = try hub.withSpace("s") { try Self.contents($0) }
            let got = try await fresh.database.read { try Self.contents($0) }
            if got != expected {
                Issue.record("bootstrap differs from the hub; reproduce with STRATA_PROPERTY_SEED=\(seed)\n\(got)\nhub:\n\(expected)")
            }
            #expect(try await fresh.lastPulledVersion == hub.version(ofSpace: "s"))
        }
    }

    /// A transport without snapshots, a mismatched schema and a damaged image: each a clear
    /// error, and the replica's rows and cursor stay as they were.
    @Test func refusalsLeaveTheReplicaAsItWas() async throws {
        struct LogOnly: SyncTransport {
            let hub: SyncHub
            func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.push(request) }
            func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try hub.pull(request) }
        }
        struct Damaged: SyncTransport {
            let hub: SyncHub
            func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.push(request) }
            func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try hub.pull(request) }
            func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
                var snapshot = try hub.snapshot(request)
                snapshot.database = Data(snapshot.database.prefix(100)) + Data(repeating: 0xA5, count: 4096)
                return snapshot
            }
        }
        let folder = try SyncFolder()
        let hub = try Self.makeHub(folder)
        let writer = try Self.makeReplica("writer", folder, InProcessSyncTransport(hub: hub))
        try await writer.write { try $0.run("INSERT INTO item(id, v) VALUES ('a', 1)") }
        try await writer.sync()
        try hub.trimLog(ofSpace: "s", keepingLast: 0)
        for (name, transport) in [("log-only", LogOnly(hub: hub) as any SyncTransport), ("damaged", Damaged(hub: hub))] {
            let replica = try Self.makeReplica(name, folder, transport)
            try await replica.database.writeInTransaction { try $0.run("INSERT INTO item(id, v) VALUES ('local', 1)") }
            await #expect(throws: SyncError.self) { try await replica.sync() }
            #expect(try await replica.database.read { try $0.query("SELECT id FROM item") as [String] } == ["local"])
            #expect(try await replica.lastPulledVersion == 0)
            #expect(
                try await replica.database.read { try $0.query("SELECT count(*) FROM pragma_database_list WHERE name = 'strata_sync_snapshot'") as Int? } == 0)
        }
        let fingerprintless = SyncSnapshotRequest(space: "s", replicaID: "x", tables: ["item"], schemaFingerprint: "nope")
        #expect { try hub.snapshot(fingerprintless) } throws: { error in
            if case SyncError.schemaMismatch = error { return true } else { return false }
        }
        #expect(throws: SyncError.unknownSpace("none")) {
            try hub.snapshot(SyncSnapshotRequest(space: "none", replicaID: "x", tables: [], schemaFingerprint: ""))
        }
    }

    /// SQLite 3.40's session extension cannot record a table with a generated column (every
    /// changeset fails with SQLITE_SCHEMA): such a table is refused when the replica is made, by
    /// name, rather than on every write.
    @Test func aTableWithAGeneratedColumnIsRefusedWhereSessionsCannotRecordIt() async throws {
        let folder = try SyncFolder()
        let hub = try Self.makeHub(folder)
        let database = try Database(path: folder.path("g.sqlite"))
        try database.executeWrite { try $0.execute("CREATE TABLE g(id TEXT PRIMARY KEY, a INTEGER, twice INTEGER AS (a * 2))") }
        let recordable: Bool = try database.executeWrite { connection in
            let session = try connection.recordChanges()
            try connection.run("INSERT INTO g(id, a) VALUES ('x', 1)")
            return (try? session.changeset()) != nil
        }
        if recordable {
            _ = try SyncReplica(database: database, replicaID: "g", space: "s", tables: ["g"], transport: InProcessSyncTransport(hub: hub))
        } else {
            #expect(throws: ChangesetError.generatedColumnsUnsupported(table: "g")) {
                try SyncReplica(database: database, replicaID: "g", space: "s", tables: ["g"], transport: InProcessSyncTransport(hub: hub))
            }
            #expect(ChangesetError.generatedColumnsUnsupported(table: "g").description.contains("generated columns"))
        }
    }

    /// Snapshot bodies on the wire: every damaged form throws a `SyncError`, never crashes.
    @Test func damagedSnapshotBodiesThrow() throws {
        let body = [UInt8](try SyncWire.encode(SyncSnapshot(version: 7, database: Data(repeating: 1, count: 300))))
        #expect(try SyncWire.decodeSnapshot(Data(body)) == SyncSnapshot(version: 7, database: Data(repeating: 1, count: 300)))
        try PropertyCheck.run("damaged snapshot bodies throw", cases: 200) { random in
            var bytes = body
            switch random.int(0...2) {
            case 0: bytes = Array(bytes.prefix(random.int(0...bytes.count - 1)))
            case 1: bytes[random.int(0...bytes.count - 1)] ^= UInt8(random.int(1...255))
            default: bytes = (0..<random.int(0...64)).map { _ in UInt8(random.int(0...255)) }
            }
            do {
                let decoded = try SyncWire.decodeSnapshot(Data(bytes))
                // A flipped byte inside the image still decodes; lengths always agree.
                try require(decoded.database.count == 300 && bytes.count == body.count, "a damaged body decoded to \(decoded.database.count) bytes")
            } catch is SyncError {}
        }
    }

    /// A snapshot's value that SQL calls equal to the replica's yet is stored otherwise (0.0 for
    /// 0, -0.0 for 0.0, 'A' for 'a' under NOCASE, a key 'K' for 'k' under NOCASE) replaces it:
    /// the catch-up once compared with `IS NOT` and kept the replica's, for good.
    @Test func aSnapshotReplacesValuesSQLCallsEqualButStoredOtherwise() async throws {
        let schema = "CREATE TABLE t(id TEXT COLLATE NOCASE PRIMARY KEY, v, w TEXT COLLATE NOCASE)"
        let folder = try SyncFolder()
        let hub = try folder.hub(schema)
        let transport = InProcessSyncTransport(hub: hub)
        func replica(_ name: String) throws -> SyncReplica {
            let database = try Database(path: folder.path(name + ".sqlite"))
            try database.executeWrite { try $0.execute(schema) }
            return try SyncReplica(database: database, replicaID: name, space: "s", tables: ["t"], transport: transport)
        }
        let writer = try replica("writer"), reader = try replica("reader")
        try await writer.write { try $0.execute("INSERT INTO t VALUES ('k', 0, 'a'), ('z', 0.0, 'x'), ('n', 0, 'y')") }
        try await syncInTurn(writer, reader)
        #expect(try await reader.database.read { try Self.exactRows($0) } == hub.withSpace("s") { try Self.exactRows($0) })
        try await writer.write { try $0.execute("UPDATE t SET v = 0.0, w = 'A' WHERE id = 'k'") }
        // Through 1, since a session records no change from 0.0 to -0.0 (equal as doubles).
        try await writer.write { try $0.execute("UPDATE t SET v = 1 WHERE id = 'z'") }
        try await writer.write { try $0.execute("UPDATE t SET v = -0.0 WHERE id = 'z'; UPDATE t SET v = -0.0 WHERE id = 'n'") }
        try await writer.write { try $0.execute("DELETE FROM t WHERE id = 'k'") }
        try await writer.write { try $0.execute("INSERT INTO t VALUES ('K', 0.0, 'A')") }
        try await writer.sync()
        try hub.trimLog(ofSpace: "s", keepingLast: 0)
        try await reader.sync()
        let expected = try hub.withSpace("s") { try Self.exactRows($0) }
        #expect(expected == ["text:K|real:0|text:A", "text:n|real:8000000000000000|text:y", "text:z|real:8000000000000000|text:x"])
        #expect(try await reader.database.read { try Self.exactRows($0) } == expected)
        #expect(try await reader.pendingChangeCount == 0)
    }

    /// Storage class, bytes, and a real zero's sign, which `quote` and `hex` do not show.
    static func exactRows(_ connection: Connection) throws -> [String] {
        let rows: [Row] = try connection.query(literal: "SELECT id, v, w FROM t ORDER BY id COLLATE BINARY")
        return rows.map { row in
            (0..<3).map { index -> String in
                switch row.value(at: index) {
                case let value as Double: return "real:" + String(value.bitPattern, radix: 16)
                case let value as Int64: return "integer:\(value)"
                case let value as String: return "text:" + value
                case nil: return "null"
                case let value?: return "other:\(value)"
                }
            }.joined(separator: "|")
        }
    }
}
