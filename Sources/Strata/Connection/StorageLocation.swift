import Foundation

/// The SQL string type used throughout SQift's API.
public typealias SQL = String

/// Where a connection's database lives.
///
/// ```swift
/// let disk = try Connection(storageLocation: .onDisk("/tmp/app.sqlite"))
/// let memory = try Connection(storageLocation: .inMemory)
/// ```
public enum StorageLocation: Sendable, Hashable {
    /// A database file at this path (created if missing unless the connection is read-only).
    case onDisk(String)
    /// A private database in memory (`":memory:"`), gone when the connection closes.
    case inMemory
    /// A private temporary database on disk (`""`), deleted when the connection closes.
    case temporary

    /// The path handed to `sqlite3_open_v2`.
    public var path: String {
        switch self {
        case .onDisk(let path): return path
        case .inMemory: return ":memory:"
        case .temporary: return ""
        }
    }
}

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

    /// The polling interval in microseconds, or nil for `.fastFail`.
    var pollIntervalMicroseconds: UInt32? {
        guard case .poll(let interval) = self else { return nil }
        return UInt32(max(0, min(interval, 60)) * 1_000_000)
    }
}
