// The tables Litestream keeps in the database it replicates (`_litestream_seq`,
// `_litestream_lock`): they are not the application's, and while the lock table exists a
// checkpoint that resets the WAL would break replication. The checkpoint asks it here, in the
// kernel, so every connection is guarded whichever module opened it; the schema reader leaves
// the tables out by their prefix.
import Foundation

/// Litestream's tables in the application's database.
package enum LitestreamTables {
    /// The prefix of every table Litestream creates (lowercase).
    package static let prefix = "_litestream_"
    /// The table whose presence says Litestream replicates the database.
    static let lockTable = "_litestream_lock"

    /// Refuses a TRUNCATE or RESTART checkpoint of `schema` while Litestream's lock table is
    /// there: it would reset the WAL Litestream is reading (Litestream issue #724).
    /// - Throws: ``ReplicationError/checkpointWouldResetWAL(mode:)``.
    static func refuseWALReset(on connection: Connection, schema: String, mode: Connection.CheckpointMode) throws {
        guard mode == .truncate || mode == .restart, try hasLockTable(in: schema, on: connection) else { return }
        throw ReplicationError.checkpointWouldResetWAL(mode: mode == .truncate ? "TRUNCATE" : "RESTART")
    }

    /// Whether the lock table is in the database `schema` (`main` or an attached name).
    static func hasLockTable(in schema: String, on connection: Connection) throws -> Bool {
        // A query of the schema's catalog rather than the schema reader (a layer above): a
        // checkpoint is rare, and the statement is cached. Names match as SQLite matches them,
        // ASCII case folded.
        return try connection.withBookkeeping {
            try connection.withStatement(
                cachedFor: "SELECT 1 FROM \(quoteIdentifier(schema)).sqlite_master WHERE type = 'table' AND name = '\(lockTable)' COLLATE NOCASE",
                .positional([])
            ) { try $0.step() }
        }
    }
}
