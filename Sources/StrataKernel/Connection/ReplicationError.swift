import Foundation

/// Why something was refused beside a replicator such as Litestream: a setting it cannot follow,
/// a checkpoint that would break it, or a read replica that cannot open or be written.
///
/// One type for what were three (`ReplicationSafetyError`, `LitestreamReplicaError` and this);
/// the former names remain as aliases, so `catch let error as LitestreamReplicaError` and
/// `LitestreamReplicaError.writeRefused(replicaURL:)` still compile and match.
public enum ReplicationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A TRUNCATE or RESTART checkpoint was asked while Litestream's lock table exists.
    case checkpointWouldResetWAL(mode: String)
    /// A ``ReplicationSafety`` setting, or the database it was given, cannot be made safe for a
    /// replicator; the text says which and what to do.
    case unsafeSetting(String)
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
        case .checkpointWouldResetWAL(let mode):
            return
                "A \(mode) checkpoint would reset the WAL while Litestream replicates it (the database has _litestream_lock); run a PASSIVE checkpoint, let Litestream checkpoint, or pass force: true"
        case .unsafeSetting(let reason):
            return reason
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

extension ReplicationError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// The former name of ``ReplicationError`` for a read replica's errors.
public typealias LitestreamReplicaError = ReplicationError

/// The former name of ``ReplicationError`` for settings a replicator cannot follow
/// (``ReplicationError/unsafeSetting(_:)``).
public typealias ReplicationSafetyError = ReplicationError
