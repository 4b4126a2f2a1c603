// Who may sync what: a shared token for local development, or JWTs the app's backend issues,
// naming the user, the spaces they may read or write, and the one replica the token is for.
#if Hub
import Foundation
import Hummingbird
import JWTKit
import StrataSync

/// How the hub tells who is asking, and what they may do.
public enum SyncHubAuthentication: Sendable {
    /// Anyone may push and pull anything: local development on a machine of one's own.
    case none
    /// One token every replica sends: for local development. Whoever holds it may push under
    /// any replica ID, so a real deployment uses ``jwt(_:)``.
    case sharedToken(String)
    /// JSON Web Tokens signed with a key in the collection, carrying ``SyncHubClaims``: the hub
    /// refuses a token that is expired, unsigned, or whose header `alg` is not its key's (401),
    /// and a space, a write or a replica the claims do not give (403), each as
    /// ``SyncError/accessDenied(_:)`` with its reason.
    case jwt(JWTKeyCollection)
    /// A closure decides from the bearer token, the space and the replica ID (false is 401,
    /// ``SyncAccessDenial/Reason/invalid``, or ``SyncAccessDenial/Reason/missing`` without a token).
    case custom(SyncHubAuthorizer)

    /// JWT authentication with the key in `file`: a PEM public key (`-----BEGIN PUBLIC KEY-----`)
    /// verifies ES256 tokens; anything else is an HS256 secret of at least 32 bytes (a trailing
    /// newline is not part of it).
    /// - Throws: the file's error, ``SyncError/refused(_:)`` for a secret under 32 bytes, or
    ///   JWTKit's for a PEM it cannot read.
    public static func jwt(keyFile: URL) async throws -> SyncHubAuthentication {
        let contents = try Data(contentsOf: keyFile)
        let text = String(decoding: contents, as: UTF8.self)
        let keys = JWTKeyCollection()
        if text.contains("-----BEGIN PUBLIC KEY-----") {
            await keys.add(ecdsa: try ES256PublicKey(pem: text))
        } else {
            var secret = Array(contents)
            while let last = secret.last, last == 0x0A || last == 0x0D { secret.removeLast() }
            // HS256's key is at least as long as its hash (RFC 7518, 3.2); jwt-kit traps on a shorter one.
            guard secret.count >= 32 else {
                throw SyncError.refused(
                    "the HS256 secret in \(keyFile.path) has \(secret.count) bytes; it needs at least 32 (or give an ES256 public key in PEM)")
            }
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        }
        return .jwt(keys)
    }

    /// The answer refusing the request, or nil when it may go on. `replica` nil: not known yet
    /// (a push before its body is read), so only the token and the space are checked.
    func refusal(token: String?, space: String, replica: String?, writes: Bool) async -> Response? {
        guard let denial = await denial(token: token, space: space, replica: replica, writes: writes) else { return nil }
        return answer(denial.status == 401 ? .unauthorized : .forbidden, .accessDenied(denial))
    }

    /// Why the token may not do this, or nil when it may: typed, so that an app tells "fetch a
    /// new token" (401) from "this user may not" (403) without reading the message.
    func denial(token: String?, space: String, replica: String?, writes: Bool) async -> SyncAccessDenial? {
        func unauthorized(_ reason: SyncAccessDenial.Reason, _ message: String) -> SyncAccessDenial {
            SyncAccessDenial(reason: reason, status: 401, message: message)
        }
        func forbidden(_ reason: SyncAccessDenial.Reason, _ message: String) -> SyncAccessDenial {
            SyncAccessDenial(reason: reason, status: 403, message: message)
        }
        switch self {
        case .none:
            return nil
        case .sharedToken(let expected):
            guard let token else { return unauthorized(.missing, "a bearer token is needed for \(space)") }
            return tokenMatches(token, expected) ? nil : unauthorized(.invalid, "a valid bearer token is needed for \(space)")
        case .custom(let authorize):
            return authorize(token, space, replica ?? "")
                ? nil
                : unauthorized(token == nil ? .missing : .invalid, "not authorized for \(space)")
        case .jwt(let keys):
            guard let token else { return unauthorized(.missing, "a bearer token (a JWT) is needed for \(space)") }
            let claims: SyncHubClaims
            do {
                try await Self.checkAlgorithm(of: token, keys)
                claims = try await keys.verify(token, as: SyncHubClaims.self)
            } catch let error as JWTError where error.errorType == .claimVerificationFailure {
                return unauthorized(.expired, "the token expired: ask the app's backend for a new one")
            } catch {
                return unauthorized(.invalid, "the token is not valid here (its signature, its algorithm, its form or its claims): \(error)")
            }
            // The request's log line names the user from here on (a refusal too).
            SyncHubRequestRecord.current?.update { $0.user = claims.sub.value }
            guard let access = claims.spaces[space] else {
                return forbidden(.forbiddenSpace, "the token of \(claims.sub.value) gives no access to the space \(space)")
            }
            guard access == "r" || access == "rw" else {
                // Neither a reader nor a writer: a claim the backend got wrong, not a permission.
                return unauthorized(.invalid, "the token's access to \(space) is \(access.debugDescription), neither \"r\" nor \"rw\"")
            }
            if access == "r", writes {
                return forbidden(.readOnly, "the token of \(claims.sub.value) may read \(space), not write it")
            }
            // A replica sends its name and incarnation ("phone#…"): the token names the replica.
            if let replica, replica != claims.replica, !replica.hasPrefix(claims.replica + "#") {
                return forbidden(.wrongReplica, "the token is for replica \(claims.replica), not \(replica)")
            }
            return nil
        }
    }

    /// Who the request comes from, for the space's rules (after ``denial(token:space:replica:writes:)``
    /// let it through): a JWT's identity (`sub` the user, every other top-level string claim a
    /// claim, every top-level array of strings a list claim), or no user for the other kinds.
    package func caller(token: String?) async -> SyncCaller {
        guard case .jwt(let keys) = self, let token,
            let claims = try? await keys.verify(token, as: SyncHubClaims.self)
        else { return .anonymous }
        var strings: [String: String] = [:]
        var lists: [String: [String]] = [:]
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3, let data = Self.base64URLDecoded(parts[1]),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            for (name, value) in object where name != "sub" {
                if let text = value as? String {
                    strings[name] = text
                } else if let array = value as? [Any] {
                    // Only an array of strings is a list claim: a number's text differs between
                    // JSON and each store, so a mixed array is no claim at all.
                    let texts = array.compactMap { $0 as? String }
                    if texts.count == array.count { lists[name] = texts }
                }
            }
        }
        return .user(SyncIdentity(user: claims.sub.value, claims: strings, listClaims: lists))
    }

    /// Refuses a token whose header names another algorithm than its key's (RFC 8725, 3.1):
    /// jwt-kit verifies the signature with the key's own algorithm whatever `alg` says, so an
    /// `HS512` or `none` header over a valid HS256 signature would pass. A header without `alg`
    /// is refused too.
    static func checkAlgorithm(of token: String, _ keys: JWTKeyCollection) async throws {
        struct Header: Decodable { var alg: String?; var kid: String? }
        guard let encoded = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let data = base64URLDecoded(encoded),
            let header = try? JSONDecoder().decode(Header.self, from: data)
        else {
            throw JWTError.malformedToken(reason: "its header is not base64url JSON")
        }
        guard let alg = header.alg else { throw JWTError.malformedToken(reason: "its header names no algorithm (alg)") }
        let key = try await keys.getKey(for: header.kid.map { JWKIdentifier(string: $0) }, alg: alg)
        guard key.name == alg else {
            throw JWTError.malformedToken(reason: "its header names the algorithm \(alg.debugDescription), the hub's key is \(key.name)")
        }
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? { SyncWire.data(fromBase64URL: text) }
}

/// The claims of a hub token: `sub` (the user), `spaces` (space name to `"rw"` or `"r"`),
/// `replica` (the replica ID the token is bound to) and `exp`.
public struct SyncHubClaims: JWTPayload, Equatable {
    /// The user the token was issued to.
    public var sub: SubjectClaim
    /// Each space the user may sync: `"rw"` to push and pull, `"r"` to pull only.
    public var spaces: [String: String]
    /// The replica ID the token is for; a push or pull under another is refused.
    public var replica: String
    /// When the token stops being accepted.
    public var exp: ExpirationClaim

    /// Claims for `subject` on `spaces`, bound to `replica`, until `expiration`.
    public init(subject: String, spaces: [String: String], replica: String, expiration: Date) {
        sub = SubjectClaim(value: subject)
        self.spaces = spaces
        self.replica = replica
        exp = ExpirationClaim(value: expiration)
    }

    /// Refuses an expired token.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
#endif
