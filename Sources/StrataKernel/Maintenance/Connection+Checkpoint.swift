// Maintenance: WAL checkpoints and online backups of a connection's databases.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Asked before each unforced checkpoint with the database's schema name (`main` or an
    /// attached name) and the mode; throws to refuse it, for a tool beside the application that a
    /// checkpoint could harm (a WAL replicator).
    package typealias CheckpointGuard = @Sendable (_ connection: Connection, _ schema: String, _ mode: CheckpointMode) throws -> Void

    /// What an unforced checkpoint asks first. A constant in the kernel, so every connection is
    /// guarded whichever module opened it.
    package static let checkpointGuards: [CheckpointGuard] = [{ try LitestreamTables.refuseWALReset(on: $0, schema: $1, mode: $2) }]

    /// Checkpoints a WAL database (all attached databases when the name is nil).
    ///
    /// ```swift
    /// let result = try connection.checkpoint(mode: .truncate)
    /// ```
    /// - Throws: `SQLITE_BUSY` when readers or writers keep a full, restart or truncate checkpoint
    ///   from completing (after the busy handler gives up).
    public func checkpoint(attachedDatabaseName: String? = "main", mode: CheckpointMode = .truncate) throws -> CheckpointResult {
        try checkpoint(attachedDatabaseName: attachedDatabaseName, mode: mode, force: false)
    }

    /// ``checkpoint(attachedDatabaseName:mode:)``, with `force` to run a TRUNCATE or RESTART
    /// checkpoint even while a replicator such as Litestream runs beside the application.
    ///
    /// Litestream reads the WAL to replicate it and keeps a lock table (`_litestream_lock`) in the
    /// database; a TRUNCATE or RESTART checkpoint of the application's resets the WAL under it
    /// (Litestream issue #724). So while that table exists those modes throw
    /// ``ReplicationError/checkpointWouldResetWAL(mode:)`` unless `force` is true; PASSIVE and
    /// FULL checkpoints always run.
    /// - Throws: ``ReplicationError``; `SQLiteError` from SQLite.
    public func checkpoint(attachedDatabaseName: String? = "main", mode: CheckpointMode, force: Bool) throws -> CheckpointResult {
        if !force { try refuseUnsafeCheckpoint(attachedDatabaseName: attachedDatabaseName, mode: mode) }
        var logFrames: Int32 = 0
        var checkpointedFrames: Int32 = 0
        try CheckpointLocks.holding(try checkpointedFiles(attachedDatabaseName)) {
            try check(sqlite3_wal_checkpoint_v2(handle, attachedDatabaseName, mode.code, &logFrames, &checkpointedFrames))
        }
        let result = CheckpointResult(logFrames: Int(logFrames), checkpointedFrames: Int(checkpointedFrames))
        if !observers.isEmpty { notifyCheckpointFinished(mode: mode, result: result) }
        return result
    }
}

extension Connection {
    /// Throws what an unforced checkpoint in `mode` would throw before it runs (a replicator's
    /// refusal), so a caller can ask before running other checkpoints first.
    func refuseUnsafeCheckpoint(attachedDatabaseName: String? = "main", mode: CheckpointMode) throws {
        for refuseIfUnsafe in Connection.checkpointGuards { try refuseIfUnsafe(self, attachedDatabaseName ?? "main", mode) }
    }
}

extension Connection {
    /// A checkpoint of `main` whose result says how many frames it wrote back, also for TRUNCATE:
    /// a TRUNCATE that succeeds has reset the WAL, so SQLite reports it as "0 of 0 frames" however
    /// many it copied. Here a PASSIVE checkpoint first copies the frames and counts them, and the
    /// TRUNCATE then empties the WAL; the result is the frames the WAL held, all written back.
    /// Other modes report as ``checkpoint(attachedDatabaseName:mode:force:)``.
    /// - Throws: as ``checkpoint(attachedDatabaseName:mode:force:)``, before anything runs when a
    ///   guard refuses the TRUNCATE.
    package func checkpointCountingFrames(mode: CheckpointMode, force: Bool = false) throws -> CheckpointResult {
        guard mode == .truncate else { return try checkpoint(mode: mode, force: force) }
        if !force { try refuseUnsafeCheckpoint(mode: mode) }
        let counted = try checkpoint(mode: .passive, force: true)
        // Not a WAL database (-1): nothing to truncate either.
        guard counted.logFrames >= 0 else { return counted }
        _ = try checkpoint(mode: .truncate, force: true) // the guards were asked above
        return CheckpointResult(logFrames: counted.logFrames, checkpointedFrames: counted.logFrames)
    }

    /// The files a checkpoint of `schema` (every attached database when nil) touches; in-memory
    /// and temporary databases have none.
    fileprivate func checkpointedFiles(_ schema: String?) throws -> [String] {
        if let schema {
            return [sqlite3_db_filename(handle, schema).map { String(cString: $0) } ?? ""].filter { !$0.isEmpty }
        }
        return try withBookkeeping { () -> [String] in
            // `PRAGMA database_list`, not its table form (see `requireSchema` in serialization).
            let statement = try Statement(connection: self, sql: "PRAGMA database_list")
            var files: [String] = []
            while let row = try statement.query() {
                if let file = row.value(at: 2) as? String, !file.isEmpty { files.append(file) }
            }
            return files
        }
    }
}

/// One lock per database file for the whole process, held around every checkpoint a Strata
/// connection runs: SQLite before 3.51.3 can corrupt a WAL database when two connections
/// checkpoint while one writes (the WAL-reset bug), so Strata's connections never checkpoint the
/// same file at once. Other processes, and checkpoints SQLite runs by itself, are not covered.
enum CheckpointLocks {
    private static let locks = Locked<[String: NSLock]>([:])

    /// Runs `body` holding the lock of each of `files` (taken in sorted order, so two callers
    /// never wait on each other crosswise).
    @discardableResult
    static func holding<T>(_ files: [String], _ body: () throws -> T) throws -> T {
        let held = Set(files).sorted().map { file in
            locks.withLock { locks -> NSLock in
                if let lock = locks[file] { return lock }
                let lock = NSLock()
                locks[file] = lock
                return lock
            }
        }
        for lock in held { lock.lock() }
        defer { for lock in held.reversed() { lock.unlock() } }
        return try body()
    }
}

extension Connection {
    /// The version of the SQLite library in use (`sqlite3_libversion`).
    package static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// The first SQLite without the WAL-reset bug.
    static let walResetFixedVersion: Int32 = 3_051_003

    /// A sentence for SQLite older than 3.51.3, which can corrupt a WAL database when two
    /// connections checkpoint and write at once; nil for a fixed SQLite.
    package static var walResetBugWarning: String? {
        guard sqlite3_libversion_number() < walResetFixedVersion else { return nil }
        return
            "SQLite \(sqliteVersion) is older than 3.51.3 and has the WAL-reset bug (3.7.0 to 3.51.2: a WAL database can be corrupted, very rarely, when one connection checkpoints right after another's checkpoint while a third commits, in threads or processes); Strata serializes its own checkpoints of a file within a process, not across processes or tools: where several processes write one file, use SQLite 3.51.3 or later"
    }
}
