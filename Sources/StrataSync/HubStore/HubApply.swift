// Applying one entry's changeset to a SQLite connection under the policies, recording what was
// made: the SQLite store does it on the space's file; the PostgreSQL store on a scratch SQLite
// copy of the rows the entry touches, so both stores settle conflicts the same way.
import Foundation
import Strata

package enum HubApply {
    /// Applies `changeset` to `connection` (inside the caller's transaction) under `policies`;
    /// returns the changes made and the rows the policy settled otherwise than by the entry.
    /// `fastPath` allows the apply without a session when nothing conflicts (see
    /// ``entriesAreTheChangesMade(tables:_:)``).
    /// With `direct` (on the fast path), an entry that meets no conflict is applied by the
    /// hub's own statements (``DirectChangesetApplier``); what it declines takes SQLite's apply.
    /// - Throws: `EntryRefusal` for a foreign key, a constraint or a policy's refusal.
    package static func apply(
        _ changeset: Data, replica: String, tables: [String], policies: [String: SyncPolicy],
        fastPath: Bool, direct: DirectChangesetApplier? = nil, on connection: Connection
    ) throws -> AppliedChanges {
        var settled: [(String, [SyncValue])] = []
        let synced = Set(tables.map { $0.lowercased() })
        if fastPath, let direct {
            let applied = try direct.apply(changeset, on: connection) { synced.contains($0.lowercased()) }
            counts.withLock { applied ? ($0.direct += 1) : ($0.declined += 1) }
            if applied { return AppliedChanges(made: changeset, settled: []) }
        }
        // Most entries meet no conflict, and then the change the hub made is the entry itself:
        // applied without a session, aborting (SQLite undoes the whole apply) at the first
        // conflict, which takes the recorded path below. Halves the hub's cost. Not when the
        // hub's own triggers or foreign key actions would add changes, nor for an entry touching
        // a table the hub does not sync (the log keeps only what the hub did).
        var conflicted = !fastPath
        if fastPath {
            try connection.execute("SAVEPOINT strata_sync_fast")
            do {
                try connection.apply(
                    Changeset(data: changeset),
                    filter: { table in
                        guard synced.contains(table.lowercased()) else { conflicted = true; return false }
                        return true
                    }
                ) { _ in
                    conflicted = true
                    return .abort
                }
            } catch  where conflicted {}
            // A conflict aborted the apply (SQLite undid it); a skipped table did not: either
            // way the recorded path starts from the state before.
            if conflicted { try connection.execute("ROLLBACK TO SAVEPOINT strata_sync_fast") }
            try connection.execute("RELEASE SAVEPOINT strata_sync_fast")
        }
        if !conflicted { return AppliedChanges(made: changeset, settled: []) }
        let session = try connection.recordChanges(tables: tables)
        defer { session.close() }
        var narrowInserts: [Change] = []
        var widths: [String: Int] = [:]
        for table in tables {
            widths[table.lowercased()] = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.count
        }
        try connection.apply(Changeset(data: changeset), filter: { synced.contains($0.lowercased()) }) { conflict in
            var resolution = try HubConflicts.resolve(conflict, replica: replica, policies: policies)
            // An insert from a replica on an earlier schema version that meets a row: REPLACE
            // would reset the columns it does not know to their defaults, so only the columns it
            // has are written, after the apply.
            if conflict.kind == .conflict, resolution == .replace,
                let width = widths[conflict.change.table.lowercased()], width > conflict.change.newValues.count
            {
                narrowInserts.append(conflict.change)
                resolution = .omit
            }
            if conflict.kind != .foreignKey, conflict.kind != .constraint {
                settled.append((conflict.change.table, conflict.change.primaryKey.map { SyncValue($0) }))
            }
            return resolution
        }
        for change in narrowInserts { try updateKnownColumns(change, connection) }
        return AppliedChanges(made: try session.changeset().data, settled: settled)
    }

    /// Entries the hub's own applier took and declined in this process (the benchmark's count of
    /// entries that still go through SQLite's apply).
    package static let counts = Locked(SyncHubApplyCounts())

    /// Whether the hub's own applier is used: `STRATA_HUB_APPLIER=sqlite` in the environment
    /// leaves every entry to SQLite's apply, to measure the two side by side in one build.
    package static let usesOwnApplier = ProcessInfo.processInfo.environment["STRATA_HUB_APPLIER"] != "sqlite"

    /// Whether applying an entry without a conflict makes exactly the entry's changes: no
    /// trigger and no foreign key action (CASCADE, SET NULL, SET DEFAULT) can add others.
    package static func entriesAreTheChangesMade(tables: [String], _ connection: Connection) throws -> Bool {
        let reader = connection.schemaReader
        if try reader.entries().contains(where: { $0.type == "trigger" }) { return false }
        let temporaryTriggers: Int = try connection.query(literal: "SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger'") ?? 0
        if temporaryTriggers > 0 { return false }
        return try !reader.hasForeignKeyActions()
    }

    /// Writes the columns an insert from a narrower replica carries into the row it met.
    static func updateKnownColumns(_ change: Change, _ connection: Connection) throws {
        let columns = try connection.schemaReader.columns(ofTable: change.table).filter { $0.hidden == 0 }.map(\.name)
        var assignments: [SQLFragment] = [], keys: [SQLFragment] = []
        for (index, value) in change.newValues.enumerated() where index < columns.count {
            if change.primaryKeyColumns[index] {
                keys.append("\(identifier: columns[index]) IS \(SQLFragment(sql: "?", arguments: [value ?? .null]))")
            } else if let value {
                assignments.append("\(identifier: columns[index]) = \(SQLFragment(sql: "?", arguments: [value]))")
            }
        }
        guard !assignments.isEmpty, !keys.isEmpty else { return }
        try connection.run(
            literal: StatementClauses(predicate: keys.joined(separator: " AND "))
                .update(.identifier(change.table), set: assignments.joined(separator: ", ")))
    }

    /// Builds a SQLite database image holding `tables` as defined in `schema` (their `CREATE
    /// TABLE` text), filled by `fill` (given the copy), for a snapshot.
    package static func snapshotImage(tables: [String], schema: Connection, fill: (Connection) throws -> Void) throws -> Data {
        // Checked here too, for a store's caller that skipped schemaWidths: a table named twice
        // would be created twice in the copy, `sqlite_sequence` not at all.
        try HubSchema.checkTableList(tables)
        let copy = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
        for table in tables {
            guard let sql = try schema.schemaReader.table(named: table)?.sql else { throw SyncError.refused("no table \(table)") }
            try copy.execute(sql)
        }
        try fill(copy)
        return try copy.serialize()
    }
}

/// The hub's schema knowledge over a SQLite connection holding a space's tables, for stores
/// that keep the space's SQLite definitions beside their own tables.
package enum HubSchema {
    /// Creates the hub's bookkeeping tables (and records schema version 1) in `connection`.
    package static func prepareSpace(_ connection: Connection) throws { try SyncLog(connection).prepare() }

    /// See ``SyncSpaceStorage/schemaWidths(tables:fingerprint:)``.
    package static func widths(tables: [String], fingerprint: String, _ connection: Connection) throws -> [String: Int]? {
        try checkSchema(tables, fingerprint, connection)
    }

    /// Which of the space's schema versions the replica's tables are; the tables' widths at that
    /// version when it is an earlier one (nil for the current).
    static func checkSchema(_ tables: [String], _ fingerprint: String, _ connection: Connection) throws -> [String: Int]? {
        try checkTableList(tables)
        for table in tables {
            guard try connection.schemaReader.table(named: table) != nil else {
                throw SyncError.schemaMismatch(local: fingerprint, remote: "no table \(table)")
            }
        }
        // A replica on an earlier version of the space's schema syncs the columns it has.
        return try SpaceSchemaHistory.widths(of: tables, fingerprint: fingerprint, connection)
    }

    /// Refuses a list of tables no replica sends: an empty name, a table named twice (in any
    /// ASCII case, as SQLite compares names: `ä` and `Ä` are two tables), SQLite's own tables
    /// (`sqlite_*`) or the sync engine's;
    /// every request reaches here before a store reads its tables, so a hostile list is a
    /// refusal, never a failure deep in a snapshot or a changeset.
    package static func checkTableList(_ tables: [String]) throws {
        var seen: Set<String> = []
        for table in tables {
            guard !table.isEmpty else { throw SyncError.refused("the list of tables has an empty name") }
            let lowered = String(decoding: table.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            guard !lowered.hasPrefix("sqlite_") else { throw SyncError.refused("\(table) is SQLite's own table; it is never synced") }
            guard !SyncBookkeeping.isBookkeeping(table) else { throw SyncError.refused("\(table) is the sync engine's own table") }
            guard seen.insert(lowered).inserted else { throw SyncError.refused("the list of tables names \(table) twice") }
        }
    }

    /// Why the tables `created` makes are none of the space's schema versions (its definitions
    /// in `connection`), or nil when they are one of them.
    package static func difference(of created: Connection, from connection: Connection) throws -> String? {
        try SpaceSchemaHistory.difference(of: created, from: connection)
    }

    /// The space's schema version recorded in `connection`.
    package static func version(_ connection: Connection) throws -> Int { try SpaceSchemaHistory.version(connection) }

    /// Runs an additive migration (``SyncHub/migrateSpace(_:to:_:)``) on the space's definitions
    /// in `connection`, in one transaction, and records `version`; every store's migration.
    /// Returns what it changed; with `dryRun` the transaction is rolled back after the checks
    /// (`strata-sync-hub migrate --dry-run`).
    /// - Throws: ``SyncError/schemaChangeRefused(space:version:reason:)`` for a version not after
    ///   the space's or a step that is not additive; what `body` throws. `connection` is then as
    ///   it was.
    @discardableResult
    package static func runMigration(
        space: String, to version: Int, dryRun: Bool = false, _ connection: Connection,
        _ body: (Connection) throws -> Void
    ) throws -> SyncMigrationPlan {
        /// Ends a dry run's transaction (rolled back) with the plan it found.
        struct DryRun: Error { var plan: SyncMigrationPlan }
        let current = try SpaceSchemaHistory.version(connection)
        guard version > current else {
            throw SyncError.schemaChangeRefused(space: space, version: version, reason: "the space is at version \(current) already")
        }
        do {
            return try connection.transaction(transactionType: .immediate) {
                let before = try SpaceSchemaHistory.shape(connection)
                try body(connection)
                let after = try SpaceSchemaHistory.shape(connection)
                if let reason = SpaceSchemaHistory.destructiveChange(from: before, to: after) {
                    throw SyncError.schemaChangeRefused(space: space, version: version, reason: reason)
                }
                try SpaceSchemaHistory.record(version: version, connection)
                let plan = SyncMigrationPlan(
                    space: space, fromVersion: current, toVersion: version,
                    additions: SpaceSchemaHistory.additions(from: before, to: after))
                if dryRun { throw DryRun(plan: plan) }
                return plan
            }
        } catch let dryRun as DryRun {
            return dryRun.plan
        }
    }

    /// Whether `table` is one of the sync engine's own.
    package static func isBookkeeping(_ table: String) -> Bool { SyncBookkeeping.isBookkeeping(table) }

    /// A row as the hub sends it back.
    package static func row(table: String, keyColumns: [String], key: [SyncValue], columns: [String], values: [BindingValue]?) -> SyncRow {
        SyncRow(table: table, keyColumns: keyColumns, key: key, columns: columns, values: values.map { $0.map { SyncValue($0) } })
    }
}

extension HubApply {
    /// Logs `changeset` as the next entry of the space, extending its chain (for changes a
    /// store found in its tables that no replica pushed); returns the entry's version.
    /// Filed under no routes: pulls after it read the whole log.
    package static func appendToLog(_ storage: any SyncSpaceStorage, replica: String, sequence: Int64, changeset: Data) throws -> Int64 {
        try HubSpace(storage: storage).append(replica: replica, sequence: sequence, changeset: changeset, unrouted: true)
    }
}
