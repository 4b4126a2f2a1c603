import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A point in the history of a WAL database (`sqlite3_snapshot`): a read transaction opened on
/// it sees the data exactly as it was when the snapshot was taken, on any connection to the
/// file, however many commits came since.
///
/// Take one with ``Connection/takeSnapshot(schema:)`` inside a read transaction, and read it
/// with ``Connection/openSnapshot(_:schema:)``; ``Database/readSnapshot()`` does both for a
/// ``Database`` and keeps the snapshot readable. Only a SQLite built with
/// `SQLITE_ENABLE_SNAPSHOT` has them (Debian's and Apple's libsqlite3 do not): elsewhere taking one
/// throws ``SQLiteLibraryError/snapshotsUnavailable``.
///
/// A snapshot stays openable while the WAL file still holds it: a checkpoint that copies the
/// whole WAL into the database and a write that then restarts the WAL end it (opening it fails
/// with `SQLITE_ERROR_SNAPSHOT`), unless some connection keeps a read transaction open on it,
/// as ``DatabaseSnapshot`` does.
public final class WALSnapshot: @unchecked Sendable, Comparable {
    // Immutable after init; SQLite only reads it (snapshot_open, snapshot_cmp), from any thread.
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SQLiteLibrary.snapshotFree?(pointer) }

    /// Whether both are the same point in the file's history.
    public static func == (lhs: WALSnapshot, rhs: WALSnapshot) -> Bool { compare(lhs, rhs) == 0 }

    /// Whether `lhs` was taken before `rhs` (`sqlite3_snapshot_cmp`); only meaningful for two
    /// snapshots of one database file while its WAL has not been restarted in between.
    public static func < (lhs: WALSnapshot, rhs: WALSnapshot) -> Bool { compare(lhs, rhs) < 0 }

    private static func compare(_ lhs: WALSnapshot, _ rhs: WALSnapshot) -> Int32 {
        // A snapshot exists only where the functions do.
        SQLiteLibrary.snapshotCompare?(lhs.pointer, rhs.pointer) ?? 0
    }
}

extension Connection {
    /// Takes a snapshot of `schema` as this connection's read transaction sees it
    /// (`sqlite3_snapshot_get`).
    ///
    /// The connection must be in WAL mode, inside a transaction that has read the database and
    /// written nothing:
    ///
    /// ```swift
    /// let snapshot = try connection.transaction(transactionType: .deferred) {
    ///     _ = try connection.query("SELECT count(*) FROM sqlite_master") as Int?
    ///     return try connection.takeSnapshot()
    /// }
    /// ```
    /// - Throws: ``SQLiteLibraryError/snapshotsUnavailable`` when the linked SQLite was built
    ///   without `SQLITE_ENABLE_SNAPSHOT`; `SQLiteError` when SQLite refuses (not WAL, no read
    ///   transaction, a write transaction).
    public func takeSnapshot(schema: String = "main") throws -> WALSnapshot {
        guard SQLiteLibrary.supportsSnapshots, let get = SQLiteLibrary.snapshotGet else {
            throw SQLiteLibraryError.snapshotsUnavailable
        }
        var pointer: OpaquePointer?
        let code = get(handle, schema, &pointer)
        guard code == SQLITE_OK, let pointer else {
            throw SQLiteError(handle: handle, code: code == SQLITE_OK ? SQLITE_ERROR : code)
        }
        return WALSnapshot(pointer: pointer)
    }

    /// Starts this connection's read of `schema` at `snapshot` (`sqlite3_snapshot_open`): the
    /// statements of the transaction see the data as it was when the snapshot was taken.
    ///
    /// Call it inside a transaction that has not read anything yet:
    ///
    /// ```swift
    /// let count = try connection.transaction(transactionType: .deferred) {
    ///     try connection.openSnapshot(snapshot)
    ///     return try connection.query("SELECT count(*) FROM book") as Int?
    /// }
    /// ```
    /// - Throws: ``SQLiteLibraryError/snapshotsUnavailable`` when the linked SQLite was built
    ///   without `SQLITE_ENABLE_SNAPSHOT`; `SQLiteError` `SQLITE_ERROR_SNAPSHOT` when the WAL no
    ///   longer holds the snapshot, other errors when SQLite refuses (no transaction, a read
    ///   already started).
    public func openSnapshot(_ snapshot: WALSnapshot, schema: String = "main") throws {
        guard SQLiteLibrary.supportsSnapshots, let open = SQLiteLibrary.snapshotOpen else {
            throw SQLiteLibraryError.snapshotsUnavailable
        }
        try check(open(handle, schema, snapshot.pointer))
    }
}
