// Partial sync's public vocabulary: who is syncing (an identity), which rows each identity holds
// (buckets) and which writes it may make (write rules), as a space keeps them.
import Foundation
import Strata

/// Who is syncing: a user and the claims their token carries. Rules name them `auth.user` and
/// `auth.<claim>`, always as bound values; a list claim is read with `IN auth.<claim>`.
///
/// ```swift
/// let alice = SyncIdentity(user: "alice", claims: ["org": "o1"], listClaims: ["groups": ["g1", "g2"]])
/// let transport = InProcessSyncTransport(hub: hub, identity: alice)
/// ```
/// Over HTTP the hub derives it from the verified JWT: `sub` is the user, every other top-level
/// string claim a claim, every top-level array of strings a list claim. A claim the identity
/// lacks is NULL in the rules, and an empty list under `IN`.
public struct SyncIdentity: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The user (a JWT's `sub`).
    public var user: String
    /// The token's other string claims (`"org": "o1"`).
    public var claims: [String: String]
    /// The token's arrays of strings (`"groups": ["g1", "g2"]`), which rules read as
    /// `x IN auth.groups`.
    public var listClaims: [String: [String]]

    /// An identity.
    public init(user: String, claims: [String: String] = [:], listClaims: [String: [String]] = [:]) {
        self.user = user
        self.claims = claims
        self.listClaims = listClaims
    }

    private enum CodingKeys: String, CodingKey { case user, claims, listClaims }

    /// Decodes an identity, one written before list claims included.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(String.self, forKey: .user)
        claims = try container.decodeIfPresent([String: String].self, forKey: .claims) ?? [:]
        listClaims = try container.decodeIfPresent([String: [String]].self, forKey: .listClaims) ?? [:]
    }

    /// The value `auth.<name>` stands for (`user` for `auth.user`), NULL when absent.
    func value(of name: String) -> BindingValue {
        if name.lowercased() == "user" { return .text(user) }
        if let value = claims[name] { return .text(value) }
        if let match = claims.first(where: { $0.key.lowercased() == name.lowercased() }) { return .text(match.value) }
        return .null
    }

    /// The values `IN auth.<name>` lists: a list claim's strings, a string claim as a list of
    /// one, none when absent.
    func values(of name: String) -> [String] {
        if let list = listClaims[name] ?? listClaims.first(where: { $0.key.lowercased() == name.lowercased() })?.value { return list }
        if case .text(let value) = value(of: name) { return [value] }
        return []
    }

    /// The user, for logs (claims are left out: they may be personal).
    public var description: String { "user \(user)" }
}

/// Who a hub request comes from, as far as rules are concerned.
package enum SyncCaller: Sendable, Equatable {
    /// The app itself (``InProcessSyncTransport/init(hub:)``, an admin tool): sees every row.
    case trusted
    /// A user with an identity: sees the rows of its buckets, writes what write rules allow.
    case user(SyncIdentity)
    /// A caller with no user (a shared token, no authentication): refused on a space with rules.
    case anonymous
}

/// One kind of bucket: its `parameters` query gives the instances an identity has (each result
/// row one instance, its columns `bucket.<column>`), and `data` puts each table's rows in the
/// instances whose predicate they satisfy.
///
/// ```swift
/// SyncBucket(name: "lists",
///            parameters: "SELECT id AS list FROM list WHERE owner = auth.user",
///            data: ["list": "id = bucket.list", "todo": "list = bucket.list"])
/// SyncBucket(name: "everyone", data: ["tag": "true"])   // one instance everyone has
/// ```
public struct SyncBucket: Codable, Sendable, Equatable {
    /// The bucket's name (unique within the rules).
    public var name: String
    /// A `SELECT` over the space's tables that may use `auth.*`; nil: one instance for everyone.
    public var parameters: String?
    /// Each table's predicate, over that table's columns, that may use `bucket.*` and `auth.*`.
    public var data: [String: String]

    /// A bucket.
    public init(name: String, parameters: String? = nil, data: [String: String]) {
        self.name = name
        self.parameters = parameters
        self.data = data
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case name, parameters, data }

    /// Decodes a bucket, refusing a key it does not know (a misspelt `"paramaters"` would
    /// otherwise make a per-user bucket one that everyone has).
    /// - Throws: ``SyncError/invalidRules(_:)`` naming the key and the nearest known one.
    public init(from decoder: any Decoder) throws {
        try RulesKey.refuseUnknown(in: decoder, known: CodingKeys.allCases.map(\.rawValue), place: "a bucket")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        parameters = try container.decodeIfPresent(String.self, forKey: .parameters)
        data = try container.decode([String: String].self, forKey: .data)
    }
}

/// Any key of a rules file, to find the ones that are not known.
struct RulesKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// Throws for the first key of `decoder`'s object outside `known`, naming the nearest.
    static func refuseUnknown(in decoder: any Decoder, known: [String], place: String) throws {
        let container = try decoder.container(keyedBy: RulesKey.self)
        for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) {
            let nearest = known.min { distance(key, $0) < distance(key, $1) } ?? ""
            throw SyncError.invalidRules(
                "\(place) has the key \(key.debugDescription), which rules do not have (did you mean \(nearest.debugDescription)? "
                    + "the keys are \(known.map(\.debugDescription).joined(separator: ", ")))")
        }
    }

    /// The edit distance between two keys, by Unicode scalars.
    static func distance(_ left: String, _ right: String) -> Int {
        let a = Array(left.lowercased().unicodeScalars), b = Array(right.lowercased().unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let above = row[j]
                row[j] = min(above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }
}

/// A space's rules: which rows each identity holds (``buckets``) and which writes it may make
/// (``writes``, a predicate per table that the old and the new row of each pushed change must
/// satisfy). A table with no write rule may not be written by replicas once a space has rules.
///
/// ```swift
/// try hub.setRules(SyncRules(buckets: [...], writes: ["todo": "owner = auth.user"]), forSpace: "team")
/// ```
/// The rule language is a small part of SQL that every hub store reads the same way: column
/// names, literals (numbers, `'text'`, `NULL`, `TRUE`, `FALSE`), comparisons (`=`, `!=`, `<>`,
/// `<`, `<=`, `>`, `>=`), `AND`/`OR`/`NOT`, `IN` over a list or a `SELECT`, `IS [NOT] NULL`,
/// `EXISTS`, `+ - *`, and `SELECT … FROM … [JOIN … ON …] WHERE … [UNION [ALL] …]`. Functions,
/// `LIKE`, `GLOB`, `COLLATE`, `CASE`, `CAST`, `||`, parameters and comments are refused
/// (``SyncError/invalidRules(_:)``): stores read them differently.
public struct SyncRules: Codable, Sendable, Equatable {
    /// The buckets.
    public var buckets: [SyncBucket]
    /// Each table's write rule.
    public var writes: [String: String]

    /// Rules of `buckets` and `writes`.
    public init(buckets: [SyncBucket], writes: [String: String] = [:]) {
        self.buckets = buckets
        self.writes = writes
    }

    /// Reads rules from a JSON file: `{"buckets": [{"name": …, "parameters": …, "data": {…}}],
    /// "writes": {…}}`.
    /// - Throws: ``SyncError/invalidRules(_:)`` when the file is not such JSON; what reading it
    ///   throws.
    public init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        try self.init(json: data)
    }

    /// Reads rules from JSON bytes (the format of ``init(contentsOf:)``).
    /// - Throws: ``SyncError/invalidRules(_:)``.
    public init(json: Data) throws {
        // A key written twice in one object: JSONDecoder keeps one silently, so a corrected line
        // appended below the old one (`"t": "true", "t": "owner = auth.user"`) would be dropped
        // and the bucket left public. SQLite's JSON reader keeps both, and tells.
        if let repeated = try? Connection(storageLocation: .inMemory, flags: OpenFlags.make()).query(
            "SELECT fullkey FROM json_tree(CAST(? AS TEXT)) WHERE typeof(key) = 'text' GROUP BY parent, key HAVING count(*) > 1 LIMIT 1", json)
            as String?
        {
            throw SyncError.invalidRules("the rules name the key at \(repeated) twice in one object; write each key once")
        }
        do {
            self = try JSONDecoder().decode(SyncRules.self, from: json)
        } catch let error as SyncError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw SyncError.invalidRules(
                "the rules lack the key \(key.stringValue.debugDescription) at \(Self.codingPathText(context.codingPath)) (a bucket has \"name\" and \"data\", and may have \"parameters\")"
            )
        } catch let DecodingError.typeMismatch(_, context) {
            throw SyncError.invalidRules("the rules have a value of the wrong kind at \(Self.codingPathText(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw SyncError.invalidRules("the rules are not JSON of the form {\"buckets\": [...], \"writes\": {...}}: \(error)")
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case buckets, writes }

    /// Where in the rules a decoding error is, in words (`buckets[1].data`).
    static func codingPathText(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text.isEmpty ? "the top level" : text
    }

    /// Decodes rules, either key absent meaning none.
    /// - Throws: ``SyncError/invalidRules(_:)`` for a key rules do not have (`"bucket"`,
    ///   `"write"`), naming the nearest known one.
    public init(from decoder: any Decoder) throws {
        try RulesKey.refuseUnknown(in: decoder, known: CodingKeys.allCases.map(\.rawValue), place: "the rules")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        buckets = try container.decodeIfPresent([SyncBucket].self, forKey: .buckets) ?? []
        writes = try container.decodeIfPresent([String: String].self, forKey: .writes) ?? [:]
    }

    /// The rules as JSON (keys sorted, so equal rules encode alike).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}
