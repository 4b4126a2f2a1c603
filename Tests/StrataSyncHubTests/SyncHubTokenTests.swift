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
@testable import StrataSync
import StrataSyncHub
import StrataTestSupport
import Testing

/// JWT identities and permissions on the hub's routes: each refusal with its status and reason,
/// over a real loopback port with replicas on `HTTPSyncTransport`.
@Suite struct SyncHubTokenTests {
    static let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v)"

    static func token(
        _ keys: JWTKeyCollection, spaces: [String: String] = ["team": "rw"], replica: String = "phone",
        expires: Date = Date().addingTimeInterval(600)
    ) async throws -> String {
        try await keys.sign(SyncHubClaims(subject: "ada", spaces: spaces, replica: replica, expiration: expires))
    }

    static func replica(_ folder: TemporaryDirectory, _ name: String, port: Int, token: String) throws -> SyncReplica {
        let database = try Database(storageLocation: .onDisk(folder.path(name + "-" + UUID().uuidString + ".sqlite")))
        try database.executeWrite { try $0.execute(schema) }
        var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token)
        transport.attempts = 1
        return try SyncReplica(database: database, replicaID: name, space: "team", tables: ["t"], transport: transport)
    }

    /// What a sync with `token` as replica `name` ends in: nil when it worked, else the reason.
    static func outcome(_ folder: TemporaryDirectory, port: Int, name: String = "phone", token: String, write: Bool = true) async throws -> String? {
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
        let (folder, hub) = try folderHub(schema: Self.schema)
        try Data("a-long-hub-secret-of-more-than-32-bytes\n".utf8).write(to: folder.url.appendingPathComponent("key"))
        let authentication = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key"))
        let keys = await hmacKeys("a-long-hub-secret-of-more-than-32-bytes")
        let wrongKeys = await hmacKeys("another-secret-that-is-32-bytes-or-more")
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: authentication)) { port async throws in
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
        let inFolder = try folderHub(schema: Self.schema)
        let hub = inFolder.hub
        let keys = await hmacKeys("secret-for-statuses-of-32-bytes-at-least")
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
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
        let (folder, hub) = try folderHub(schema: Self.schema)
        let privateKey = ES256PrivateKey()
        try Data(privateKey.publicKey.pemRepresentation.utf8).write(to: folder.url.appendingPathComponent("key.pem"))
        let signer = JWTKeyCollection()
        await signer.add(ecdsa: privateKey)
        let authentication = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key.pem"))
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: authentication)) { port async throws in
            #expect(try await Self.outcome(folder, port: port, token: try await Self.token(signer)) == nil)
            let other = JWTKeyCollection()
            await other.add(ecdsa: ES256PrivateKey())
            #expect(try await Self.outcome(folder, port: port, token: try await Self.token(other))?.contains("not valid") == true)
        }
    }

    @Test func aShortSecretIsRefusedByName() async throws {
        let folder = try TemporaryDirectory()
        try Data("short\n".utf8).write(to: folder.url.appendingPathComponent("key"))
        await #expect(throws: SyncError.self) { _ = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key")) }
    }

    @Test func aSharedTokenIsComparedWhole() async throws {
        let (folder, hub) = try folderHub(schema: Self.schema)
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .sharedToken("dev-token"))) { port async throws in
            #expect(try await Self.outcome(folder, port: port, token: "dev-token") == nil)
            #expect(try await Self.outcome(folder, port: port, token: "dev-toke") != nil)
            #expect(try await Self.outcome(folder, port: port, token: "dev-token2") != nil)
        }
    }

    /// What the hub answered `transport` for a push (`write`) or a pull as `replica`: the typed
    /// denial, nil when it let the request through (an answer past the token is not a denial).
    static func denial(port: Int, token: String?, replica: String = "phone", write: Bool) async throws -> SyncAccessDenial? {
        var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: token)
        transport.attempts = 1
        do {
            if write {
                _ = try await transport.push(SyncPushRequest(space: "team", replicaID: replica, tables: ["t"], schemaFingerprint: "x", entries: []))
            } else {
                _ = try await transport.pull(SyncPullRequest(space: "team", replicaID: replica, tables: ["t"], schemaFingerprint: "x", after: 0, limit: 10))
            }
            return nil
        } catch SyncError.accessDenied(let denial) {
            return denial
        } catch is SyncError {
            return nil
        }
    }

    /// Issue 64, item 10: each way a token fails arrives at the replica as its own reason with
    /// its status, not as refused text an app would have to parse.
    @Test func eachDenialArrivesTypedWithItsStatus() async throws {
        let (folder, hub) = try folderHub(schema: Self.schema)
        let keys = await hmacKeys("secret-for-denials-of-32-bytes-at-least")
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
            func expect(_ denial: SyncAccessDenial?, _ reason: SyncAccessDenial.Reason, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(denial?.reason == reason, "\(String(describing: denial))", sourceLocation: sourceLocation)
                #expect(denial?.status == status, "\(String(describing: denial))", sourceLocation: sourceLocation)
            }
            let expired = try await Self.token(keys, expires: Date().addingTimeInterval(-60))
            expect(try await Self.denial(port: port, token: expired, write: false), .expired, 401)
            expect(try await Self.denial(port: port, token: "not-a-jwt", write: false), .invalid, 401)
            expect(try await Self.denial(port: port, token: nil, write: true), .missing, 401)
            let reader = try await Self.token(keys, spaces: ["team": "r"])
            expect(try await Self.denial(port: port, token: reader, write: true), .readOnly, 403)
            #expect(try await Self.denial(port: port, token: reader, write: false) == nil, "a reader pulls")
            let otherSpace = try await Self.token(keys, spaces: ["other": "rw"])
            expect(try await Self.denial(port: port, token: otherSpace, write: false), .forbiddenSpace, 403)
            let otherReplica = try await Self.token(keys, replica: "laptop")
            expect(try await Self.denial(port: port, token: otherReplica, write: true), .wrongReplica, 403)
            let odd = try await Self.token(keys, spaces: ["team": "w"])
            expect(try await Self.denial(port: port, token: odd, write: false), .invalid, 401)

            // Through a replica's sync too, with words for an alert.
            let replica = try Self.replica(folder, "phone", port: port, token: expired)
            await #expect(
                throws: SyncError.accessDenied(
                    SyncAccessDenial(
                        reason: .expired, status: 401,
                        message: "the token expired: ask the app's backend for a new one"))
            ) {
                try await replica.sync()
            }
            let error: any Error = SyncError.accessDenied(SyncAccessDenial(reason: .expired, status: 401, message: "m"))
            #expect(error.localizedDescription.contains("fetch a new token"))
        }
    }

    @Test func aSharedTokenAndAnAuthorizerDenyTyped() async throws {
        let inFolder = try folderHub(schema: Self.schema)
        let hub = inFolder.hub
        for authentication in [SyncHubAuthentication.sharedToken("dev-token"), .custom { token, _, _ in token == "dev-token" }] {
            try await serveLive(buildSyncHubRouter(hub: hub, authentication: authentication)) { port async throws in
                let wrong = try await Self.denial(port: port, token: "dev-toke", write: true)
                #expect(wrong?.reason == .invalid && wrong?.status == 401, "\(String(describing: wrong))")
                let none = try await Self.denial(port: port, token: nil, write: false)
                #expect(none?.reason == .missing && none?.status == 401, "\(String(describing: none))")
                #expect(try await Self.denial(port: port, token: "dev-token", write: false) == nil)
            }
        }
    }

    /// RFC 8725, 3.1: the header's `alg` must be the key's. jwt-kit verifies with the key's own
    /// algorithm whatever the header says, so these tokens carry a valid HS256 signature.
    @Test(arguments: ["HS512", "none", "ES256"])
    func aHeaderNamingAnotherAlgorithmIsInvalid(alg: String) async throws {
        let (folder, hub) = try folderHub(schema: Self.schema)
        let secret = "a-long-hub-secret-for-algorithm-tests!!"
        try Data((secret + "\n").utf8).write(to: folder.url.appendingPathComponent("key"))
        let authentication = try await SyncHubAuthentication.jwt(keyFile: folder.url.appendingPathComponent("key"))
        let keys = await hmacKeys(HMACKey(from: Array(secret.utf8)))
        var header = JWTHeader()
        header.alg = alg
        let claims = SyncHubClaims(subject: "ada", spaces: ["team": "rw"], replica: "phone", expiration: Date().addingTimeInterval(600))
        let forged = try await keys.sign(claims, header: header)
        let headerJSON = try #require(Data(base64Encoded: Self.base64(String(forged.split(separator: ".")[0]))))
        #expect(String(decoding: headerJSON, as: UTF8.self).contains("\"\(alg)\""), "the forged header names \(alg)")
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: authentication)) { port async throws in
            #expect(try await Self.denial(port: port, token: try await keys.sign(claims), write: false) == nil, "the honest HS256 token passes")
            let denial = try await Self.denial(port: port, token: forged, write: false)
            #expect(denial?.reason == .invalid && denial?.status == 401, "\(String(describing: denial))")
            #expect(denial?.message.contains("algorithm") == true, "\(String(describing: denial))")
        }
    }

    static func base64(_ base64URL: String) -> String {
        let text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return text + String(repeating: "=", count: (4 - text.count % 4) % 4)
    }

    /// A proxy's 401 or 403 without the hub's JSON is a denial too.
    @Test func aBareStatusIsADenial() {
        #expect(HTTPSyncTransport.error(status: 401, message: "") == .accessDenied(SyncAccessDenial(reason: .invalid, status: 401, message: "HTTP 401")))
        #expect(
            HTTPSyncTransport.error(status: 403, message: "<html>no</html>")
                == .accessDenied(SyncAccessDenial(reason: .forbiddenSpace, status: 403, message: "<html>no</html>")))
    }
}
#endif
