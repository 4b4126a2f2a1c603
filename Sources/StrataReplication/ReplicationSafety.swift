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
    /// - Throws: ``ReplicationError`` for an in-memory or temporary database (nothing to
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
        let safety = replicationSafety
        try safety.validate(path: storageLocation.path)
        try self.init(
            location: storageLocation, tableLockPolicy: .fastFail, flags: OpenFlags.make(), drainDelay: 1.0,
            maximumReaderCount: maximumReaderCount,
            extensions: extensions,
            writerConnectionPreparation: { writer in
                try writer.busyHandler(.timeout(safety.busyTimeout))
                try safety.prepareWriter(writer)
                try writerConnectionPreparation?(writer)
            },
            readerConnectionPreparation: { reader in
                try reader.busyHandler(.timeout(safety.busyTimeout))
                try readerConnectionPreparation?(reader)
            }
        )
    }
}
