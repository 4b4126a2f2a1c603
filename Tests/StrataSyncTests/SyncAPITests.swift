import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// A temporary folder, removed when released.
final class SyncFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-" + UUID().uuidString)
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A hub in the folder "hub" here, with the space `s` made by `schema`.
    func hub(_ schema: String) throws -> SyncHub {
        let hub = try SyncHub(directory: URL(fileURLWithPath: path("hub")))
        try hub.createSpace("s") { try $0.execute(schema) }
        return hub
    }
}

/// API.md section 7's Sync block as written, then the refusals.
@Suite struct SyncAPITests {
    @Test func theDocumentedFlowSyncsTwoReplicas() async throws {
        let folder = try SyncFolder()
        let hubFolder = URL(fileURLWithPath: folder.path("hub"))
        let hub = try SyncHub(directory: hubFolder)
        try hub.createSpace("team") { db in try db.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)") }
        hub.setPolicy(.lastWriterWins, forTable: "todo")

        func makeReplica(_ name: String) throws -> SyncReplica {
            let database = try Database(path: folder.path(name + ".sqlite"))
            try database.executeWrite { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)") }
            return try SyncReplica(
                database: database, replicaID: name, space: "team",
                tables: ["todo"], transport: InProcessSyncTransport(hub: hub))
        }
        let phone = try makeReplica("phone-1")
        let laptop = try makeReplica("laptop-1")
        let id = UUID().uuidString
        try await phone.write { db in try db.run("INSERT INTO todo(id, title) VALUES (?, ?)", id, "milk") }
        let pending: Int = try await phone.pendingChangeCount
        #expect(pending == 1)
        try await phone.sync()
        #expect(try await phone.pendingChangeCount == 0)
        let hubVersion: Int64 = try await phone.lastPulledVersion
        #expect(hubVersion == 1)
        try await laptop.sync()
        #expect(try await laptop.database.read { try $0.query("SELECT title FROM todo WHERE id = ?", id) as String? } == "milk")
        try await laptop.write { db in try db.run("UPDATE todo SET done = 1 WHERE id = ?", id) }
        try await syncInTurn(laptop, phone)
        #expect(try await phone.database.read { try $0.query("SELECT done FROM todo WHERE id = ?", id) as Int? } == 1)
        #expect(try hub.version(ofSpace: "team") == 2)
    }

    @Test func aWriteThatThrowsLeavesNoRowAndNoOutboxEntry() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let (database, replica) = (sync.database, sync.replica)
        struct Failed: Error {}
        do {
            try await replica.write { db in
                try db.run("INSERT INTO t VALUES ('a', 1)"); throw Failed()
            }
            Issue.record("the write did not throw")
        } catch is Failed {}
        #expect(try await replica.pendingChangeCount == 0)
        #expect(try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? } == 0)
    }

    /// A write whose body ends its own transaction is refused at once: nothing after it runs as
    /// part of the write and no outbox entry claims what the COMMIT took out of reach.
    @Test func aWriteThatCommitsItselfIsRefused() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let (hub, database, replica) = (sync.hub, sync.database, sync.replica)
        await #expect(throws: SyncError.self) {
            try await replica.write { try $0.execute("INSERT INTO t VALUES ('a', 1); COMMIT") }
        }
        #expect(try await replica.pendingChangeCount == 0)
        // The writer, where the COMMIT ran, holds no transaction (a read is always one here).
        #expect(try await database.writeWithoutTransaction { $0.isInTransaction } == false)
        #expect(throws: SyncError.self) {
            try SyncReplica(database: database, replicaID: "r", space: "s", tables: [], transport: InProcessSyncTransport(hub: hub))
        }
    }

    @Test func tablesWithoutAGlobalKeyAreRefused() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let database = try Database(path: folder.path("r.sqlite"))
        try database.executeWrite {
            try $0.execute("CREATE TABLE counted(id INTEGER PRIMARY KEY, v); CREATE TABLE keyless(v); CREATE TABLE ok(id INTEGER PRIMARY KEY DESC, v)")
        }
        for table in ["counted", "keyless"] {
            #expect(throws: SyncError.tableNeedsGlobalKey(table: table)) {
                try SyncReplica(database: database, replicaID: "r", space: "s", tables: [table], transport: InProcessSyncTransport(hub: hub))
            }
        }
        // INTEGER PRIMARY KEY DESC is no rowid alias: the app assigns it.
        _ = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["ok"], transport: InProcessSyncTransport(hub: hub))
        #expect(SyncError.tableNeedsGlobalKey(table: "counted").description.contains("INTEGER PRIMARY KEY"))
    }

    @Test func schemaMismatchAndUnknownSpaceAreRefusedAndTheOutboxKept() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(
            in: folder, hubTable: "CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT)", replicaTable: "CREATE TABLE t(id TEXT PRIMARY KEY, v INTEGER, extra)")
        let (hub, database, replica) = (sync.hub, sync.database, sync.replica)
        try await replica.write { try $0.run("INSERT INTO t(id, v) VALUES ('a', 1)") }
        do {
            try await replica.sync()
            Issue.record("a push across schemas was accepted")
        } catch let error as SyncError {
            guard case .schemaMismatch(let local, let remote) = error else { Issue.record("\(error)"); return }
            #expect(local != remote)
        }
        #expect(try await replica.pendingChangeCount == 1)
        #expect(try hub.version(ofSpace: "s") == 0)

        // Another space while a write for this one is pending: refused at once, by name.
        #expect(throws: SyncError.spaceChanged(from: "s", to: "nowhere", pendingChanges: 1)) {
            try SyncReplica(database: database, replicaID: "r", space: "nowhere", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        }
        #expect(try await replica.pendingChangeCount == 1)
        let fresh = try Database(path: folder.path("fresh.sqlite"))
        try await fresh.write { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT)") }
        let elsewhere = try SyncReplica(database: fresh, replicaID: "r", space: "nowhere", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        try await elsewhere.write { try $0.run("INSERT INTO t(id, v) VALUES ('a', '1')") }
        do {
            try await elsewhere.sync()
            Issue.record("a sync to an unknown space went through")
        } catch let error as SyncError {
            #expect(error == .unknownSpace("nowhere"))
        }
        #expect(throws: SyncError.self) { try hub.createSpace("../escape") { _ in } }
        #expect(throws: SyncError.self) { try hub.createSpace("s") { _ in } }
    }

    @Test func damagedChangesetBytesAreRefusedAndTheHubIsUnchanged() throws {
        let folder = try SyncFolder()
        let hub = try folder.hub("CREATE TABLE t(id TEXT PRIMARY KEY, v)")
        let fingerprintSource = try Connection()
        try fingerprintSource.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v)")
        // A real changeset, to damage.
        let session = try fingerprintSource.recordChanges()
        try fingerprintSource.execute("INSERT INTO t VALUES ('a', 1), ('b', x'00ff')")
        let good = try session.changeset().data
        session.close()
        let fingerprint = try validFingerprint(hub: hub)
        try PropertyCheck.run("damaged changesets", cases: 60) { random in
            var bytes = [UInt8](good)
            switch random.int(0...2) {
            case 0: bytes = Array(bytes.prefix(random.int(0...max(0, bytes.count - 1))))
            case 1: for _ in 0..<random.int(1...4) { bytes[random.int(0...bytes.count - 1)] = UInt8(random.int(0...255)) }
            default: bytes += Array(Gen.bytes(&random).prefix(8))
            }
            let before = try hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? }
            let loggedBefore = try hub.version(ofSpace: "s")
            do {
                _ = try hub.push(
                    SyncPushRequest(
                        space: "s", replicaID: "fuzz", tables: ["t"], schemaFingerprint: fingerprint,
                        entries: [SyncOutboxEntry(sequence: Int64(random.int(1...1_000_000)), changeset: Data(bytes))]))
            } catch is SyncError {}
            let integrity = try hub.withSpace("s") { try $0.query("PRAGMA integrity_check") as String? }
            try require(integrity == "ok", "integrity \(integrity ?? "nil")")
            let after = try hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? }
            // Damaged bytes can still decode as a valid DELETE (a flipped operation byte), which the
            // hub applies and logs like any change: rows may go only with a log entry saying so.
            try require(after! >= before! || (try hub.version(ofSpace: "s")) > loggedBefore, "rows lost without a log entry")
        }
    }

    /// The fingerprint a replica of `t(id TEXT PRIMARY KEY, v)` sends, learnt from a refusal.
    func validFingerprint(hub: SyncHub) throws -> String {
        do {
            _ = try hub.pull(SyncPullRequest(space: "s", replicaID: "x", tables: ["t"], schemaFingerprint: "?", after: 0, limit: 1))
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
        throw SyncError.refused("no fingerprint")
    }
}

/// The network form round-trips every request and answer, and refuses damaged bytes with an
/// error, never a crash.
@Suite struct SyncWirePropertyTests {
    @Test func bodiesRoundTripAndDamagedOnesAreRefused() throws {
        try PropertyCheck.run("sync wire", cases: 200) { random in
            let entries = (0..<random.int(0...4)).map { index in
                SyncOutboxEntry(sequence: Int64(index) + Int64(random.int(0...9)), changeset: Gen.bytes(&random))
            }
            let request = SyncPushRequest(
                space: Gen.text(&random, maxPieces: 2), replicaID: Gen.text(&random, maxPieces: 2),
                tables: [Gen.identifier(&random)], schemaFingerprint: "f", entries: entries)
            let data = try SyncWire.encode(request)
            let back = try SyncWire.decodePushRequest(data)
            try require(back.entries == request.entries && back.space == request.space && back.replicaID == request.replicaID, "push round trip")
            let pull = SyncPullResponse(
                entries: entries.enumerated().map {
                    SyncLogEntry(version: Int64($0.offset + 1), replicaID: "r", sequence: $0.element.sequence, changeset: $0.element.changeset)
                }, hubVersion: Gen.int64(&random), view: random.int(0...1) == 0 ? nil : Gen.text(&random, maxPieces: 2))
            let pulled = try SyncWire.decodePullResponse(try SyncWire.encode(pull))
            try require(pulled.entries == pull.entries && pulled.hubVersion == pull.hubVersion, "pull round trip")
            try require(pulled.view == pull.view, "the view token round trip: \(String(reflecting: pull.view))")
            let snapshot = SyncSnapshot(version: Int64(random.int(0...99)), database: Data(Gen.bytes(&random)), view: pull.view)
            try require(try SyncWire.decodeSnapshot(try SyncWire.encode(snapshot)) == snapshot, "snapshot round trip")
            // Damage: truncate, flip bytes, or forge lengths.
            var bytes = [UInt8](data)
            switch random.int(0...2) {
            case 0: bytes = Array(bytes.prefix(random.int(0...bytes.count)))
            case 1: for _ in 0..<random.int(1...3) where !bytes.isEmpty { bytes[random.int(0...bytes.count - 1)] = UInt8(random.int(0...255)) }
            default:
                let forged =
                    #"{"space":"s","replicaID":"r","tables":[],"schemaFingerprint":"f","entries":[{"sequence":1,"count":9223372036854775807},{"sequence":2,"count":2}]}"#
                let json = Array(forged.utf8)
                bytes = [0, 0, UInt8(json.count >> 8), UInt8(json.count & 0xFF)] + json + [1]
            }
            do { _ = try SyncWire.decodePushRequest(Data(bytes)) } catch is SyncError {}
        }
    }
}

/// Settings a user may choose to mean "wait for ever" are clamped, never trapped on.
@Suite struct HTTPTransportSettingsTests {
    @Test func aPullWaitBeyondAnyClockIsClampedNotATrap() async throws {
        // Nothing listens on port 1: the pull fails as a network failure, after building its URL
        // from the wait (which overflowed before the clamp).
        var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:1")!)
        transport.attempts = 1
        for wait in [Duration.seconds(Int64.max), .seconds(-5), .milliseconds(Int64.max)] {
            transport.pullWait = wait
            await #expect(throws: (any Error).self) {
                _ = try await transport.pull(
                    SyncPullRequest(space: "s", replicaID: "r", tables: ["t"], schemaFingerprint: "f", after: 0, limit: 1))
            }
        }
    }
}
