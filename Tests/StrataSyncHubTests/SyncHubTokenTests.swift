#if Hub
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import JWTKit
import Strata
import StrataSync
import StrataSyncHub
import Testing

/// A folder removed when released.
final class HubFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-hub-" + UUID().uuidString)
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// JWT identities and permissions on the hub's routes: each refusal with its status and reason,
/// over a real loopback port with replicas on `HTTPSyncTransport`.
@Suite struct SyncHubTokenTests {
    static let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v)"

    static func token(_ keys: JWTKeyCollection, spaces: [String: String] = ["team": "rw"], replica: String = "phone",
                      expires: Date = Date().addingTimeInterval(600)) async throws -> String {
        try await keys.sign(SyncHubClaims(subject: "ada", spaces: spaces, replica: replica, expiration: expires))
    }

    static func replica(_ folder: HubFolder, _ name: String, port: Int, token: String) throws -> SyncReplica {
        let database = try Database(storageLocation: .onDisk(folder.path(name + "-" + UUID().uuidString + ".sqlite")))
        try database.executeWrite { try $0.execute(schema) }
        var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token)
        transport.attempts = 1
        return try SyncReplica(database: database, replicaID: name, space: "team", tables: ["t"], transport: transport)
    }

    /// What a sync with `token` as replica `name` ends in: nil when it worked, else the reason.
    static func outcome(_ folder: HubFolder, port: Int, name: String = "phone", token: String, write: Bool = true) async throws -> String? {
        let replica = try replica(folder, name, port: port, token: token)
        if write { try await replica.write { try $0.run("INSERT INTO t VALUES (?, 1)", UUID().uuidString) } }
        do {
            try await replica.sync()
            return nil
        } catch let error as SyncError {
            return String(describing: error)
        }
    }

    @Test func hs256TokensAllowWhatTheirClaimsSayAndNothingElse() async throws {
        let folder = try HubFolder()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        try Data("a-long-hub-secret-of-more-than-32-bytes\n".utf8).write(to: folder.url.appendingPathComponent("key"))
        let authentication = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key"))
        let keys = JWTKeyCollection()
        await keys.add(hmac: "a-long-hub-secret-of-more-than-32-bytes", digestAlgorithm: .sha256)
        let wrongKeys = JWTKeyCollection()
        await wrongKeys.add(hmac: "another-secret-that-is-32-bytes-or-more", digestAlgorithm: .sha256)
        let app = Application(router: buildSyncHubRouter(hub: hub, authentication: authentication),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            #expect(try await Self.outcome(folder, port: port, token: try await Self.token(keys)) == nil, "a valid token syncs")
            let expired = try await Self.outcome(folder, port: port, token: try await Self.token(keys, expires: Date().addingTimeInterval(-60)))
            #expect(expired?.contains("expired") == true, "\(expired ?? "nil")")
            let wrongKey = try await Self.outcome(folder, port: port, token: try await Self.token(wrongKeys))
            #expect(wrongKey?.contains("not valid") == true, "\(wrongKey ?? "nil")")
            let wrongSpace = try await Self.outcome(folder, port: port, token: try await Self.token(keys, spaces: ["other": "rw"]))
            #expect(wrongSpace?.contains("no access to the space team") == true, "\(wrongSpace ?? "nil")")
            let wrongReplica = try await Self.outcome(folder, port: port, token: try await Self.token(keys, replica: "laptop"))
            #expect(wrongReplica?.contains("for replica laptop") == true, "\(wrongReplica ?? "nil")")
            let readOnly = try await Self.token(keys, spaces: ["team": "r"])
            let readOnlyPush = try await Self.outcome(folder, port: port, token: readOnly)
            #expect(readOnlyPush?.contains("may read team, not write") == true, "\(readOnlyPush ?? "nil")")
            #expect(try await Self.outcome(folder, port: port, token: readOnly, write: false) == nil, "a reader pulls")
            let none = try await Self.outcome(folder, port: port, token: "not-a-jwt")
            #expect(none?.contains("not valid") == true)
        }
        #expect(try hub.withSpace("team") { try $0.query("SELECT count(*) FROM t") as Int? } == 1, "only the valid token's write")
    }

    @Test func theStatusesAre401And403() async throws {
        let folder = try HubFolder()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        let keys = JWTKeyCollection()
        await keys.add(hmac: "secret-for-statuses-of-32-bytes-at-least", digestAlgorithm: .sha256)
        let app = Application(router: buildSyncHubRouter(hub: hub, authentication: .jwt(keys)),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            func status(_ token: String?) async throws -> Int {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/spaces/team/pull?replica=phone&tables=t&fingerprint=x&after=0")!)
                if let token { request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
                let (_, response) = try await URLSession.shared.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode ?? 0
            }
            #expect(try await status(nil) == 401)
            #expect(try await status(try await Self.token(keys, expires: Date().addingTimeInterval(-1))) == 401)
            #expect(try await status(try await Self.token(keys, spaces: [:])) == 403)
            #expect(try await status(try await Self.token(keys, replica: "laptop")) == 403)
            #expect(try await status(try await Self.token(keys)) == 409, "past the token: refused for its fingerprint")
        }
    }

    @Test func es256PublicKeysInPEMVerifyTokens() async throws {
        let folder = try HubFolder()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        let privateKey = ES256PrivateKey()
        try Data(privateKey.publicKey.pemRepresentation.utf8).write(to: folder.url.appendingPathComponent("key.pem"))
        let signer = JWTKeyCollection()
        await signer.add(ecdsa: privateKey)
        let authentication = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key.pem"))
        let app = Application(router: buildSyncHubRouter(hub: hub, authentication: authentication),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            #expect(try await Self.outcome(folder, port: port, token: try await Self.token(signer)) == nil)
            let other = JWTKeyCollection()
            await other.add(ecdsa: ES256PrivateKey())
            #expect(try await Self.outcome(folder, port: port, token: try await Self.token(other))?.contains("not valid") == true)
        }
    }

    @Test func aShortSecretIsRefusedByName() async throws {
        let folder = try HubFolder()
        try Data("short\n".utf8).write(to: folder.url.appendingPathComponent("key"))
        await #expect(throws: SyncError.self) { _ = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key")) }
    }

    @Test func aSharedTokenIsComparedWhole() async throws {
        let folder = try HubFolder()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        let app = Application(router: buildSyncHubRouter(hub: hub, authentication: .sharedToken("dev-token")),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            #expect(try await Self.outcome(folder, port: port, token: "dev-token") == nil)
            #expect(try await Self.outcome(folder, port: port, token: "dev-toke") != nil)
            #expect(try await Self.outcome(folder, port: port, token: "dev-token2") != nil)
        }
    }
}
#endif
