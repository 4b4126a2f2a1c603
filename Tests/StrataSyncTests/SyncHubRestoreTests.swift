import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// A hub restored from an older copy of its file (what a Litestream restore gives after the hub
/// machine is lost): replicas notice that the hub no longer has the history they pulled, or the
/// pushes it acknowledged, send those pushes again, and start over from the restored hub's
/// snapshot, so nothing any replica wrote is lost and all end equal.
@Suite struct SyncHubRestoreTests {
    static let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"

    static func replica(_ name: String, _ folder: SyncFolder, _ transport: any SyncTransport) throws -> SyncReplica {
        let database = try Database(path: folder.path(name + ".sqlite"))
        try database.executeWrite { try $0.execute(Self.schema) }
        return try SyncReplica(database: database, replicaID: name, space: "s", tables: ["todo"], transport: transport)
    }

    static func rows(_ replica: SyncReplica) async throws -> [String] {
        try await replica.database.read { try $0.query("SELECT id || '=' || title FROM todo ORDER BY id") }
    }

    /// The restored hub has logged other changes and trimmed its log past the replica's cursor:
    /// no chain is left to compare, but the hub's record of applied pushes lacks the replica's
    /// last acknowledged one, so it is still sent again.
    @Test func aRestoredHubWithATrimmedLogStillGetsBackWhatItLost() async throws {
        let folder = try SyncFolder()
        let original = try folder.hub(Self.schema)
        let transport = RedirectableTransport(original)
        let a = try Self.replica("a", folder, transport)
        try await a.write { try $0.run("INSERT INTO todo VALUES ('a1', 'kept')") }
        try await a.sync()
        let restoredFolder = URL(fileURLWithPath: folder.path("restored"))
        try FileManager.default.createDirectory(at: restoredFolder, withIntermediateDirectories: true)
        try original.withSpace("s") { try $0.run("VACUUM INTO ?", restoredFolder.appendingPathComponent("s.sqlite").path) }
        try await a.write { try $0.run("INSERT INTO todo VALUES ('a2', 'lost at the hub')") }
        try await a.write { try $0.run("INSERT INTO todo VALUES ('a3', 'lost too')") }
        try await a.sync()
        let restored = try SyncHub(directory: restoredFolder)
        transport.hub.withLock { $0 = restored }
        let c = try Self.replica("c", folder, transport)
        for index in 1...5 { try await c.write { try $0.run("INSERT INTO todo VALUES (?, 'from c')", "c\(index)") } }
        try await c.sync()
        try restored.trimLog(ofSpace: "s", keepingLast: 0)
        try await syncInTurn(a, c)
        let hubRows: [String] = try restored.withSpace("s") { try $0.query("SELECT id FROM todo ORDER BY id") }
        #expect(hubRows == ["a1", "a2", "a3", "c1", "c2", "c3", "c4", "c5"])
        #expect(try await a.database.read { try $0.query("SELECT id FROM todo ORDER BY id") as [String] } == hubRows)
        #expect(try await c.database.read { try $0.query("SELECT id FROM todo ORDER BY id") as [String] } == hubRows)
    }

    @Test(arguments: [false, true])
    func replicasResendWhatARestoredHubLostAndConverge(versionsReused: Bool) async throws {
        let folder = try SyncFolder()
        let original = try folder.hub(Self.schema)
        let transport = RedirectableTransport(original)
        let a = try Self.replica("a", folder, transport)
        let b = try Self.replica("b", folder, transport)
        try await a.write { try $0.run("INSERT INTO todo VALUES ('a1', 'from a')") }
        try await a.sync()
        try await b.write { try $0.run("INSERT INTO todo VALUES ('b1', 'from b')") }
        try await syncInTurn(b, a)

        // The backup the hub will be restored from: version 2.
        let restoredFolder = URL(fileURLWithPath: folder.path("restored"))
        try FileManager.default.createDirectory(at: restoredFolder, withIntermediateDirectories: true)
        let backup = restoredFolder.appendingPathComponent("s.sqlite").path
        try original.withSpace("s") { try $0.run("VACUUM INTO ?", backup) }

        try await a.write { try $0.run("INSERT INTO todo VALUES ('a2', 'lost at the hub')") }
        try await a.write { try $0.run("UPDATE todo SET title = 'b1 edited by a' WHERE id = 'b1'") }
        try await a.sync()
        try await b.write { try $0.run("INSERT INTO todo VALUES ('b2', 'lost too')") }
        try await syncInTurn(b, a)
        #expect(try original.version(ofSpace: "s") == 5)
        let before = try await Self.rows(a)
        #expect(try await Self.rows(b) == before)

        // The hub machine is lost; the restored copy is at version 2.
        let restored = try SyncHub(directory: restoredFolder)
        transport.hub.withLock { $0 = restored }
        var expected = before
        if versionsReused {
            // A third replica writes first, so the restored hub's versions 3 to 5 are other changes.
            let c = try Self.replica("c", folder, transport)
            for index in 1...3 { try await c.write { try $0.run("INSERT INTO todo VALUES (?, 'from c')", "c\(index)") } }
            try await c.sync()
            #expect(try restored.version(ofSpace: "s") == 5)
            expected = (expected + ["c1=from c", "c2=from c", "c3=from c"]).sorted()
        }
        for _ in 0..<3 {
            try await syncInTurn(a, b)
        }
        let hubRows: [String] = try restored.withSpace("s") { try $0.query("SELECT id || '=' || title FROM todo ORDER BY id") }
        #expect(hubRows == expected)
        #expect(try await Self.rows(a) == hubRows)
        #expect(try await Self.rows(b) == hubRows)
        #expect(try await a.pendingChangeCount == 0)
        #expect(try await b.pendingChangeCount == 0)
        #expect(try await a.lastPulledVersion == restored.version(ofSpace: "s"))
        #expect(try restored.withSpace("s") { try $0.query("PRAGMA integrity_check") as String? } == "ok")
    }
}
