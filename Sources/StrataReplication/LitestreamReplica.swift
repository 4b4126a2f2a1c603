// A read replica: a Database that reads a Litestream replica (a file:// folder, S3, ...) through
// Litestream's VFS extension, litestream-vfs, without restoring it to local disk.
//
// Two facts about litestream-vfs 0.5.17 shape this file. Its replica URL is read from
// LITESTREAM_REPLICA_URL in the environment the process started with (its Go runtime never sees
// a later setenv), so a process reads one replica URL, named before it starts. And it registers
// a process-wide automatic extension that fails every later connection not on its VFS
// ("automatic extension loading failed"), so Strata removes it at once, behind the open gate.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

extension LitestreamVFS {
    static let schemes: Set<String> = ["file", "s3", "gs", "abs", "sftp", "webdav", "nats", "oss"]
    /// Checks what can be checked before the extension reads the URL.
    static func validate(_ url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw ReplicationError.invalidURL(url, reason: "it needs a scheme such as file:// or s3://")
        }
        guard schemes.contains(scheme) else {
            throw ReplicationError.invalidURL(url, reason: "Litestream serves \(schemes.sorted().joined(separator: ", ")), not \(scheme)")
        }
        if scheme == "file" {
            let folder = URL(fileURLWithPath: components.path).appendingPathComponent("ltx")
            let levels = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let hasSnapshot = levels.contains { level in
                let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(level).path)) ?? []
                return files.contains { $0.hasSuffix(".ltx") }
            }
            guard hasSnapshot else { throw ReplicationError.noSnapshot(replicaURL: url) }
        }
    }

    /// Makes sure the `litestream` VFS reads `url`, loading the extension at `path` if this process
    /// has not yet.
    static func load(extensionPath path: String, replicaURL url: String) throws {
        try loadedURL.withLock { loaded in
            if let loaded {
                guard loaded == url else { throw ReplicationError.anotherReplicaLoaded(loaded: loaded, requested: url) }
                return
            }
            try validate(url)
            let launched = launchEnvironment("LITESTREAM_REPLICA_URL")
            guard launched == url else { throw ReplicationError.notInEnvironment(replicaURL: url, found: launched) }
            guard FileManager.default.fileExists(atPath: path) else { throw ExtensionError.fileNotFound(path: path) }
            let loader = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
            try OpenGate.changingAutomaticExtensions {
                // The extension registers itself as an automatic extension; it must not run
                // again in every connection opened later. Apple deprecates the call, and its
                // SQLite loads no extensions, so nothing is registered there to undo.
                #if !canImport(Darwin)
                defer { sqlite3_reset_auto_extension() }
                #endif
                try loader.loadExtension(at: path, entryPoint: "sqlite3_litestreamvfs_init")
            }
            guard sqlite3_vfs_find("litestream") != nil else { throw ReplicationError.vfsMissing(extensionPath: path) }
            loaded = url
        }
    }
}

extension Database {
    /// The Litestream replica URL this database reads, when it reads one (then writes throw
    /// ``ReplicationError/writeRefused(replicaURL:)``).
    public var replicaURL: String? {
        guard case .writeRefused(let url)? = writeRefusal as? ReplicationError else { return nil }
        return url
    }

    /// Opens a read-only database over a Litestream replica, read through Litestream's VFS
    /// extension (`litestream-vfs.so`, from PyPI's `litestream-vfs` or Litestream's releases).
    ///
    /// ```swift
    /// let replica = try Database(replicaOf: "s3://my-bucket/app.db", litestreamVFS: "/opt/litestream/litestream-vfs.so")
    /// let count = try replica.read { try $0.query("SELECT count(*) FROM orders") as Int? }
    /// ```
    /// Reads see the primary's commits a moment after Litestream ships them (the VFS polls the
    /// replica about once a second); a read transaction sees one consistent state. Every write
    /// (`write`, `writeWithoutTransaction`, ``writeInTransaction(transactionType:_:)``)
    /// throws ``ReplicationError/writeRefused(replicaURL:)``, and the connections are opened
    /// read-only besides. `observe(externalChanges:_:)` hears the primary's commits as they arrive.
    ///
    /// litestream-vfs reads its replica URL from `LITESTREAM_REPLICA_URL` in the environment the
    /// process started with, so start the process with it set to `replicaURL`
    /// (`LITESTREAM_REPLICA_URL=s3://my-bucket/app.db ./reader`); a process reads one replica. Its
    /// other settings come from that environment too (`AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `LITESTREAM_S3_ENDPOINT`, ...). Its SQL functions
    /// (`litestream_lag()` and the time travel ones) are not available on Strata's connections:
    /// the automatic extension that would add them breaks every other connection in the process,
    /// so the first replica to open clears SQLite's list of automatic extensions (register your
    /// own after it).
    /// - Parameters:
    ///   - replicaURL: the replica, as Litestream names it: `file:///backups/app`, `s3://bucket/path`, ...
    ///   - litestreamVFS: the path of the `litestream-vfs` shared library.
    ///   - maximumReaderCount: how many reads run at once.
    ///   - readerConnectionPreparation: runs on each connection after it opens.
    /// - Throws: ``ReplicationError`` for a URL it cannot serve, a `file://` replica without a
    ///   snapshot, a process not started with the URL, or a second replica URL in the process; ``ExtensionError`` when the extension
    ///   cannot load; `SQLiteError` when the replica cannot be opened.
    public convenience init(
        replicaOf replicaURL: String,
        litestreamVFS: String,
        maximumReaderCount: Int = ConnectionPool.defaultMaximumConnectionCount,
        readerConnectionPreparation: ((Connection) throws -> Void)? = nil
    ) throws {
        try LitestreamVFS.load(extensionPath: litestreamVFS, replicaURL: replicaURL)
        let name = URL(string: replicaURL)?.lastPathComponent.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "replica"
        let flags = OpenFlags.make(readOnly: true) | SQLITE_OPEN_URI
        try self.init(
            location: .onDisk("file:\(name.isEmpty ? "replica" : name)?vfs=litestream"), tableLockPolicy: .fastFail,
            flags: flags, drainDelay: 1.0, maximumReaderCount: maximumReaderCount, extensions: [],
            writerConnectionPreparation: readerConnectionPreparation, readerConnectionPreparation: readerConnectionPreparation
        )
    }
}
