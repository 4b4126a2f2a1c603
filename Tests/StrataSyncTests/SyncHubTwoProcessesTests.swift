import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Two hub processes on one space (here two `SyncHub`s on one folder, each with its own
/// connection) answering the same push at once: each entry is applied once, and both answers
/// acknowledge every entry, none refused as damaged for losing the race to record it.
@Suite struct SyncHubTwoProcessesTests {
    @Test func theSamePushAnsweredByTwoHubsAtOnceIsAppliedOnceAndAcknowledgedByBoth() async throws {
        let folder = try SyncFolder()
        let first = try SyncHub(directory: folder.url)
        try first.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v)") }
        let second = try SyncHub(directory: folder.url)
        // The entries: one replica's writes, captured.
        let database = try Database(path: folder.path("r.sqlite"))
        try database.executeWrite { try $0.execute("CREATE TABLE t(id TEXT NOT NULL PRIMARY KEY, v)") }
        let replica = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: first))
        for round in 0..<4 {
            for index in 0..<25 {
                try await replica.write { try $0.run("INSERT INTO t VALUES (?, ?)", "\(round)-\(index)", index) }
            }
            let entries = try await replica.pendingChanges.map { SyncOutboxEntry(sequence: $0.sequence, changeset: $0.changeset.data) }
            let fingerprint = try first.expectedFingerprint()
            let request = SyncPushRequest(space: "s", replicaID: replica.hubReplicaID, tables: ["t"], schemaFingerprint: fingerprint, entries: entries)
            async let a = Task.detached { try first.push(request) }.value
            async let b = Task.detached { try second.push(request) }.value
            let (answerA, answerB) = try await (a, b)
            for answer in [answerA, answerB] {
                #expect(answer.refused == nil, "round \(round): \(answer.refused ?? [])")
                #expect(answer.acknowledged == entries.map(\.sequence))
            }
            #expect(answerA.versions == answerB.versions, "round \(round): both answers give each entry the version it got")
            try await replica.sync()
        }
        let (rows, logged) = try first.withSpace("s") {
            (try $0.query("SELECT count(*) FROM t") as Int?, try $0.query("SELECT count(*) FROM _strata_sync_log") as Int?)
        }
        #expect(rows == 100)
        #expect(logged == 100, "each entry logged once")
    }
}
