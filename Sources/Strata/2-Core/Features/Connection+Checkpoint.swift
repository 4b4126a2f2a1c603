import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
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
        var logFrames: Int32 = 0
        var checkpointedFrames: Int32 = 0
        try check(sqlite3_wal_checkpoint_v2(handle, attachedDatabaseName, mode.code, &logFrames, &checkpointedFrames))
        return CheckpointResult(logFrames: Int(logFrames), checkpointedFrames: Int(checkpointedFrames))
    }
}
