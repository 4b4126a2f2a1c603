import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Database {
    /// How ``Database/init(path:configuration:)`` sets up every connection it opens. The defaults
    /// are what most applications want (and what GRDB users expect).
    ///
    /// ```swift
    /// var configuration = Database.Configuration()
    /// configuration.busyTimeout = 10
    /// let database = try Database(path: "app.sqlite", configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`); SQLite's own
        /// default is off, which lets a delete leave orphans behind.
        public var foreignKeys: Bool = true
        /// The journal mode the writer sets (`PRAGMA journal_mode`). In WAL mode, readers never
        /// wait for the writer, which is what makes the reader pool useful.
        public var journalMode: JournalMode = .wal
        /// How many seconds a connection waits on another connection's lock before failing with
        /// `SQLITE_BUSY`.
        public var busyTimeout: TimeInterval = 5
        /// How hard SQLite syncs to disk (`PRAGMA synchronous`). `.normal` in WAL mode is durable
        /// against application crashes and never corrupts the file; a power loss can undo the
        /// last commits.
        public var synchronous: Synchronous = .normal
        /// The most reader connections open at once; reads past it wait for a free one.
        public var maximumReaderCount: Int = ConnectionPool.defaultMaximumConnectionCount
        /// The passphrase of an encrypted database, or nil (the default) for a plain one. Every
        /// connection, the writer and each reader, is keyed with it right after it opens and
        /// before anything reads the file (``Connection/usePassphrase(_:)``), so a wrong
        /// passphrase fails ``Database/init(path:configuration:)`` itself with `SQLITE_NOTADB`.
        /// It needs an encrypting SQLite linked in place of libsqlite3; with any other, opening
        /// throws ``SQLiteLibraryError/encryptionUnavailable`` (see the Encryption article).
        public var passphrase: String?

        /// The defaults: foreign keys on, WAL, a 5 s busy timeout, `synchronous = NORMAL`, 5 readers.
        public init() {}

        /// SQLite's journal modes. See <https://www.sqlite.org/pragma.html#pragma_journal_mode>.
        public enum JournalMode: String, Sendable, CaseIterable {
            case delete = "DELETE", truncate = "TRUNCATE", persist = "PERSIST", memory = "MEMORY", wal = "WAL", off = "OFF"
        }

        /// SQLite's sync levels. See <https://www.sqlite.org/pragma.html#pragma_synchronous>.
        public enum Synchronous: String, Sendable, CaseIterable {
            case off = "OFF", normal = "NORMAL", full = "FULL", extra = "EXTRA"
        }

        /// Sets up a connection, writer or reader. The writer, opened first, puts the file in WAL
        /// mode; a rollback journal mode belongs to each connection, so every one sets it.
        func prepare(_ connection: Connection) throws {
            // First, so the pragmas below wait for a lock as the configuration says.
            try connection.busyHandler(.timeout(busyTimeout))
            // Before anything reads the file: SQLite reads the first page with the key it has then.
            if let passphrase { try connection.usePassphrase(passphrase) }
            // Switching a fresh file to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY
            // there without asking the busy handler while another process opens the same file:
            // waited for here, within the busy timeout, as every other lock is.
            let deadline = ContinuousClock.now + .milliseconds(Int(max(0, busyTimeout) * 1_000))
            while true {
                do {
                    try connection.execute("PRAGMA journal_mode = \(journalMode.rawValue)")
                    break
                } catch let error as SQLiteError
                    where (error.code & 0xFF == SQLITE_BUSY || error.code & 0xFF == SQLITE_LOCKED) && ContinuousClock.now < deadline
                {
                    usleep(5_000)
                }
            }
            try connection.execute("PRAGMA synchronous = \(synchronous.rawValue)")
            try connection.execute("PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
        }
    }

    /// Opens the database at `path` (creating the file if needed) for new code: every connection
    /// is set up by `configuration`, the async ``write(_:)`` runs in one IMMEDIATE transaction,
    /// ``read(_:)`` in one snapshot, and ``close()`` leaves the data in the database file alone.
    ///
    /// ```swift
    /// let database = try Database(path: "app.sqlite")
    /// try await database.write { db in try db.run("INSERT INTO book(title) VALUES(?)", "Dune") }
    /// let titles = try await database.read { db in try db.query("SELECT title FROM book") as [String] }
    /// try await database.close()
    /// ```
    /// SQift's initializers (``init(storageLocation:tableLockPolicy:multiThreaded:sharedCache:drainDelay:maximumReaderCount:extensions:writerConnectionPreparation:readerConnectionPreparation:)``)
    /// keep SQift's behaviour: no pragmas, and bare `executeWrite` and `read` calls; the async
    /// `write` is one IMMEDIATE transaction on every database.
    /// - Throws: `SQLiteError` when the file cannot be opened or a pragma fails.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(
            storageLocation: .onDisk(path), tableLockPolicy: .fastFail, flags: OpenFlags.make(), drainDelay: 1.0,
            maximumReaderCount: configuration.maximumReaderCount, extensions: [],
            writerConnectionPreparation: configuration.prepare,
            readerConnectionPreparation: configuration.prepare,
            readsRunInOneSnapshot: true
        )
        // Counted from the start, so `close()` can wait for every call still running.
        trackWork()
    }
}
