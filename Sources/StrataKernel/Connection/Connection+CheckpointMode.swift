// The values that describe a WAL checkpoint: kept in the kernel because a connection's event
// handler hears of checkpoints (``DatabaseCheckpointEvent``); Maintenance runs them.
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
    ///
    /// SQLite reports the WAL as it is after the checkpoint: once a TRUNCATE checkpoint has emptied
    /// it, both counts are 0, however many frames it wrote back (run a PASSIVE checkpoint first to
    /// count them).
    public struct CheckpointResult: Sendable, Equatable {
        /// The number of frames in the write-ahead log after the checkpoint.
        public let logFrames: Int
        /// The number of WAL frames copied into the database file.
        public let checkpointedFrames: Int
    }
}
