// Partial sync at the hub, over any store: the rules a space keeps, the bucket instances an
// identity has, and each table's view predicate, rendered with every reference bound.
import Foundation
import Strata

extension SyncHub {
    /// Sets the rules of the space `name` (nil removes them: every replica then syncs the whole
    /// space again). Rules are checked against the space's tables first; invalid rules change
    /// nothing. Every hub process on the store serves the new rules from its next request, and
    /// each replica catches up to its new view from a snapshot of it at its next pull.
    ///
    /// ```swift
    /// try hub.setRules(SyncRules(buckets: [SyncBucket(name: "everyone", data: ["tag": "true"])],
    ///                            writes: ["tag": "false"]), forSpace: "team")
    /// ```
    /// - Returns: whether the rules changed (false for the rules the space has already: no new
    ///   version).
    /// - Throws: ``SyncError/invalidRules(_:)``; ``SyncError/unknownSpace(_:)``.
    @discardableResult
    public func setRules(_ rules: SyncRules?, forSpace name: String) throws -> Bool {
        let changed = try space(name) { storage in
            let json = try rules.map { try $0.jsonData() }
            // Checked before anything is written, against the definitions as they are, and then
            // by the store (PostgreSQL plans each rule: its types refuse what SQLite would run).
            let compiled = try rules.map { try CompiledRules.compile($0, version: 0, schema: storage.definitions) }
            return try storage.write { () throws -> Bool in
                // The same rules again (a hub restarted with its rules file) are no change: a new
                // version would send every replica a snapshot.
                if try storage.rules().json == json { return false }
                if let compiled { try storage.checkRules(compiled.probes(storage.ruleDialect)) }
                _ = try storage.setRules(json)
                return true
            }
        }
        ruleCache.withLock { $0[name] = nil }
        return changed
    }

    /// The version of the space's rules (raised by each change) and whether it has any: the
    /// version is 0 before rules were ever set.
    /// - Throws: ``SyncError/unknownSpace(_:)``.
    public func rulesVersion(ofSpace name: String) throws -> (version: Int64, hasRules: Bool) {
        try space(name) { storage in
            let (version, json) = try storage.rules()
            return (version, json != nil)
        }
    }

    /// Checks `rules` against the tables `schema` makes as this hub's store would when creating a
    /// space with them, and keeps nothing: the offline checks, then, on PostgreSQL, each rule
    /// planned on scratch tables in a transaction rolled back
    /// (`strata-sync-hub rules check --postgres`).
    /// - Throws: ``SyncError/invalidRules(_:)``; what `schema` throws; the store's errors.
    public func verifyRules(_ rules: SyncRules, schema: (Connection) throws -> Void) throws {
        let tables = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
        try tables.transaction { try schema(tables) }
        let compiled = try CompiledRules.compile(rules, version: 0, schema: tables)
        try storage.verifyRules(InitialSpaceRules(json: try rules.jsonData(), probes: { compiled.probes($0) }), schema: schema)
    }

    /// Checks `rules` offline against the tables `schema` makes in an in-memory database, as
    /// ``setRules(_:forSpace:)`` checks them against a space's (`strata-sync-hub rules check`).
    /// - Throws: ``SyncError/invalidRules(_:)``; what `schema` throws.
    public static func verifyRulesOffline(_ rules: SyncRules, schema: (Connection) throws -> Void) throws {
        let tables = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
        try tables.transaction { try schema(tables) }
        _ = try CompiledRules.compile(rules, version: 0, schema: tables)
    }

    /// The rules of the space `name` (nil: none, every replica syncs the whole space).
    /// - Throws: ``SyncError/unknownSpace(_:)``.
    public func rules(ofSpace name: String) throws -> SyncRules? {
        try space(name) { storage in try storage.rules().json.map { try SyncRules(json: $0) } }
    }

    /// The space's rules, compiled, as the store holds them now (each request reads their
    /// version, so a change another process made is served at once).
    func compiledRules(_ space: String, _ storage: any SyncSpaceStorage) throws -> CompiledRules? {
        try rulesState(space, storage).compiled
    }

    /// The space's rules version (0 before rules were ever set; raised when they are removed
    /// too) and its compiled rules, nil without rules.
    func rulesState(_ space: String, _ storage: any SyncSpaceStorage) throws -> (version: Int64, compiled: CompiledRules?) {
        let (version, json) = try storage.rules()
        guard let json else { return (version, nil) }
        if let cached = ruleCache.withLock({ $0[space] }), cached.version == version { return (version, cached) }
        let compiled = try CompiledRules.compile(try SyncRules(json: json), version: version, schema: storage.definitions)
        ruleCache.withLock { $0[space] = compiled }
        return (version, compiled)
    }

    /// Whose view a request gets: nil for every row (a trusted caller, or a space without rules).
    /// - Throws: ``SyncError/accessDenied(_:)`` for a caller with no user on a space with rules.
    func viewer(_ caller: SyncCaller, _ rules: CompiledRules?, space: String) throws -> (CompiledRules, SyncIdentity)? {
        guard let rules else { return nil }
        switch caller {
        case .trusted: return nil
        case .user(let identity): return (rules, identity)
        case .anonymous:
            throw SyncError.accessDenied(
                SyncAccessDenial(
                    reason: .missing, status: 401,
                    message: "the space \(space) has sync rules, which need a user: sign in with a token that names one (a JWT with sub)"))
        }
    }
}
