// What an operator asks of a deployed hub (`strata-sync-hub spaces`): the spaces a store holds,
// each with its schema version, log and replicas.
import Foundation
import Strata

/// One space as `strata-sync-hub spaces` lists it.
package struct SyncSpaceSummary: Sendable, Equatable {
    package var name: String
    /// The space's schema version (1 until a migration).
    package var schemaVersion: Int
    /// The newest version the hub gave (a trimmed log keeps it).
    package var version: Int64
    /// How many entries the log holds now (fewer than `version` once trimmed).
    package var logEntries: Int
    /// How many replicas (each incarnation of one) the hub applied entries of.
    package var replicas: Int
    /// The version of the space's rules, nil when it has none (every replica syncs it all).
    package var rulesVersion: Int64? = nil
}

extension SyncHub {
    /// Every space of the store, by name, with its schema version, version, log length, replicas
    /// and rules version.
    /// - Throws: the store's error (``SyncHubStoreUnavailable`` when it cannot be reached).
    package func spaceSummaries() throws -> [SyncSpaceSummary] {
        try storage.spaceNames().map { name in
            try space(name) { storage in
                try storage.read {
                    let (entries, replicas) = try storage.inventory()
                    let rules = try storage.rules()
                    return SyncSpaceSummary(
                        name: name, schemaVersion: try storage.schemaVersion(), version: try storage.currentVersion(),
                        logEntries: entries, replicas: replicas, rulesVersion: rules.json == nil ? nil : rules.version)
                }
            }
        }
    }
}

extension SyncHub {
    /// How the hubs of this process have applied entries so far (for benchmarks and logs).
    public static var applyCounts: SyncHubApplyCounts { HubApply.counts.current }
}
