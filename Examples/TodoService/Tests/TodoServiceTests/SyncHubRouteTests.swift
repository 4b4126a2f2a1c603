import Foundation
import StrataSQift
import Hummingbird
import HummingbirdTesting
import NIOCore
import Strata
import StrataSync
import StrataSyncHub
import Testing

/// StrataSync's hub over HTTP on a real loopback port, with replicas on `HTTPSyncTransport`
/// (URLSession), and each refusal's status.
@Suite struct SyncHubRouteTests {
    static let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)"

    static func makeApp(_ hub: SyncHub, limits: SyncHubLimits = SyncHubLimits()) -> some ApplicationProtocol {
        let router = buildSyncHubRouter(hub: hub, limits: limits) { token, space, _ in token == "secret-\(space)" }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test func twoReplicasConvergeOverHTTPWithALongPoll() async throws {
        let directory = try TemporaryDirectory()
        let hub = try SyncHub(directory: directory.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        try await Self.makeApp(hub).test(.live) { client in
            let port = try #require(client.port)
            func replica(_ name: String) throws -> SyncReplica {
                let database = try Database(storageLocation: .onDisk(directory.url.appendingPathComponent(name + ".sqlite").path))
                try database.executeWrite { try $0.execute(Self.schema) }
                var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: "secret-team")
                transport.pullWait = .milliseconds(200)
                return try SyncReplica(database: database, replicaID: name, space: "team", tables: ["todo"], transport: transport)
            }
            let phone = try replica("phone")
            let laptop = try replica("laptop")
            try await phone.write { try $0.run("INSERT INTO todo(id, title) VALUES ('a', 'milk \u{201C}2%\u{201D}')") }
            try await laptop.write { try $0.run("INSERT INTO todo(id, title) VALUES ('b', 'bread')") }
            try await phone.sync()
            try await laptop.sync()
            try await phone.sync()
            let expected = ["a|milk \u{201C}2%\u{201D}|0", "b|bread|0"]
            for replica in [phone, laptop] {
                let rows: [String] = try await replica.database.read { try $0.query("SELECT id || '|' || title || '|' || done FROM todo ORDER BY id") }
                #expect(rows == expected)
                #expect(try await replica.pendingChangeCount == 0)
            }
            #expect(try hub.version(ofSpace: "team") == 2)

            // A long poll answers when another replica's commit reaches the hub.
            let started = ContinuousClock.now
            async let pulled: Void = {
                var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: "secret-team")
                transport.pullWait = .seconds(5)
                let fingerprint = try await Self.fingerprint(laptop)
                let response = try await transport.pull(
                    SyncPullRequest(
                        space: "team", replicaID: "watcher", tables: ["todo"],
                        schemaFingerprint: fingerprint, after: 2, limit: 10))
                #expect(response.entries.count == 1)
            }()
            try await Task.sleep(for: .milliseconds(100))
            try await phone.write { try $0.run("UPDATE todo SET done = 1 WHERE id = 'b'") }
            try await phone.push()
            try await pulled
            #expect(ContinuousClock.now - started < .seconds(4))
        }
    }

    /// A replica behind the hub's trimmed log catches up over HTTP from `GET /spaces/:space/snapshot`.
    @Test func aReplicaBehindTheTrimmedLogCatchesUpFromASnapshotOverHTTP() async throws {
        let directory = try TemporaryDirectory()
        let hub = try SyncHub(directory: directory.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        try await Self.makeApp(hub).test(.live) { client in
            let port = try #require(client.port)
            func replica(_ name: String, token: String = "secret-team") throws -> SyncReplica {
                let database = try Database(storageLocation: .onDisk(directory.url.appendingPathComponent(name + ".sqlite").path))
                try database.executeWrite { try $0.execute(Self.schema) }
                return try SyncReplica(
                    database: database, replicaID: name, space: "team", tables: ["todo"],
                    transport: HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token))
            }
            let writer = try replica("writer")
            for index in 0..<5 {
                try await writer.write { try $0.run("INSERT INTO todo(id, title) VALUES (?, ?)", "t\(index)", "it's \(index)\u{301}") }
            }
            try await writer.write { try $0.run("DELETE FROM todo WHERE id = 't0'") }
            try await writer.sync()
            #expect(try hub.trimLog(ofSpace: "team", keepingLast: 2) == 4)
            let late = try replica("late")
            try await late.sync()
            let expected: [String] = try await writer.database.read { try $0.query("SELECT id || '|' || title FROM todo ORDER BY id") }
            #expect(try await late.database.read { try $0.query("SELECT id || '|' || title FROM todo ORDER BY id") as [String] } == expected)
            #expect(try await late.lastPulledVersion == 6)
            // The snapshot route refuses as the others do.
            #expect(
                try await client.execute(
                    uri: "/spaces/team/snapshot?replica=late&tables=todo&fingerprint=x", method: .get,
                    headers: [:]
                ).status == .unauthorized)
            #expect(
                try await client.execute(
                    uri: "/spaces/team/snapshot?replica=late&tables=todo&fingerprint=x", method: .get,
                    headers: [.authorization: "Bearer secret-team"]
                ).status == .conflict)
        }
    }

    /// The replica's fingerprint, as the hub reports it in a refusal.
    static func fingerprint(_ replica: SyncReplica) async throws -> String {
        do {
            _ = try await replica.transport.pull(
                SyncPullRequest(
                    space: replica.space, replicaID: "x", tables: replica.tables,
                    schemaFingerprint: "?", after: 0, limit: 1))
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
        return "?"
    }

    @Test func refusalsAnswerWithTheirStatusAndApplyNothing() async throws {
        let directory = try TemporaryDirectory()
        let hub = try SyncHub(directory: directory.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        var limits = SyncHubLimits()
        limits.maximumBodyBytes = 4096
        limits.maximumEntriesPerPush = 3
        try await Self.makeApp(hub, limits: limits).test(.live) { client in
            let auth: HTTPFields = [.authorization: "Bearer secret-team"]
            func push(_ body: [UInt8], space: String = "team", headers: HTTPFields = [.authorization: "Bearer secret-team"]) async throws -> HTTPResponse.Status
            {
                try await client.execute(uri: "/spaces/\(space)/push", method: .post, headers: headers, body: ByteBuffer(bytes: body)).status
            }
            let valid = [UInt8](try SyncWire.encode(SyncPushRequest(space: "team", replicaID: "r", tables: ["todo"], schemaFingerprint: "nope", entries: [])))
            #expect(try await push(valid, headers: [:]) == .unauthorized)
            #expect(try await push(valid, headers: [.authorization: "Bearer wrong"]) == .unauthorized)
            #expect(try await push(valid) == .conflict) // the schema fingerprint differs
            let unknown = [UInt8](try SyncWire.encode(SyncPushRequest(space: "other", replicaID: "r", tables: ["todo"], schemaFingerprint: "f", entries: [])))
            #expect(
                try await client.execute(
                    uri: "/spaces/other/push", method: .post, headers: [.authorization: "Bearer secret-other"],
                    body: ByteBuffer(bytes: unknown)
                ).status == .notFound)
            #expect(try await push(Array(repeating: 7, count: 8192)) == .contentTooLarge)
            let many = [UInt8](
                try SyncWire.encode(
                    SyncPushRequest(
                        space: "team", replicaID: "r", tables: ["todo"], schemaFingerprint: "f",
                        entries: (1...5).map { SyncOutboxEntry(sequence: Int64($0), changeset: Data()) })))
            #expect(try await push(many) == .contentTooLarge)
            // Damaged bodies: a clear 400, never a crash, nothing applied.
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<50 {
                var bytes = valid
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
                case 1: bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= 0xFF
                default: bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                }
                let status = try await push(bytes)
                #expect([.badRequest, .conflict, .unauthorized].contains(status), "a damaged body answered \(status)")
            }
            #expect(try hub.version(ofSpace: "team") == 0)
            #expect(try await client.execute(uri: "/spaces/team/pull?after=x", method: .get, headers: auth).status == .badRequest)
        }
    }
}
