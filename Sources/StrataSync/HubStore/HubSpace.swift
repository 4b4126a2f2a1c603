// The hub's log logic over any store: the chain, the trim horizon, and appending an entry.
import Foundation
import Strata

/// One space's log as the hub keeps it, over the store's primitives.
struct HubSpace {
    let storage: any SyncSpaceStorage

    /// The newest version the log has dropped (0 when it has dropped none).
    func trimmedThrough() throws -> Int64 { try storage.meta("trimmed_through") ?? 0 }

    func currentVersion() throws -> Int64 { try storage.currentVersion() }

    /// The chain at `version`, where the hub still knows it: the newest, a logged entry's, or
    /// the one at the trimmed horizon; 0 before any entry.
    func chain(at version: Int64) throws -> Int64? {
        if version == 0 { return 0 }
        if version == (try storage.currentVersion()) { return try storage.meta("chain") }
        if let logged = try storage.loggedChain(version: version) { return logged }
        if version == (try trimmedThrough()) { return try storage.meta("trimmed_chain") }
        return nil
    }

    /// Logs what the hub made of one entry, extending the chain; returns the entry's version.
    /// With `routes` (the routes the space's rules of version `rules` file it under, when it has
    /// rules) the entry is filed under them; without, pulls after it read the whole log
    /// (``readsRoutes(after:rules:)``) when `unrouted` says so (a change the store found in its
    /// tables; a push on a space without rules needs no mark: rules set later have a new version,
    /// which the first entry filed under them records).
    func append(
        replica: String, sequence: Int64, changeset: Data, routes: (rules: Int64, filed: () throws -> [LogRoutes.Filed])? = nil,
        unrouted: Bool = false
    ) throws -> Int64 {
        let chain = SyncLog.chain(after: try storage.meta("chain") ?? 0, replica: replica, sequence: sequence, changeset: changeset)
        let now = Int64(Date().timeIntervalSince1970.rounded(.down))
        let version = try storage.appendLog(replica: replica, sequence: sequence, changeset: changeset, at: now, chain: chain)
        try storage.setMeta("chain", chain)
        if let routes {
            // The first entry filed under these rules: those before it were filed under others.
            if try storage.meta(Self.routesRules) != routes.rules {
                try storage.setMeta(Self.routesRules, routes.rules)
                try storage.setMeta(Self.unroutedThrough, version - 1)
            }
            try storage.appendLogRoutes(version: version, try routes.filed())
        } else if unrouted, try storage.meta(Self.routesRules) != nil {
            try storage.setMeta(Self.unroutedThrough, version)
        }
        return version
    }

    /// The rules version the log's routes follow, and the newest entry not filed under them.
    static let routesRules = "routes_rules"
    static let unroutedThrough = "unrouted_through"

    /// Whether every entry after `version` is filed under the routes of rules version `rules`.
    func readsRoutes(after version: Int64, rules: Int64) throws -> Bool {
        guard try storage.meta(Self.routesRules) == rules,
            let unrouted = try storage.meta(Self.unroutedThrough)
        else { return false }
        return version >= unrouted
    }

    /// Drops the log through `version`, remembering the horizon and its chain; returns how many
    /// entries went.
    func trim(through version: Int64) throws -> Int {
        guard version > (try trimmedThrough()) else { return 0 }
        let trimmedChain = try chain(at: version)
        let removed = try storage.deleteLog(through: version)
        try storage.setMeta("trimmed_through", version)
        if let trimmedChain { try storage.setMeta("trimmed_chain", trimmedChain) }
        return removed
    }

    func isApplied(replica: String, sequence: Int64) throws -> Bool {
        try storage.applied(replica: replica, sequence: sequence) != nil
    }
}
