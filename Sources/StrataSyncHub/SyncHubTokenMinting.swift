// Minting a hub token from the HS256 secret `--jwt-key` reads: what an app's backend does, for
// development and scripts (`strata-sync-hub token`).
#if Hub
import Foundation
import JWTKit
import StrataSync

extension SyncHubClaims {
    /// Signs these claims, with `extraClaims` as more top-level string claims (a space's rules
    /// read them as `auth.<name>`) and `listClaims` as top-level arrays of strings (read as
    /// `IN auth.<name>`), with the HS256 secret in `keyFile`: the file
    /// ``SyncHubAuthentication/jwt(keyFile:)`` reads (trailing newlines are not part of the
    /// secret, which has at least 32 bytes).
    ///
    /// ```swift
    /// let claims = SyncHubClaims(subject: "ana", spaces: ["team": "rw"], replica: "ana-phone",
    ///                            expiration: Date().addingTimeInterval(3600))
    /// let token = try await claims.signedHS256(keyFile: URL(fileURLWithPath: "hub-key"), extraClaims: ["org": "o1"])
    /// ```
    /// - Throws: ``SyncError/refused(_:)`` for a PEM key, a secret under 32 bytes, or an extra
    ///   claim named like one of the claims above; the file's error.
    public func signedHS256(keyFile: URL, extraClaims: [String: String] = [:], listClaims: [String: [String]] = [:]) async throws -> String {
        let contents = try Data(contentsOf: keyFile)
        if String(decoding: contents, as: UTF8.self).contains("-----BEGIN") {
            throw SyncError.refused(
                "\(keyFile.path) holds a PEM key: tokens are minted here with an HS256 secret only (sign ES256 tokens with the private key in your backend)"
            )
        }
        var secret = Array(contents)
        while let last = secret.last, last == 0x0A || last == 0x0D { secret.removeLast() }
        guard secret.count >= 32 else {
            throw SyncError.refused("the HS256 secret in \(keyFile.path) has \(secret.count) bytes; it needs at least 32")
        }
        for name in Set(extraClaims.keys).union(listClaims.keys) where MintedHubClaims.fixedNames.contains(name) {
            throw SyncError.refused("the claim \(name.debugDescription) is set by the token itself; give another name")
        }
        for name in listClaims.keys where extraClaims[name] != nil {
            throw SyncError.refused("the claim \(name.debugDescription) is given both as a string and as a list; give it once")
        }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(MintedHubClaims(claims: self, extra: extraClaims, lists: listClaims))
    }
}

/// The claims of a minted token: the hub's own, extra top-level strings and arrays of strings.
struct MintedHubClaims: JWTPayload {
    static let fixedNames: Set<String> = ["sub", "spaces", "replica", "exp"]
    var claims: SyncHubClaims
    var extra: [String: String]
    var lists: [String: [String]]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(claims: SyncHubClaims, extra: [String: String], lists: [String: [String]] = [:]) {
        self.claims = claims
        self.extra = extra
        self.lists = lists
    }

    init(from decoder: any Decoder) throws {
        claims = try SyncHubClaims(from: decoder)
        let container = try decoder.container(keyedBy: Key.self)
        var extra: [String: String] = [:]
        var lists: [String: [String]] = [:]
        for key in container.allKeys where !Self.fixedNames.contains(key.stringValue) {
            if let text = try? container.decode(String.self, forKey: key) {
                extra[key.stringValue] = text
            } else if let list = try? container.decode([String].self, forKey: key) {
                lists[key.stringValue] = list
            }
        }
        self.extra = extra
        self.lists = lists
    }

    func encode(to encoder: any Encoder) throws {
        try claims.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: Key(stringValue: name))
        }
        for (name, list) in lists.sorted(by: { $0.key < $1.key }) {
            try container.encode(list, forKey: Key(stringValue: name))
        }
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try await claims.verify(using: algorithm)
    }
}
#endif
