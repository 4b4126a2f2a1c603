import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    public typealias CustomBusyHandler = (Int32) -> Bool

    /// What happens when another connection holds a lock this one needs (`SQLITE_BUSY`).
    public enum BusyHandler {
        /// Retry for up to this many seconds, then fail with `SQLITE_BUSY` ("database is locked").
        case timeout(TimeInterval)
        /// Called with the number of retries so far; return true to retry, false to fail.
        case custom(CustomBusyHandler)
        /// Fail at once (SQLite's default).
        case defaultBehavior
    }

    /// How a WAL checkpoint treats readers and writers. See <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>.
    public enum CheckpointMode: Sendable {
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
        public let logFrames: Int
        public let checkpointedFrames: Int
    }

    /// Sets how the connection waits on locks held by other connections.
    ///
    /// ```swift
    /// try connection.busyHandler(.timeout(1.0))
    /// ```
    public func busyHandler(_ handler: BusyHandler) throws {
        var custom: CustomBusyHandler?
        if case .custom(let closure) = handler { custom = closure }
        try registerCallback("busy", custom) { handle, pointer in
            switch handler {
            case .defaultBehavior, .custom:
                try check(sqlite3_busy_handler(handle, pointer.map { _ in { pointer, count in
                    guard let pointer else { return 0 }
                    return CallbackBox<CustomBusyHandler>.from(pointer)(count) ? 1 : 0
                } }, pointer))
            case .timeout(let seconds):
                try check(sqlite3_busy_timeout(handle, Int32(clamping: Int64((max(0, seconds) * 1000).rounded()))))
            }
        }
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
