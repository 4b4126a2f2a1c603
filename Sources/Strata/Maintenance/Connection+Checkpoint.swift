// Maintenance: WAL checkpoints and online backups of a connection's databases.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Asked before each unforced checkpoint with the database's schema name (`main` or an
    /// attached name) and the mode; throws to refuse it. A tool beside the application that a
    /// checkpoint could harm (a WAL replicator) supplies one through the module's composition
    /// (`Strata.swift`, ``checkpointGuards``), so this folder names none of them.
    package typealias CheckpointGuard = @Sendable (_ connection: Connection, _ schema: String, _ mode: CheckpointMode) throws -> Void

    /// How a WAL checkpoint treats readers and writers. See <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>.
    public enum CheckpointMode: Sendable {
        /// `passive` copies what it can without waiting; `full` waits for the writer and for readers
        /// of older snapshots so every frame is copied; `restart` also waits until no reader uses the
        /// WAL, so the next writer starts it over; `truncate` also truncates the WAL file to 0 bytes.
        case passive, full, restart, truncate

        var code: Int32 {
            switch self {
            case .passive: return SQLITE_CHECKPOINT_PASSIVE
            case .full: return SQLITE_CHECKPOINT_FULL
            case .restart: return SQLITE_CHECKPOINT_RESTART
            case .truncate: return SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// Frames in the WAL, and how many of them were moved into the database.
    public struct CheckpointResult: Sendable, Equatable {
        /// The number of frames in the write-ahead log after the checkpoint.
        public let logFrames: Int
        /// The number of WAL frames copied into the database file.
        public let checkpointedFrames: Int
    }

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
        if !force {
            for refuseIfUnsafe in Connection.checkpointGuards { try refuseIfUnsafe(self, attachedDatabaseName ?? "main", mode) }
        }
        var logFrames: Int32 = 0
        var checkpointedFrames: Int32 = 0
        try check(sqlite3_wal_checkpoint_v2(handle, attachedDatabaseName, mode.code, &logFrames, &checkpointedFrames))
        let result = CheckpointResult(logFrames: Int(logFrames), checkpointedFrames: Int(checkpointedFrames))
        if let eventHandler {
            eventHandler.checkpointDidFinish(DatabaseCheckpointEvent(
                mode: mode, result: result, walSizeBytes: walFileSize, connection: self, context: eventContext
            ))
        }
        return result
    }
}
