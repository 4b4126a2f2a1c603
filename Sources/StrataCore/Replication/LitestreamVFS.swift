// The kernel's part of Litestream's VFS: a Database opened on the `litestream` VFS refuses
// writes however it was opened (the module's composition hands the rule to Database). Loading the
// VFS for a read replica is StrataReplication's.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Why a Litestream replica could not be opened or used.
public enum LitestreamReplicaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A write was asked of a ``Database`` that reads a replica.
    case writeRefused(replicaURL: String)
    /// The URL has no scheme Litestream serves (`file`, `s3`, `gs`, `abs`, `sftp`, `webdav`,
    /// `nats`, `oss`).
    case invalidURL(String, reason: String)
    /// A `file://` replica folder holds no snapshot yet (opening would wait for one forever).
    case noSnapshot(replicaURL: String)
    /// The process did not start with `LITESTREAM_REPLICA_URL` set to the replica URL.
    case notInEnvironment(replicaURL: String, found: String?)
    /// litestream-vfs is already in this process for another replica URL.
    case anotherReplicaLoaded(loaded: String, requested: String)
    /// The extension loaded but registered no `litestream` VFS.
    case vfsMissing(extensionPath: String)

    /// A sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case .writeRefused(let url):
            return "This Database reads the Litestream replica \(url) and cannot write; write to the primary database"
        case .invalidURL(let url, let reason):
            return "\"\(url)\" is not a Litestream replica URL: \(reason)"
        case .noSnapshot(let url):
            return "The replica \(url) has no snapshot yet; start `litestream replicate` on the primary and wait for its first sync"
        case .notInEnvironment(let url, let found):
            let had = found.map { "it started with \"\($0)\"" } ?? "it started without it"
            return
                "litestream-vfs reads LITESTREAM_REPLICA_URL from the environment the process started with; start the process with LITESTREAM_REPLICA_URL=\(url) (\(had))"
        case .anotherReplicaLoaded(let loaded, let requested):
            return "litestream-vfs reads one replica URL per process and this process already reads \(loaded); cannot also open \(requested)"
        case .vfsMissing(let path):
            return "\(path) loaded but registered no \"litestream\" VFS; is it litestream-vfs?"
        }
    }
}

/// The `litestream` VFS as the kernel sees it: which paths it serves, and the replica URL it reads.
package enum LitestreamVFS {
    /// The URL the loaded VFS reads, once loaded.
    package static let loadedURL = Locked<String?>(nil)

    /// Refuses the writes of a Database opened on the `litestream` VFS, however it was opened:
    /// the rule the module's composition gives ``Database/writeRefusalRules``.
    package static func writeRefusal(path: String, flags: Int32) -> (any Error & Sendable)? {
        replicaURL(servingPath: path, flags: flags).map { LitestreamReplicaError.writeRefused(replicaURL: $0) }
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

extension LitestreamReplicaError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
