import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// How long a backup keeps retrying while the source or destination stays locked
    /// (`SQLITE_BUSY`/`SQLITE_LOCKED`) before it fails with that error.
    public static let backupLockedRetryLimit: TimeInterval = 5

    /// How a backup ended.
    public enum BackupResult: Sendable {
        /// Every page was copied.
        case success
        /// The backup stopped with this error; the destination may be incomplete.
        case failure(Error)
        /// The returned `Progress` was cancelled before the copy finished.
        case cancelled

        /// Whether the backup copied every page.
        public var isSuccess: Bool { if case .success = self { return true } else { return false } }
        /// Whether the backup stopped with an error.
        public var isFailure: Bool { if case .failure = self { return true } else { return false } }
        /// Whether the backup was cancelled.
        public var isCancelled: Bool { if case .cancelled = self { return true } else { return false } }
    }

    /// Copies database `databaseNamed` of this connection into database `as` of `destination`,
    /// `pageSize` pages per step (-1: all at once), on `backupQueue`; then calls `completion` on
    /// `completionQueue`.
    ///
    /// ```swift
    /// let progress = try source.backup(to: destination, completionQueue: queue) { result in print(result) }
    /// ```
    /// The returned `Progress` counts pages; `pause()`, `resume()` and `cancel()` act between steps.
    /// Neither connection may be used by another thread until `completion` runs: the backup uses
    /// both from `backupQueue`. Writes to the source by *other* connections are fine; SQLite
    /// restarts the copy so it stays consistent. See <https://www.sqlite.org/backup.html>.
    ///
    /// - Throws: `SQLiteError` when the backup cannot start (same connection for both ends, an
    ///   unknown database name, a destination in a transaction).
    @discardableResult
    public func backup(
        databaseNamed sourceName: String = "main",
        to destination: Connection,
        as destinationName: String = "main",
        pageSize: Int32 = 100,
        backupQueue: DispatchQueue = .global(),
        completionQueue: DispatchQueue = .main,
        completion: @escaping (BackupResult) -> Void
    ) throws -> Progress {
        guard let backup = sqlite3_backup_init(destination.handle, destinationName, handle, sourceName) else {
            let code = sqlite3_errcode(destination.handle)
            throw SQLiteError(handle: destination.handle, code: code == SQLITE_OK ? SQLITE_ERROR : code)
        }
        let progress = Progress(totalUnitCount: -1)
        progress.isCancellable = true
        progress.isPausable = true
        let job = BackupJob(backup: backup, source: self, destination: destination, pageSize: pageSize,
                            progress: progress, completion: completion, completionQueue: completionQueue)
        backupQueue.async { job.run() }
        return progress
    }
}

/// One running backup.
// @unchecked Sendable: it has no mutable state; it owns the `sqlite3_backup`, which only
// `backupQueue` touches, and holds the connections alive, which by the documented contract of
// `backup(...)` nothing else uses until completion.
private final class BackupJob: @unchecked Sendable {
    let backup: SQLiteBackupHandle
    let source: Connection
    let destination: Connection
    let pageSize: Int32
    let progress: Progress
    let completion: (Connection.BackupResult) -> Void
    let completionQueue: DispatchQueue

    init(backup: SQLiteBackupHandle, source: Connection, destination: Connection, pageSize: Int32, progress: Progress,
         completion: @escaping (Connection.BackupResult) -> Void, completionQueue: DispatchQueue) {
        self.backup = backup
        self.source = source
        self.destination = destination
        self.pageSize = pageSize
        self.progress = progress
        self.completion = completion
        self.completionQueue = completionQueue
    }

    func run() {
        var result: Connection.BackupResult
        var lockedSince: Date?
        while true {
            if progress.isCancelled { result = .cancelled; break }
            if progress.isPaused { usleep(10_000); continue }
            let code = sqlite3_backup_step(backup, pageSize)
            let total = Int64(sqlite3_backup_pagecount(backup))
            progress.totalUnitCount = total
            progress.completedUnitCount = total - Int64(sqlite3_backup_remaining(backup))
            if code == SQLITE_DONE { result = .success; break }
            if code == SQLITE_OK { lockedSince = nil; continue }
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                // Retry while the lock lasts, but not forever.
                let since = lockedSince ?? Date()
                lockedSince = since
                if Date().timeIntervalSince(since) < Connection.backupLockedRetryLimit {
                    usleep(10_000)
                    continue
                }
            }
            result = .failure(SQLiteError(handle: destination.handle, code: code))
            break
        }
        let finish = sqlite3_backup_finish(backup)
        if case .success = result, finish != SQLITE_OK {
            result = .failure(SQLiteError(handle: destination.handle, code: finish))
        }
        let finalResult = result
        completionQueue.async { self.completion(finalResult) }
    }
}
