import Foundation

/// What a connection does when SQLite reports a table lock (`SQLITE_LOCKED`), which happens with a
/// shared cache when another connection holds a lock on a table.
///
/// ```swift
/// let connection = try Connection(storageLocation: location, tableLockPolicy: .poll(0.01))
/// ```
public enum TableLockPolicy: Sendable, Equatable {
    /// Sleep this many seconds and retry `execute`, `prepare` or `step` until the lock is released.
    case poll(TimeInterval)
    /// Throw the `SQLITE_LOCKED` error at once.
    case fastFail

    /// The polling interval in microseconds, or nil for `.fastFail`: clamped to 0...60 seconds,
    /// NaN taken as 0, so no interval can trap.
    var pollIntervalMicroseconds: UInt32? {
        guard case .poll(let interval) = self else { return nil }
        guard interval > 0 else { return 0 } // also NaN
        return UInt32(min(interval, 60) * 1_000_000)
    }
}
