import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Called with how many times the lock has been retried; returns true to retry, false to fail with `SQLITE_BUSY`.
    public typealias CustomBusyHandler = (Int32) -> Bool

    /// What happens when another connection holds a lock this one needs (`SQLITE_BUSY`).
    public enum BusyHandler {
        /// Retry for up to this many seconds, then fail with `SQLITE_BUSY` ("database is locked").
        case timeout(TimeInterval)
        /// Called with the number of retries so far; return true to retry, false to fail.
        case custom(CustomBusyHandler)
        /// Fail at once (SQLite's default).
        case defaultBehavior

        /// A timeout in whole milliseconds for `sqlite3_busy_timeout`: negative and NaN give 0
        /// (fail at once), infinite and huge intervals the longest SQLite takes (`Int32.max`
        /// milliseconds, about 24.8 days), so no interval traps.
        package static func milliseconds(_ seconds: TimeInterval) -> Int32 {
            guard seconds > 0 else { return 0 } // also NaN
            let milliseconds = (seconds * 1000).rounded()
            return milliseconds >= Double(Int32.max) ? Int32.max : Int32(milliseconds)
        }
    }

    /// Sets how the connection waits on locks held by other connections.
    ///
    /// ```swift
    /// try connection.busyHandler(.timeout(1.0))
    /// ```
    /// Any interval is accepted: negative and NaN mean no wait, infinite and huge ones wait up
    /// to `Int32.max` milliseconds.
    /// - Throws: `SQLiteError` when SQLite refuses the handler.
    public func busyHandler(_ handler: BusyHandler) throws {
        var custom: CustomBusyHandler?
        if case .custom(let closure) = handler { custom = closure }
        try registerCallback("busy", custom) { handle, pointer in
            switch handler {
            case .defaultBehavior, .custom:
                try check(
                    sqlite3_busy_handler(
                        handle,
                        pointer.map { _ in
                            { pointer, count in
                                guard let pointer else { return 0 }
                                return CallbackBox<CustomBusyHandler>.from(pointer)(count) ? 1 : 0
                            }
                        }, pointer))
            case .timeout(let seconds):
                try check(sqlite3_busy_timeout(handle, BusyHandler.milliseconds(seconds)))
            }
        }
    }
}
