// The connection options SQift's initializers take (where the database lives, the SQL type).

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
