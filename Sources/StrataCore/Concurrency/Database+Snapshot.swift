import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// One moment of a WAL ``Database``: every `read` on it sees the data as it was when
/// ``Database/readSnapshot()`` took it, while writes go on.
///
/// ```swift
/// let snapshot = try await database.readSnapshot()
/// try await database.write { db in try db.run("INSERT INTO book(title) VALUES(?)", "Emma") }
/// let before = try await snapshot.read { db in try db.query("SELECT count(*) FROM book") as Int? }
/// // `before` does not count Emma; any number of reads, in parallel on the reader pool, agree.
/// ```
///
/// The reads run on the database's reader pool, each in a transaction opened on the snapshot
/// (``Connection/openSnapshot(_:schema:)``). So that checkpoints never remove the snapshot from
/// the WAL file, the snapshot keeps one connection of its own (outside the pool) in a read
/// transaction until it is released: the WAL then grows until it is, as it does for any long
/// read. Keep a snapshot as long as its reads need it.
///
/// Needs a SQLite built with `SQLITE_ENABLE_SNAPSHOT` (Debian's and Apple's are not):
/// elsewhere ``Database/readSnapshot()`` throws ``SQLiteLibraryError/snapshotsUnavailable``.
public final class DatabaseSnapshot: Sendable {
    /// The snapshot itself, for ``Connection/openSnapshot(_:schema:)`` on a connection of your own.
    public let walSnapshot: WALSnapshot
    private let database: Database
    /// The connection whose open read keeps the snapshot in the WAL file.
    private let pin: ConnectionQueue

    init(database: Database, pin: ConnectionQueue, walSnapshot: WALSnapshot) {
        self.database = database
        self.pin = pin
        self.walSnapshot = walSnapshot
        database.snapshotPins.withLock { $0[ObjectIdentifier(self)] = pin }
    }

    deinit {
        // Ends the pinning read, so checkpoints may go past the snapshot; the connection closes
        // when its queue is released.
        _ = database.snapshotPins.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
        Self.endPinningRead(on: pin)
    }

    /// Rolls back the read that keeps a snapshot in the WAL (a no-op once done).
    static func endPinningRead(on pin: ConnectionQueue) {
        _ = try? pin.execute { connection in
            if connection.isInTransaction { try connection.withBookkeeping { try connection.execute("ROLLBACK") } }
        }
    }

    /// Runs `closure` on a reader, in a read transaction that sees the database as it was when
    /// the snapshot was taken; returns its value.
    /// - Throws: ``SQLiteError/closed`` after ``Database/close()``; `SQLiteError` when the
    ///   snapshot cannot be opened; what `closure` throws.
    public func read<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let walSnapshot = walSnapshot
        return try await database.readerPool.perform { connection in
            try connection.transaction(transactionType: .deferred) {
                try connection.openSnapshot(walSnapshot)
                return try closure(connection)
            }
        }
    }
}

extension Database {
    /// Takes a snapshot of the database as it is now, for several reads that must see the same
    /// data while writes go on (a report of several queries, an export in pages).
    ///
    /// Unlike a single `read`, whose queries share one transaction on one reader, the
    /// snapshot's reads may be separate calls, run in parallel on the reader pool.
    /// - Throws: ``SQLiteLibraryError/snapshotsUnavailable`` when the linked SQLite was built
    ///   without `SQLITE_ENABLE_SNAPSHOT`; `SQLiteError` when the database is not in WAL mode
    ///   (or is in memory); ``SQLiteError/closed`` after ``close()``.
    public func readSnapshot() async throws -> DatabaseSnapshot {
        guard SQLiteLibrary.supportsSnapshots else { throw SQLiteLibraryError.snapshotsUnavailable }
        // A database private to one connection (in memory) has no WAL file for readers to share.
        guard !readsUseWriter else {
            throw SQLiteError(code: SQLITE_ERROR, message: "a snapshot needs a database file in WAL mode, and this database is private to one connection")
        }
        let pin = try readerPool.openConnectionOutsidePool()
        // The pinning read is Strata's bookkeeping: out of the user's trace and authorizer.
        let walSnapshot = try await pin.perform { connection in
            try connection.withBookkeeping {
                try connection.execute("BEGIN DEFERRED")
                do {
                    // The first read starts the read transaction the snapshot is taken of.
                    try connection.execute("SELECT count(*) FROM main.sqlite_master")
                    return try connection.takeSnapshot()
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
        }
        let snapshot = DatabaseSnapshot(database: self, pin: pin, walSnapshot: walSnapshot)
        // A close() that began while the snapshot was being taken may have swept the pins
        // before this one was registered, and would then checkpoint against its open read
        // (SQLITE_BUSY after the busy timeout). Checked after registering: releasing the
        // snapshot here ends its read, so that checkpoint goes through.
        if closing.withLock({ $0 != nil }) { throw DatabaseError.closed }
        return snapshot
    }
}
