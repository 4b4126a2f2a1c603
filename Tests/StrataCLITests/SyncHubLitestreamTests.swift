import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// The sync hub's file replicated by the real `litestream` to a folder; the hub machine is lost
/// after acknowledging pushes Litestream never shipped, and a new hub is restored from the replica
/// (`litestream restore`). The replicas notice that the restored hub lacks what they pulled and
/// what it acknowledged, push it again, and end equal to it with every row any of them wrote.
@Suite(.serialized, .enabled(if: (try? Litestream.binary()) != nil))
struct SyncHubLitestreamTests {
    static let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"

    @Test func aHubRestoredByLitestreamGetsBackWhatItLostFromTheReplicas() async throws {
        let sandbox = try Sandbox()
        let hubFolder = sandbox.work.appendingPathComponent("hub")
        let hub = try SyncHub(directory: hubFolder)
        try hub.createSpace("s") { try $0.execute(Self.schema) }
        let spaceFile = hubFolder.appendingPathComponent("s.sqlite").path
        let replicaFolder = sandbox.work.appendingPathComponent("litestream-replica").path
        let config = sandbox.work.appendingPathComponent("litestream.yml").path
        try Litestream.writeConfig(config, database: spaceFile, replicas: Litestream.fileReplica(replicaFolder))
        let replicator = try Litestream.replicate(config: config)
        defer { Litestream.stop(replicator) }
        try await Task.sleep(for: .seconds(1))

        let transport = RedirectableTransport(hub)
        func replica(_ name: String) throws -> SyncReplica {
            let database = try Database(storageLocation: .onDisk(sandbox.work.appendingPathComponent(name + ".sqlite").path))
            try database.executeWrite { try $0.execute(Self.schema) }
            return try SyncReplica(database: database, replicaID: name, space: "s", tables: ["todo"], transport: transport)
        }
        let phone = try replica("phone")
        let laptop = try replica("laptop")
        /// For each of `indexes`, a todo titled `title` from each replica, and both sync: the ids.
        func writeOnBoth(_ indexes: ClosedRange<Int>, title: String) async throws -> [String] {
            var ids: [String] = []
            for index in indexes {
                try await phone.write { try $0.run("INSERT INTO todo VALUES (?, ?)", "p\(index)", title) }
                try await laptop.write { try $0.run("INSERT INTO todo VALUES (?, ?)", "l\(index)", title) }
                ids += ["p\(index)", "l\(index)"]
                try await phone.sync()
                try await laptop.sync()
            }
            return ids
        }
        var written = try await writeOnBoth(1...5, title: "shipped")
        // Litestream ships those; then it dies with the machine, and the hub goes on
        // acknowledging pushes nobody will ever restore.
        let shipped = Litestream.wait(seconds: 30) { Litestream.hasSnapshot(replicaFolder) }
        try #require(shipped, "litestream shipped nothing to \(replicaFolder)")
        try await Task.sleep(for: .seconds(1))
        kill(replicator.processIdentifier, SIGKILL)
        replicator.waitUntilExit()
        written += try await writeOnBoth(6...8, title: "acknowledged, not shipped")
        try await phone.write { try $0.run("UPDATE todo SET title = 'edited after the loss' WHERE id = 'l1'") }
        try await phone.sync()
        let lostFrom = try hub.version(ofSpace: "s")

        // A new machine: the space restored from Litestream's replica.
        let restoredFolder = sandbox.work.appendingPathComponent("restored-hub")
        try FileManager.default.createDirectory(at: restoredFolder, withIntermediateDirectories: true)
        let restore = try Litestream.run(
            try Litestream.binary(),
            [
                "restore", "-config", config, "-o",
                restoredFolder.appendingPathComponent("s.sqlite").path, spaceFile
            ])
        try #require(restore.status == 0, "litestream restore failed: \(restore.output)")
        let restored = try SyncHub(directory: restoredFolder)
        let restoredVersion = try restored.version(ofSpace: "s")
        #expect(restoredVersion < lostFrom, "the restore lost nothing (\(restoredVersion) of \(lostFrom)): the test proves nothing")
        transport.hub.withLock { $0 = restored }

        for _ in 0..<3 {
            try await phone.sync()
            try await laptop.sync()
        }
        let hubRows: [String] = try restored.withSpace("s") { try $0.query("SELECT id || '=' || title FROM todo ORDER BY id") }
        #expect(Set(hubRows.map { String($0.prefix { $0 != "=" }) }) == Set(written))
        #expect(hubRows.contains("l1=edited after the loss"))
        for device in [phone, laptop] {
            #expect(try await device.database.read { try $0.query("SELECT id || '=' || title FROM todo ORDER BY id") as [String] } == hubRows)
            #expect(try await device.pendingChangeCount == 0)
        }
        #expect(try restored.withSpace("s") { try $0.query("PRAGMA integrity_check") as String? } == "ok")
        print("sync hub restored by litestream: version \(restoredVersion) of \(lostFrom); \(hubRows.count) rows after the replicas sent the rest again")
    }
}
