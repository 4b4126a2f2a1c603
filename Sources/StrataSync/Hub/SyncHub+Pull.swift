// Pulls and snapshots at the hub: log pages after a cursor (cut to an earlier schema version's
// columns), the synced tables as they are now, and the check that tells a restored hub.
import Foundation
import Strata

extension SyncHub {
    /// The log entries after the request's cursor; when the hub has trimmed entries after it, none,
    /// with `snapshotNeeded` set.
    public func pull(_ request: SyncPullRequest) throws -> SyncPullResponse {
        try queue(of: request.space).execute { connection in
            // A replica on an earlier schema version gets each entry cut to the columns it has.
            let widths = try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            if try Self.rolledBack(after: request.after, chain: request.afterChain, replica: request.replicaID,
                                   lastAcknowledged: request.lastAcknowledged, connection) {
                return SyncPullResponse(entries: [], hubVersion: try SyncLog(connection).currentVersion(), hubRolledBack: true)
            }
            if request.after < (try SyncLog(connection).trimmedThrough()) {
                return SyncPullResponse(entries: [], hubVersion: try SyncLog(connection).currentVersion(), snapshotNeeded: true)
            }
            let limit = min(max(1, request.limit), max(1, limits.maximumEntriesPerPull))
            var entries: [SyncLogEntry] = []
            var bytes = 0
            for var entry in try SyncLog(connection).entries(after: request.after, limit: limit) {
                if let widths {
                    entry.changeset = try Changeset(data: entry.changeset).keepingLeadingColumns { widths[$0.lowercased()] }.data
                }
                // The page ends before the entry that would take it over the byte limit (the
                // first entry goes whatever its size, or the replica could never pass it).
                if !entries.isEmpty, bytes + entry.changeset.count > limits.maximumPullBytes { break }
                bytes += entry.changeset.count
                entries.append(entry)
            }
            return SyncPullResponse(entries: entries, hubVersion: try SyncLog(connection).currentVersion())
        }
    }

    /// The synced tables as they are now, with the version they are at, for a replica to start
    /// from: a new one (``SyncReplica/bootstrap()``), or one whose cursor is behind the trimmed log.
    /// - Throws: ``SyncError/schemaMismatch(local:remote:)`` or ``SyncError/unknownSpace(_:)``
    ///   as a pull does.
    public func snapshot(_ request: SyncSnapshotRequest) throws -> SyncSnapshot {
        try queue(of: request.space).execute { connection in
            try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            // Only the synced tables are copied, never the log (which can be far larger than the
            // tables it made): a new in-memory database gets each table's own definition, then its
            // rows, read from the space's file in one read transaction with the version, so the
            // image and the version agree even with another hub process writing the file.
            let copy = try Connection(storageLocation: .inMemory)
            var definitions: [String] = []
            for table in request.tables {
                guard let sql: String = try connection.query(literal: """
                    SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = \(table) COLLATE NOCASE
                    """) else { throw SyncError.schemaMismatch(local: request.schemaFingerprint, remote: "no table \(table)") }
                definitions.append(sql)
            }
            for sql in definitions { try copy.execute(sql) }
            try copy.run("ATTACH DATABASE ? AS " + quoteIdentifier("space"), connection.fileName)
            defer { try? copy.execute("DETACH DATABASE " + quoteIdentifier("space")) }
            let (version, chain): (Int64, Int64?) = try copy.transaction {
                let version = try SyncLog(copy, schema: "space").currentVersion()
                for table in request.tables {
                    let columns = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map { quoteIdentifier($0.name) }
                        .joined(separator: ", ")
                    try copy.execute("INSERT INTO " + quoteIdentifier("main") + "." + quoteIdentifier(table) + "(" + columns + ") SELECT "
                                     + columns + " FROM " + quoteIdentifier("space") + "." + quoteIdentifier(table))
                }
                return (version, try SyncLog(connection).chain(at: version))
            }
            return SyncSnapshot(version: version, database: try copy.serialize(), chain: chain)
        }
    }

    /// Whether the history a replica pulled up to `after` (ending in `chain`) is not this hub's:
    /// the hub was restored from an older copy (and may have logged other changes since).
    static func rolledBack(after: Int64, chain: Int64?, replica: String, lastAcknowledged: Int64?,
                                   _ connection: Connection) throws -> Bool {
        if after > (try SyncLog(connection).currentVersion()) { return true }
        // The applied entries are never trimmed: a push this hub acknowledged and has no record of
        // was acknowledged by a copy it was restored over.
        if let sequence = lastAcknowledged, sequence > 0 {
            if try !SyncLog(connection).isApplied(replica: replica, sequence: sequence) { return true }
        }
        guard let chain, let known = try SyncLog(connection).chain(at: after) else { return false }
        return known != chain
    }
}
