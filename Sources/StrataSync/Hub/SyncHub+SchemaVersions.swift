// A space's schema versions: which one a replica runs, and additive migrations of the space.
import Foundation
import Strata

extension SyncHub {
    /// The space's schema version (1 until ``migrateSpace(_:to:_:)``).
    public func schemaVersion(ofSpace name: String) throws -> Int {
        try space(name) { try $0.schemaVersion() }
    }

    /// Moves the space's schema to `version` with the additive steps `body` runs (add a table, add
    /// a column with a default or NULL, add an index), in one transaction, and records it. Replicas
    /// on earlier versions go on syncing the columns they know: their rows arrive with the new
    /// columns' defaults, and they receive rows without the columns they lack.
    ///
    /// ```swift
    /// try hub.migrateSpace("team", to: 2) { db in
    ///     try db.execute("ALTER TABLE todo ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
    /// }
    /// ```
    /// - Throws: ``SyncError/schemaChangeRefused(space:version:reason:)`` for a step that drops or
    ///   renames a table, a column or an index, changes a column, or adds a key column, and for a
    ///   version not after the space's; what `body` throws. The space is then as it was.
    public func migrateSpace(_ name: String, to version: Int, _ body: (Connection) throws -> Void) throws {
        try space(name) { _ = try $0.migrateSchema(space: name, to: version, dryRun: false, body) }
    }

    /// ``migrateSpace(_:to:_:)`` with the same checks, returning what it changes; with `dryRun`
    /// nothing of the space changes (`strata-sync-hub migrate --dry-run`).
    package func migrateSpace(_ name: String, to version: Int, dryRun: Bool, _ body: (Connection) throws -> Void) throws -> SyncMigrationPlan {
        try space(name) { try $0.migrateSchema(space: name, to: version, dryRun: dryRun, body) }
    }
}
