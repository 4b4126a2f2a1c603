// The core's part of Litestream's VFS: a Database opened on the `litestream` VFS refuses
// writes however it was opened (the module's composition hands the rule to Database). Loading the
// VFS for a read replica is StrataReplication's.
import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The `litestream` VFS as the kernel sees it: which paths it serves, and the replica URL it reads.
package enum LitestreamVFS {
    /// The URL the loaded VFS reads, once loaded.
    package static let loadedURL = Locked<String?>(nil)

    /// Refuses the writes of a Database opened on the `litestream` VFS, however it was opened:
    /// the rule the module's composition gives ``Database/writeRefusalRules``.
    package static func writeRefusal(path: String, flags: Int32) -> (any Error & Sendable)? {
        replicaURL(servingPath: path, flags: flags).map { ReplicationError.writeRefused(replicaURL: $0) }
    }

    /// The replica a database at `path` reads, when `path` is a URI on the `litestream` VFS: a
    /// Database opened there refuses writes, however it was opened.
    package static func replicaURL(servingPath path: String, flags: Int32) -> String? {
        guard flags & SQLITE_OPEN_URI != 0, path.hasPrefix("file:"),
            let query = path.split(separator: "?", maxSplits: 1).dropFirst().first,
            query.split(separator: "&").contains("vfs=litestream")
        else { return nil }
        return loadedURL.withLock { $0 } ?? launchEnvironment("LITESTREAM_REPLICA_URL") ?? "litestream"
    }

    /// The value `name` had in the environment this process started with: what the extension's
    /// Go runtime reads (it never sees a later `setenv`).
    package static func launchEnvironment(_ name: String) -> String? {
        #if os(Linux)
        if let block = FileManager.default.contents(atPath: "/proc/self/environ") {
            let prefix = Array((name + "=").utf8)
            for entry in block.split(separator: 0, omittingEmptySubsequences: true) where entry.starts(with: prefix) {
                return String(decoding: entry.dropFirst(prefix.count), as: UTF8.self)
            }
            return nil
        }
        #endif
        return getenv(name).map { String(cString: $0) }
    }
}
