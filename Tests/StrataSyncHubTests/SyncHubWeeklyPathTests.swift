#if Hub
import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import JWTKit
import Strata
import StrataSync
import StrataSyncHub
import StrataTestSupport
import Testing

/// Over real HTTP: a read-only member who types something, and a write just under the push limit
/// against a hub whose body limit is the replica's.
@Suite struct SyncHubWeeklyPathTests {
    static let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v)"

    static func replica(
        _ folder: TemporaryDirectory, _ name: String, port: Int, token: String?,
        settings: SyncReplicaSettings = SyncReplicaSettings()
    ) throws -> SyncReplica {
        let database = try Database(storageLocation: .onDisk(folder.path(name + ".sqlite")))
        try database.executeWrite { try $0.execute(schema) }
        var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token)
        transport.attempts = 1
        return try SyncReplica(database: database, replicaID: name, space: "team", tables: ["t"], transport: transport, settings: settings)
    }

    static func rows(_ replica: SyncReplica) async throws -> [String] {
        try await replica.database.read { try $0.query("SELECT id || '=' || quote(v) FROM t ORDER BY id") }
    }

    @Test func aReadOnlyMembersWriteIsRefusedAloneAndPullsGoOn() async throws {
        let (folder, hub) = try folderHub(schema: Self.schema)
        let secret = "a-long-hub-secret-of-more-than-32-bytes"
        let keys = await hmacKeys(HMACKey(from: Array(secret.utf8)))
        let expires = Date().addingTimeInterval(600)
        let writerToken = try await keys.sign(SyncHubClaims(subject: "ann", spaces: ["team": "rw"], replica: "writer", expiration: expires))
        let readerToken = try await keys.sign(SyncHubClaims(subject: "bob", spaces: ["team": "r"], replica: "reader", expiration: expires))
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
            let writer = try Self.replica(folder, "writer", port: port, token: writerToken)
            let reader = try Self.replica(folder, "reader", port: port, token: readerToken)
            for n in 0..<3 { try await writer.write { try $0.run("INSERT INTO t VALUES (?, ?)", "w\(n)", n) } }
            try await writer.sync()
            try await reader.sync()
            #expect(try await reader.lastPulledVersion == 3)
            try await reader.write { try $0.execute("INSERT INTO t VALUES ('typed', 'by a reader')") }
            for n in 3..<9 { try await writer.write { try $0.run("INSERT INTO t VALUES (?, ?)", "w\(n)", n) } }
            try await writer.sync()
            // The write is refused by name, and the pull still reaches the hub's newest version.
            do {
                try await reader.sync()
                Issue.record("a read-only member's write was pushed")
            } catch SyncError.entryRefused(let refusal) {
                #expect(refusal.reason == .readOnly, "\(refusal)")
            }
            #expect(try await reader.lastPulledVersion == 9)
            let refused = try await reader.pendingChanges
            #expect(refused.count == 1 && refused[0].refusal?.reason == .readOnly)
            #expect(try await Self.rows(reader).contains("typed='by a reader'"), "the write stays visible until discarded")
            // ConflictsAndRefusals' own loop unblocks it.
            for change in try await reader.pendingChanges where change.refusal != nil { try await reader.discard(change) }
            try await reader.sync()
            #expect(try await Self.rows(reader) == (try await Self.rows(writer)))
            #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM t WHERE id = 'typed'") as Int? } == 0)
        }
    }

    @Test func aWriteJustUnderTheReplicasLimitIsPushedOrRefusedAloneNeverA413ForAll() async throws {
        let (folder, hub) = try folderHub(schema: Self.schema)
        let settings = SyncReplicaSettings()
        var limits = SyncHubLimits()
        limits.maximumBodyBytes = settings.maximumPushBytes
        try await serveLive(buildSyncHubRouter(hub: hub, limits: limits)) { port async throws in
            let phone = try Self.replica(folder, "phone", port: port, token: nil, settings: settings)
            try await phone.write { try $0.execute("INSERT INTO t VALUES ('before', 1)") }
            // A changeset 60 bytes under the replica's limit: its body (with the header) is over.
            // The changeset's own overhead is measured on a probe write, then discarded.
            try await phone.write { try $0.run("INSERT INTO t VALUES ('big', ?)", Data(repeating: 9, count: 1_000)) }
            let probe = try #require(try await phone.pendingChanges.last)
            let overhead = probe.changeset.data.count - 1_000
            try await phone.discard(probe)
            let target = settings.maximumPushBytes - 60
            try await phone.write { try $0.run("INSERT INTO t VALUES ('big', ?)", Data(repeating: 9, count: target - overhead)) }
            try await phone.write { try $0.execute("INSERT INTO t VALUES ('after', 2)") }
            let big = try #require(try await phone.pendingChanges.first { $0.changeset.data.count > 1_000 })
            // (The blob's length prefix grows by a byte or two past the probe's.)
            #expect(abs(big.changeset.data.count - target) <= 4 && big.changeset.data.count <= settings.maximumPushBytes)
            do {
                try await phone.sync()
            } catch SyncError.entryRefused(let refusal) {
                #expect(refusal.reason == .tooLarge, "\(refusal)")
            }
            let atHub: [String] = try hub.withSpace("team") { try $0.query("SELECT id FROM t ORDER BY id") }
            #expect(atHub.contains("before") && atHub.contains("after"), "\(atHub)")
            // Later writes keep syncing around it.
            try await phone.write { try $0.execute("INSERT INTO t VALUES ('later', 3)") }
            _ = try? await phone.sync()
            #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM t WHERE id = 'later'") as Int? } == 1)
            #expect(try await phone.lastPulledVersion == (try hub.version(ofSpace: "team")))
        }
    }
}
#endif
