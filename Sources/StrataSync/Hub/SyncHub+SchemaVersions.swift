// A space's schema versions: which one a replica runs, and additive migrations of the space.
import Foundation
import Strata

extension SyncHub {
    /// Which of the space's schema versions the replica's tables are; the tables' widths at that
    /// version when it is an earlier one (nil for the current).
    @discardableResult
    static func checkSchema(_ tables: [String], _ fingerprint: String, _ connection: Connection) throws -> [String: Int]? {
        for table in tables {
            guard !SyncBookkeeping.isBookkeeping(table) else { throw SyncError.refused("\(table) is the sync engine's own table") }
            guard try connection.schemaReader.table(named: table) != nil else {
                throw SyncError.schemaMismatch(local: fingerprint, remote: "no table \(table)")
            }
        }
        // A replica on an earlier version of the space's schema syncs the columns it has.
        return try SpaceSchemaHistory.widths(of: tables, fingerprint: fingerprint, connection)
    }

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
        try space(name) { try $0.migrate(space: name, to: version, body) }
    }
}
