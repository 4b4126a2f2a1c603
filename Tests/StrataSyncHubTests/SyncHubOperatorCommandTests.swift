#if Hub
import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Issue 66, item 5: `strata-sync-hub migrate` and `spaces` on a folder, run as an operator runs
/// them (the real executable).
@Suite struct SyncHubOperatorCommandTests {
    @Test func migrateChecksPlansAndMovesTheSpaceOneStep() throws {
        let folder = try TemporaryDirectory()
        let hubFolder = folder.url.appendingPathComponent("hub")
        do {
            let hub = try SyncHub(directory: hubFolder)
            try hub.createSpace("team") { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
        }
        try Data("ALTER TABLE todo ADD COLUMN note TEXT DEFAULT ''; CREATE TABLE tag(id TEXT PRIMARY KEY, name TEXT);".utf8)
            .write(to: folder.url.appendingPathComponent("add.sql"))
        let dry = try SyncHubCommandTests.run(
            ["migrate", hubFolder.path, "--space", "team", "--step", folder.path("add.sql"), "--dry-run"],
            in: folder.url)
        #expect(dry.status == 0, "\(dry.output)")
        for expected in ["from schema version 1 to 2", "dry run", "add column todo.note TEXT DEFAULT ''", "add table tag (id TEXT PRIMARY KEY, name TEXT)"] {
            #expect(dry.output.contains(expected), "\(expected) missing from:\n\(dry.output)")
        }
        #expect(try SyncHub(directory: hubFolder).schemaVersion(ofSpace: "team") == 1, "a dry run changes nothing")
        #expect(try SyncHub(directory: hubFolder).withSpace("team") { try $0.schemaReader.table(named: "tag") } == nil)

        let done = try SyncHubCommandTests.run(["migrate", hubFolder.path, "--space", "team", "--step", folder.path("add.sql")], in: folder.url)
        #expect(done.status == 0 && done.output.contains("moved from schema version 1 to 2"), "\(done.output)")
        #expect(try SyncHub(directory: hubFolder).schemaVersion(ofSpace: "team") == 2)

        // Not additive: refused by name, the space as it was.
        try Data("ALTER TABLE todo DROP COLUMN note;".utf8).write(to: folder.url.appendingPathComponent("drop.sql"))
        let refused = try SyncHubCommandTests.run(["migrate", hubFolder.path, "--space", "team", "--step", folder.path("drop.sql")], in: folder.url)
        #expect(refused.status != 0 && refused.output.contains("drops the column todo.note"), "\(refused.output)")
        #expect(try SyncHub(directory: hubFolder).schemaVersion(ofSpace: "team") == 2)
        let unknown = try SyncHubCommandTests.run(["migrate", hubFolder.path, "--space", "nope", "--step", folder.path("add.sql")], in: folder.url)
        #expect(unknown.status != 0 && unknown.output.contains("nope"), "\(unknown.output)")
    }

    @Test func spacesListsEachSpaceWithItsVersionsLogReplicasAndRules() async throws {
        let folder = try TemporaryDirectory()
        let hubFolder = folder.url.appendingPathComponent("hub")
        let hub = try SyncHub(directory: hubFolder)
        try hub.createSpace("team") { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
        try hub.createSpace("news") { try $0.execute("CREATE TABLE item(id TEXT PRIMARY KEY)") }
        try hub.migrateSpace("news", to: 2) { try $0.execute("ALTER TABLE item ADD COLUMN body TEXT") }
        for name in ["phone", "laptop"] {
            let database = try Database(storageLocation: .onDisk(folder.path(name + ".sqlite")))
            try database.executeWrite { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
            let replica = try SyncReplica(
                database: database, replicaID: name, space: "team", tables: ["todo"],
                transport: InProcessSyncTransport(hub: hub))
            for n in 0..<3 { try await replica.write { try $0.run("INSERT INTO todo VALUES (?, 'x')", "\(name)-\(n)") } }
            try await replica.sync()
        }
        _ = try hub.trimLog(ofSpace: "team", keepingLast: 4)
        try hub.setRules(SyncRules(buckets: [SyncBucket(name: "all", data: ["todo": "true"])]), forSpace: "team")
        let rulesVersion = try hub.rulesVersion(ofSpace: "team")
        #expect(rulesVersion.hasRules && rulesVersion.version > 0)
        let (status, output) = try SyncHubCommandTests.run(["spaces", hubFolder.path], in: folder.url)
        #expect(status == 0, "\(output)")
        let rows = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.first == ["SPACE", "SCHEMA", "VERSION", "LOG", "REPLICAS", "RULES"], "\(output)")
        #expect(rows.contains(["news", "2", "0", "0", "0", "none"]), "\(output)")
        #expect(rows.contains(["team", "1", "6", "4", "2", String(rulesVersion.version)]), "\(output)")
    }
}
#endif
