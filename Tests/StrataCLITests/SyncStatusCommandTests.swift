#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
import Foundation
import StrataSQift
import Strata
import StrataSync
import Testing

/// `strata sync status DB` prints a replica's outbox, cursor and last error.
@Suite struct SyncStatusCommandTests {
    @Test func printsTheReplicasState() async throws {
        let sandbox = try Sandbox()
        let hub = try SyncHub(directory: URL(fileURLWithPath: sandbox.path("hub")))
        try hub.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v)") }
        do {
            let database = try Database(path: sandbox.path("replica.db"))
            try database.executeWrite { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v)") }
            let replica = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
            try await replica.write { try $0.run("INSERT INTO t VALUES ('a', 1)") }
            try await replica.sync()
            try await replica.write { try $0.run("INSERT INTO t VALUES ('b', 2)") }
            // A hub that lost the space: the sync fails and its error is kept.
            let emptied = try SyncHub(directory: URL(fileURLWithPath: sandbox.path("emptied-hub")))
            let lost = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: emptied))
            do { try await lost.sync() } catch {}
        }
        let result = try sandbox.strata("sync", "status", "replica.db")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "pending changes:    1")
        #expect(lines.dropFirst().first == "pulled version:     1")
        #expect(lines.last?.hasPrefix("last error:         ") == true && lines.last?.contains("no space named s") == true)

        let plain = try Connection(storageLocation: .onDisk(sandbox.path("plain.db")))
        try plain.execute("CREATE TABLE x(a)")
        let refused = try sandbox.strata("sync", "status", "plain.db")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not a StrataSync replica"))
    }
}
#endif
