// The connection options SQift's initializers take (where the database lives, the SQL type).

import Foundation

/// The SQL string type used throughout SQift's API.
public typealias SQL = String

/// Where a connection's database lives.
///
/// ```swift
/// let disk = try Connection(storageLocation: .onDisk("/tmp/app.sqlite"))   // import StrataSQift
/// let memory = try Connection(storageLocation: .inMemory)
/// ```
public enum StorageLocation: Sendable, Hashable {
    /// A database file at this path (created if missing unless the connection is read-only).
    case onDisk(String)
    /// A private database in memory (`":memory:"`), gone when the connection closes.
    case inMemory
    /// A private temporary database on disk (`""`), deleted when the connection closes.
    case temporary

    /// An in-memory database shared by every connection in this process that opens the same
    /// `name`, gone when the last of them closes.
    ///
    /// ```swift
    /// let database = try Database(path: Database.inMemoryPath(named: "cache"))
    /// ```
    /// Each connection opens the URI `file:/NAME?vfs=memdb` (SQLite's `memdb` VFS, 3.36 and
    /// later), so a `Database`'s writer and readers share the data: readers wait for a committing
    /// writer through the busy timeout, as with a file in rollback-journal mode (a memory
    /// database has no WAL). Different names are different databases. The name is
    /// percent-escaped, so any text is a valid name.
    public static func namedInMemory(_ name: String) -> StorageLocation {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let escaped = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
        return .onDisk(OpenFlags.namedInMemoryPrefix + escaped + OpenFlags.namedInMemorySuffix)
    }

    /// The path handed to `sqlite3_open_v2`.
    public var path: String {
        switch self {
        case .onDisk(let path): return path
        case .inMemory: return ":memory:"
        case .temporary: return ""
        }
    }
}
