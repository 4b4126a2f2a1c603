// The tables Litestream keeps in the database it replicates (`_litestream_seq`,
// `_litestream_lock`): they are not the application's, and while the lock table exists a
// checkpoint that resets the WAL would break replication. The module's composition (Strata.swift)
// hands both facts to the kernel's reader and to Maintenance's checkpoint.
import Foundation

/// Litestream's tables in the application's database.
enum LitestreamTables {
    /// The prefix of every table Litestream creates (lowercase).
    static let prefix = "_litestream_"
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
        if schema == "main" { return try connection.schemaReader.table(named: lockTable) != nil }
        return try connection.withBookkeeping {
            try connection.withStatement(
                cachedFor: "SELECT 1 FROM \(quoteIdentifier(schema)).sqlite_master WHERE type = 'table' AND name = '\(lockTable)'",
                .positional([])
            ) { try $0.step() }
        }
    }
}
