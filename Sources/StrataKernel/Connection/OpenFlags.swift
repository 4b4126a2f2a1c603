// The one place where `sqlite3_open_v2` flags are put together and a path becomes what SQLite
// opens: `Connection`, `Database` and its readers, Squeal's `Database(path:)`, the ORM's
// `Storage(filename:)` and the CLI all come here.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Builds `sqlite3_open_v2` flags from SQift's conveniences.
package enum OpenFlags {
    /// `READONLY`, or `READWRITE` (with `CREATE` when `create`); `NOMUTEX` (one thread at a
    /// time, Strata's default) or `FULLMUTEX`; `SHAREDCACHE` or `PRIVATECACHE`.
    package static func make(readOnly: Bool = false, create: Bool = true, multiThreaded: Bool = true, sharedCache: Bool = false) -> Int32 {
        var flags: Int32 = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        flags |= multiThreaded ? SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_FULLMUTEX
        flags |= sharedCache ? SQLITE_OPEN_SHAREDCACHE : SQLITE_OPEN_PRIVATECACHE
        return flags
    }

    /// A writer's flags turned into a reader's: `READONLY` instead of `READWRITE | CREATE`, the
    /// rest (mutex, cache, URI) kept.
    package static func reader(from writerFlags: Int32) -> Int32 {
        (writerFlags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY
    }

    /// The path to hand `sqlite3_open_v2`: without `SQLITE_OPEN_URI`, a relative path beginning
    /// with `file:` gets a `./`, so that a SQLite built with `SQLITE_USE_URI` does not parse it.
    static func openPath(_ path: String, flags: Int32) -> String {
        flags & SQLITE_OPEN_URI == 0 && path.hasPrefix("file:") ? "./" + path : path
    }

    /// What a ``StorageLocation/namedInMemory(_:)`` path starts and ends with.
    package static let namedInMemoryPrefix = "file:/"
    static let namedInMemorySuffix = "?vfs=memdb"

    /// `flags` with `SQLITE_OPEN_URI` added when `path` is a named in-memory database's URI,
    /// which only opens as a URI.
    package static func adding(uriFlagFor path: String, to flags: Int32) -> Int32 {
        path.hasPrefix(namedInMemoryPrefix) && path.hasSuffix(namedInMemorySuffix) ? flags | SQLITE_OPEN_URI : flags
    }

    /// Whether every connection to `path` gets a database of its own (in memory or temporary),
    /// so that a second connection cannot read what the first wrote.
    package static func isPrivateToEachConnection(path: String, flags: Int32) -> Bool {
        path == ":memory:" || path.isEmpty || (flags & SQLITE_OPEN_URI != 0 && path.contains("mode=memory"))
    }
}

extension StorageLocation {
    /// The location SQLite's own path conventions name: `":memory:"` in memory, `""` a
    /// temporary file, anything else a file path.
    package init(path: String) {
        switch path {
        case ":memory:": self = .inMemory
        case "": self = .temporary
        default: self = .onDisk(path)
        }
    }
}
