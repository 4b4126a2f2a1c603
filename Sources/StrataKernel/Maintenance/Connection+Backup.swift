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
        try startBackup(
            databaseNamed: sourceName, to: destination, as: destinationName, pageSize: pageSize,
            backupQueue: backupQueue, completionQueue: completionQueue, pageCounter: nil,
            completion: completion)
    }

    /// `backup(...)` that also publishes each step's page counts to `pageCounter` as one pair,
    /// for a caller that shows them (the `strata backup` progress bar).
    @discardableResult
    package func backup(
        to destination: Connection,
        pageSize: Int32,
        completionQueue: DispatchQueue,
        pageCounter: BackupPageCounter,
        completion: @escaping (BackupResult) -> Void
    ) throws -> Progress {
        try startBackup(
            databaseNamed: "main", to: destination, as: "main", pageSize: pageSize,
            backupQueue: .global(), completionQueue: completionQueue, pageCounter: pageCounter,
            completion: completion)
    }

    private func startBackup(
        databaseNamed sourceName: String, to destination: Connection, as destinationName: String, pageSize: Int32,
        backupQueue: DispatchQueue, completionQueue: DispatchQueue, pageCounter: BackupPageCounter?,
        completion: @escaping (BackupResult) -> Void
    ) throws -> Progress {
        guard let backup = sqlite3_backup_init(destination.handle, destinationName, handle, sourceName) else {
            let code = sqlite3_errcode(destination.handle)
            throw SQLiteError(handle: destination.handle, code: code == SQLITE_OK ? SQLITE_ERROR : code)
        }
        let progress = BackupProgress(totalUnitCount: -1)
        progress.isCancellable = true
        progress.isPausable = true
        let job = BackupJob(
            backup: backup, source: self, destination: destination, pageSize: pageSize,
            progress: progress, pageCounter: pageCounter, completion: completion,
            completionQueue: completionQueue)
        backupQueue.async { job.run() }
        return progress
    }
}

/// A backup's page counts after one step, taken together.
package struct BackupPageCount: Sendable, Equatable {
    /// Pages copied so far (it falls back when the source changes and the copy restarts).
    package var completed: Int64
    /// Pages in the source at that step; -1 before the first step.
    package var total: Int64

    package init(completed: Int64, total: Int64) {
        self.completed = completed
        self.total = total
    }

    /// The counts made safe to show: `total` at least 0, `completed` within 0...total. Counts
    /// read apart (or from a source that shrank) can say more pages are done than exist.
    package var clamped: BackupPageCount {
        let total = max(total, 0)
        return BackupPageCount(completed: min(max(completed, 0), total), total: total)
    }

    /// The share done as a whole number out of `scale`, rounded down: `scaled(to: 100)` is the
    /// percentage, `scaled(to: 30)` the filled cells of a 30-cell bar. Always within 0...scale
    /// (0 without a total), for any counts: the product is taken at double width.
    package func scaled(to scale: Int64) -> Int64 {
        let count = clamped
        guard count.total > 0, scale > 0 else { return 0 }
        let product = count.completed.multipliedFullWidth(by: scale)
        return count.total.dividingFullWidth((product.high, product.low)).quotient
    }

    /// A progress bar of `width` cells, `#` for the share done and `-` for the rest (the
    /// `strata backup` bar); always exactly `width` characters.
    package func bar(width: Int) -> String {
        let width = max(width, 0)
        let filled = Int(scaled(to: Int64(width)))
        return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    }
}

/// The latest page counts of a running backup, read as one pair. `Progress` keeps its two counts
/// apart, so a reader there can see one step's total with another step's completed count.
package final class BackupPageCounter: Sendable {
    private let counts = Locked(BackupPageCount(completed: 0, total: -1))

    package init() {}

    /// The counts the last step left.
    package var current: BackupPageCount { counts.current }

    func set(_ count: BackupPageCount) {
        counts.withLock { $0 = count }
    }
}

/// A backup's `Progress`, which a `pause()` arriving after the copy ended leaves unpaused.
/// Foundation's `Progress` would keep `isPaused` true for good, though nothing is left to pause
/// and no step will ever look at it again (SQift's own pause test races the copy this way).
// @unchecked Sendable: `Progress` is thread-safe, and `ended` is guarded by its lock.
private final class BackupProgress: Progress, @unchecked Sendable {
    private let ended = Locked(false)

    func markEnded() {
        ended.withLock { $0 = true }
        if super.isPaused { super.resume() }
    }

    override func pause() {
        // Checked and paused under the lock, so a pause cannot slip in after `markEnded`.
        ended.withLock { hasEnded in if !hasEnded { super.pause() } }
    }
}

/// One running backup (a value: nothing in it changes; its memberwise initializer is the one used).
// @unchecked Sendable: it has no mutable state; it owns the `sqlite3_backup`, which only
// `backupQueue` touches, and holds the connections alive, which by the documented contract of
// `backup(...)` nothing else uses until completion.
private struct BackupJob: @unchecked Sendable {
    let backup: SQLiteBackupHandle
    let source: Connection
    let destination: Connection
    let pageSize: Int32
    let progress: BackupProgress
    let pageCounter: BackupPageCounter?
    let completion: (Connection.BackupResult) -> Void
    let completionQueue: DispatchQueue

    func run() {
        var result: Connection.BackupResult
        var lockedSince: Date?
        while true {
            if progress.isCancelled { result = .cancelled; break }
            if progress.isPaused { usleep(10_000); continue }
            let code = sqlite3_backup_step(backup, pageSize)
            let total = Int64(sqlite3_backup_pagecount(backup))
            let completed = total - Int64(sqlite3_backup_remaining(backup))
            pageCounter?.set(BackupPageCount(completed: completed, total: total))
            progress.totalUnitCount = total
            progress.completedUnitCount = completed
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
        progress.markEnded()
        let finish = sqlite3_backup_finish(backup)
        if case .success = result, finish != SQLITE_OK {
            result = .failure(SQLiteError(handle: destination.handle, code: finish))
        }
        // The destination's pages were replaced without a statement (even a failed or cancelled
        // copy may have written some): its observers must look again.
        destination.noteChangeOutsideStatements()
        let finalResult = result
        completionQueue.async { self.completion(finalResult) }
    }
}
