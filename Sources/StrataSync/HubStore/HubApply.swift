// Applying one entry's changeset to a SQLite connection under the policies, recording what was
// made: the SQLite store does it on the space's file; the PostgreSQL store on a scratch SQLite
// copy of the rows the entry touches, so both stores settle conflicts the same way.
import Foundation
import Strata

package enum HubApply {
    /// Applies `changeset` to `connection` (inside the caller's transaction) under `policies`;
    /// returns the changes made and the rows the policy settled otherwise than by the entry.
    /// `fastPath` allows the apply without a session when nothing conflicts (see
    /// `SyncHub.entriesAreTheChangesMade`).
    /// - Throws: `EntryRefusal` for a foreign key, a constraint or a policy's refusal.
    package static func apply(_ changeset: Data, replica: String, tables: [String], policies: [String: SyncPolicy],
                              fastPath: Bool, on connection: Connection) throws -> AppliedChanges {
        var settled: [(String, [SyncValue])] = []
        let synced = Set(tables.map { $0.lowercased() })
        // Most entries meet no conflict, and then the change the hub made is the entry itself:
        // applied without a session, aborting (SQLite undoes the whole apply) at the first
        // conflict, which takes the recorded path below. Halves the hub's cost. Not when the
        // hub's own triggers or foreign key actions would add changes, nor for an entry touching
        // a table the hub does not sync (the log keeps only what the hub did).
        var conflicted = !fastPath
        if fastPath {
            try connection.execute("SAVEPOINT strata_sync_fast")
            do {
                try connection.apply(Changeset(data: changeset), filter: { table in
                    guard synced.contains(table.lowercased()) else { conflicted = true; return false }
                    return true
                }) { _ in
                    conflicted = true
                    return .abort
                }
            } catch where conflicted {}
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
               let width = widths[conflict.change.table.lowercased()], width > conflict.change.newValues.count {
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

    /// Writes the columns an insert from a narrower replica carries into the row it met.
    static func updateKnownColumns(_ change: Change, _ connection: Connection) throws {
        let columns = try connection.schemaReader.columns(ofTable: change.table).filter { $0.hidden == 0 }.map(\.name)
        var assignments: [String] = [], values: [BindingValue] = [], keys: [String] = [], keyValues: [BindingValue] = []
        for (index, value) in change.newValues.enumerated() where index < columns.count {
            if change.primaryKeyColumns[index] {
                keys.append(quoteIdentifier(columns[index]) + " IS ?")
                keyValues.append(value ?? .null)
            } else if let value {
                assignments.append(quoteIdentifier(columns[index]) + " = ?")
                values.append(value)
            }
        }
        guard !assignments.isEmpty, !keys.isEmpty else { return }
        try connection.run(literal: SQLFragment(
            sql: "UPDATE " + quoteIdentifier(change.table) + " SET " + assignments.joined(separator: ", ") + " WHERE " + keys.joined(separator: " AND "),
            arguments: values + keyValues))
    }

    /// Builds a SQLite database image holding `tables` as defined in `schema` (their `CREATE
    /// TABLE` text), filled by `fill` (given the copy), for a snapshot.
    package static func snapshotImage(tables: [String], schema: Connection, fill: (Connection) throws -> Void) throws -> Data {
        let copy = try Connection(storageLocation: .inMemory)
        for table in tables {
            guard let sql: String = try schema.query(literal: """
                SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = \(table) COLLATE NOCASE
                """) else { throw SyncError.refused("no table \(table)") }
            try copy.execute(sql)
        }
        try fill(copy)
        return try copy.serialize()
    }
}
