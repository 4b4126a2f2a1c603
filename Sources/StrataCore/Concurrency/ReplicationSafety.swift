// Running under an external replicator (Litestream): the settings a Database takes so the
// replicator can follow the WAL (applied by `Database.Configuration`). Litestream's issues #218
// ("database is locked"), #724 (a RESTART checkpoint that hung) and #1536 (autocheckpoint
// defeated) all came from the application side.
import StrataKernel
import StrataSchema
import Foundation

/// How a `Database` behaves so that Litestream, or any tool that streams the WAL, can follow it.
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.replicationSafety = .litestream
/// let database = try Database(path: "app.sqlite", configuration: configuration)
/// ```
/// Every connection waits up to ``busyTimeout`` on a lock (the replicator holds brief read locks),
/// the writer keeps WAL mode and begins its transactions and top-level savepoints IMMEDIATE (so a
/// write never fails to upgrade a read lock), automatic checkpoints stay SQLite's (or are turned off for heavy write
/// loads, leaving checkpoints to the replicator), and Strata runs no TRUNCATE or RESTART checkpoint
/// of its own accord; `checkpoint(mode:)` refuses them while Litestream's lock table exists
/// unless forced.
///
/// The writer also runs `PRAGMA synchronous = NORMAL`, as Litestream recommends. Under FULL each
/// commit waits on an fsync after writing its commit frame and before publishing it in the WAL
/// index; a writer killed in that window leaves a commit that SQLite discards but Litestream
/// (0.5.17) has already shipped, and the replica no longer restores (Strata's crash test found
/// 7 such restores in about 150 kills under FULL, with a Python writer too, and 1 in about 160
/// under NORMAL, where the window is only the time between two writes). The rest is Litestream's
/// to fix. NORMAL loses nothing when the application crashes; a power loss can lose the last
/// commits.
public struct ReplicationSafety: Sendable, Equatable {
    /// Who runs the WAL checkpoints that move pages back into the database file.
    public enum AutomaticCheckpoints: Sendable, Equatable {
        /// SQLite's own, every 1,000 WAL pages (PASSIVE, so they never wait for readers).
        case sqliteDefault
        /// SQLite checkpoints every `pages` WAL pages.
        case everyPages(Int)
        /// None (`wal_autocheckpoint = 0`): the replicator checkpoints; for heavy write loads.
        case off
    }

    /// How long each connection waits on a lock before `SQLITE_BUSY`, in seconds.
    public var busyTimeout: TimeInterval
    /// Who checkpoints the WAL.
    public var automaticCheckpoints: AutomaticCheckpoints

    /// Creates a configuration.
    public init(busyTimeout: TimeInterval = 5, automaticCheckpoints: AutomaticCheckpoints = .sqliteDefault) {
        self.busyTimeout = busyTimeout
        self.automaticCheckpoints = automaticCheckpoints
    }

    /// Litestream's recommendations: WAL, a 5 s busy timeout, IMMEDIATE writes, SQLite's automatic
    /// checkpoints.
    public static let litestream = ReplicationSafety()

    /// The same with automatic checkpoints off, for heavy write loads.
    public static let litestreamHeavyWrites = ReplicationSafety(automaticCheckpoints: .off)
}

extension ReplicationSafety {
    /// Refuses a location or settings a replicator cannot follow, before anything opens.
    package func validate(path: String) throws {
        guard !OpenFlags.isPrivateToEachConnection(path: path, flags: 0), !path.hasPrefix(OpenFlags.namedInMemoryPrefix) else {
            throw ReplicationError.unsafeSetting("replication needs a database file; \"\(path)\" lives in memory")
        }
        guard busyTimeout >= 0, busyTimeout.isFinite else {
            throw ReplicationError.unsafeSetting("the busy timeout must be a finite number of seconds, not \(busyTimeout)")
        }
        if case .everyPages(let pages) = automaticCheckpoints, pages <= 0 {
            throw ReplicationError.unsafeSetting("automatic checkpoints need a positive page count, not \(pages); use .off to turn them off")
        }
    }

    /// Sets up the writer: WAL kept (or refused), automatic checkpoints, `synchronous = NORMAL`,
    /// and IMMEDIATE transactions. Its busy timeout is the caller's to set first.
    package func prepareWriter(_ writer: Connection) throws {
        let mode: String? = try writer.query("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw ReplicationError.unsafeSetting(
                "the database stays in \(mode ?? "an unknown") journal mode, and a replicator follows the WAL: close other connections that hold it in another mode"
            )
        }
        switch automaticCheckpoints {
        case .sqliteDefault: try writer.execute("PRAGMA wal_autocheckpoint = 1000")
        case .everyPages(let pages): try writer.execute("PRAGMA wal_autocheckpoint = \(pages)")
        case .off: try writer.execute("PRAGMA wal_autocheckpoint = 0")
        }
        try writer.execute("PRAGMA synchronous = NORMAL")
        writer.beginsDeferredTransactionsImmediately = true
    }
}
