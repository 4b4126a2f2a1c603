// Replication: running beside Litestream (safety settings, its tables, read replicas over its VFS).
// Running under an external replicator (Litestream): what a Database must do so the replicator
// can follow the WAL. Litestream's issues #218 ("database is locked"), #724 (a RESTART checkpoint
// that hung) and #1536 (autocheckpoint defeated) all came from the application side.
import Foundation
import StrataCore

extension Database {
    /// Opens a database configured, in one call, to run safely under Litestream or another WAL
    /// replicator; see ``ReplicationSafety``.
    ///
    /// ```swift
    /// let database = try Database(storageLocation: .onDisk("app.sqlite"), replicationSafety: .litestream)   // now: Configuration.replicationSafety
    /// ```
    /// - Throws: ``ReplicationSafetyError`` for an in-memory or temporary database (nothing to
    ///   replicate) or one that cannot switch to WAL; `SQLiteError` when it cannot be opened.
    @available(*, deprecated, message: "set Database.Configuration.replicationSafety and open Database(path:configuration:)")
    public convenience init(
        storageLocation: StorageLocation,
        replicationSafety: ReplicationSafety,
        maximumReaderCount: Int = ConnectionPool.defaultMaximumConnectionCount,
        extensions: [String] = [],
        writerConnectionPreparation: ((Connection) throws -> Void)? = nil,
        readerConnectionPreparation: ((Connection) throws -> Void)? = nil
    ) throws {
        guard case .onDisk(let path) = storageLocation, !OpenFlags.isPrivateToEachConnection(path: path, flags: 0) else {
            throw ReplicationSafetyError(description: "replication needs a database file; \(storageLocation) lives in one connection's memory")
        }
        let safety = replicationSafety
        guard safety.busyTimeout >= 0, safety.busyTimeout.isFinite else {
            throw ReplicationSafetyError(description: "the busy timeout must be a finite number of seconds, not \(safety.busyTimeout)")
        }
        if case .everyPages(let pages) = safety.automaticCheckpoints, pages <= 0 {
            throw ReplicationSafetyError(description: "automatic checkpoints need a positive page count, not \(pages); use .off to turn them off")
        }
        try self.init(
            location: storageLocation, tableLockPolicy: .fastFail, flags: OpenFlags.make(), drainDelay: 1.0,
            maximumReaderCount: maximumReaderCount,
            extensions: extensions,
            writerConnectionPreparation: { writer in
                try writer.busyHandler(.timeout(safety.busyTimeout))
                let mode: String? = try writer.query("PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw ReplicationSafetyError(
                        description:
                            "the database stays in \(mode ?? "an unknown") journal mode, and a replicator follows the WAL: close other connections that hold it in another mode"
                    )
                }
                switch safety.automaticCheckpoints {
                case .sqliteDefault: try writer.execute("PRAGMA wal_autocheckpoint = 1000")
                case .everyPages(let pages): try writer.run("PRAGMA wal_autocheckpoint = \(pages)")
                case .off: try writer.execute("PRAGMA wal_autocheckpoint = 0")
                }
                try writer.execute("PRAGMA synchronous = NORMAL")
                writer.beginsDeferredTransactionsImmediately = true
                try writerConnectionPreparation?(writer)
            },
            readerConnectionPreparation: { reader in
                try reader.busyHandler(.timeout(safety.busyTimeout))
                try readerConnectionPreparation?(reader)
            }
        )
    }
}
