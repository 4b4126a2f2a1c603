import Foundation
import Strata
import StrataSync
import Testing

/// A replica's status as a value and as updates, with the last error kept until a sync succeeds.
@Suite struct SyncStatusTests {
    @Test func statusFollowsWritesSyncsAndFailures() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let (hub, database, replica) = (sync.hub, sync.database, sync.replica)
        let updates = replica.statusUpdates()
        var iterator = updates.makeAsyncIterator()
        #expect(try await iterator.next() == SyncStatus(pendingChangeCount: 0, lastPulledVersion: 0, lastError: nil))
        try await replica.write { try $0.run("INSERT INTO t VALUES ('a', 1)") }
        #expect(try await iterator.next() == SyncStatus(pendingChangeCount: 1, lastPulledVersion: 0, lastError: nil))
        try await replica.sync()
        #expect(try await replica.status == SyncStatus(pendingChangeCount: 0, lastPulledVersion: 1, lastError: nil))

        // A replica of a space the hub does not have: the error is kept.
        let lost = try SyncReplica(database: database, replicaID: "r", space: "gone", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        try await lost.write { try $0.run("INSERT INTO t VALUES ('b', 2)") }
        await #expect(throws: SyncError.unknownSpace("gone")) { try await lost.sync() }
        let failed = try await lost.status
        #expect(failed.pendingChangeCount == 1)
        #expect(failed.lastError?.contains("gone") == true)
        try await replica.sync()
        #expect(try await replica.status.lastError == nil)
    }
}

@Suite struct SyncHubPathTests {
    @Test func aHubOpensOnAPathAsOnAURL() throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: folder.path("hub"))
        try hub.createSpace("team") { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY)") }
        #expect(FileManager.default.fileExists(atPath: folder.path("hub/team.sqlite")))
        let again = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        #expect(try again.version(ofSpace: "team") == 0)
    }
}
