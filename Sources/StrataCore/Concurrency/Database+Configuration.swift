import StrataKernel
import StrataSchema
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
        /// Whether every connection opens read-only: the file must exist, the journal mode is
        /// left as the file has it, and every write throws `SQLITE_READONLY`.
        public var readOnly: Bool = false
        /// Paths of loadable extensions every connection loads right after it opens, before
        /// ``prepareConnection(_:)``'s closures run (see ``Connection/loadExtension(at:entryPoint:)``).
        public var extensions: [String] = []
        /// Settings for running under Litestream or another WAL replicator, or nil (the default).
        /// When set, its busy timeout replaces ``busyTimeout``, the file must stay in WAL mode,
        /// the writer begins every transaction IMMEDIATE, and ``Database/close()`` checkpoints
        /// PASSIVE. Opening a database private to one connection (in memory) then throws
        /// ``ReplicationError``.
        public var replicationSafety: ReplicationSafety?
        /// What ``prepareConnection(_:)`` added, in order.
        var preparations: [Preparation] = []

        /// The defaults: foreign keys on, WAL, a 5 s busy timeout, `synchronous = NORMAL`, 5 readers.
        public init() {}

        /// Adds a closure every connection runs once, writer and readers alike, after the
        /// settings above and before its first use: register functions and collations there, or
        /// set a pragma of your own. Closures run in the order they were added; one that throws
        /// fails the open (or the read that needed a new reader).
        ///
        /// ```swift
        /// var configuration = Database.Configuration()
        /// configuration.prepareConnection { db in try db.execute("PRAGMA cache_size = -20000") }
        /// ```
        public mutating func prepareConnection(_ preparation: @escaping @Sendable (Connection) throws -> Void) {
            preparations.append(Preparation(run: preparation))
        }

        /// A closure of ``prepareConnection(_:)``, equal only to itself (closures have no equality).
        struct Preparation: Sendable, Equatable {
            let id = UUID()
            let run: @Sendable (Connection) throws -> Void
            static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
        }

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
        func prepare(_ connection: Connection, isWriter: Bool) throws {
            let busyTimeout = replicationSafety?.busyTimeout ?? busyTimeout
            // First, so the pragmas below wait for a lock as the configuration says.
            try connection.busyHandler(.timeout(busyTimeout))
            // Before anything reads the file: SQLite reads the first page with the key it has then.
            if let passphrase { try connection.usePassphrase(passphrase) }
            for path in extensions { try connection.loadExtension(at: path) }
            if !readOnly {
                // Switching a fresh file to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY
                // there without asking the busy handler while another process opens the same file:
                // waited for here, within the busy timeout, as every other lock is.
                let deadline = ContinuousClock.now + .milliseconds(Int(Connection.BusyHandler.milliseconds(busyTimeout)))
                let mode = replicationSafety == nil ? journalMode : .wal
                while true {
                    do {
                        try connection.execute("PRAGMA journal_mode = \(mode.rawValue)")
                        break
                    } catch let error as SQLiteError
                        where (error.code & 0xFF == SQLITE_BUSY || error.code & 0xFF == SQLITE_LOCKED) && ContinuousClock.now < deadline
                    {
                        usleep(5_000)
                    }
                }
            }
            try connection.execute("PRAGMA synchronous = \(synchronous.rawValue)")
            try connection.execute("PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
            // After the settings above: the replicator's needs win over them on the writer.
            if let replicationSafety, isWriter, !readOnly { try replicationSafety.prepareWriter(connection) }
            for preparation in preparations { try preparation.run(connection) }
        }

        /// Refuses settings no connection could open with, before anything opens.
        func validate(path: String) throws {
            guard busyTimeout >= 0, busyTimeout.isFinite else {
                throw SQLiteError(code: SQLITE_MISUSE, message: "the busy timeout must be a finite number of seconds, not \(busyTimeout)")
            }
            try replicationSafety?.validate(path: path)
        }

        /// The `sqlite3_open_v2` flags of the writer (readers use the same, read-only).
        var openFlags: Int32 { OpenFlags.make(readOnly: readOnly) }
    }

    /// Opens the database at `path` (creating the file if needed): the one way to open a
    /// `Database`. Every connection is set up by `configuration`; `write` runs in one
    /// IMMEDIATE transaction, `read` in one snapshot, and ``close()`` drains the calls
    /// still running and leaves the data in the database file.
    ///
    /// ```swift
    /// let database = try Database(path: "app.sqlite")
    /// try await database.write { db in try db.run("INSERT INTO book(title) VALUES(?)", "Dune") }
    /// let titles = try await database.read { db in try db.query("SELECT title FROM book") as [String] }
    /// try await database.close()
    /// ```
    /// `path` follows SQLite's conventions: `":memory:"` is an in-memory database private to this
    /// `Database` (its reads go to the writer), `""` a temporary file, and
    /// ``inMemoryPath(named:)`` an in-memory database shared by every `Database` of the process
    /// that opens the same name.
    /// - Throws: `SQLiteError` when the file cannot be opened or a pragma fails;
    ///   ``ReplicationError`` when ``Configuration/replicationSafety`` cannot hold.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try configuration.validate(path: path)
        try self.init(
            location: StorageLocation(path: path), tableLockPolicy: .fastFail, flags: configuration.openFlags, drainDelay: 1.0,
            maximumReaderCount: configuration.maximumReaderCount, extensions: [],
            writerConnectionPreparation: { try configuration.prepare($0, isWriter: true) },
            readerConnectionPreparation: { try configuration.prepare($0, isWriter: false) }
        )
    }

    /// The path of an in-memory database every connection of this process that opens it shares,
    /// for ``init(path:configuration:)``: `Database(path: Database.inMemoryPath(named: "cache"))`.
    public static func inMemoryPath(named name: String) -> String {
        StorageLocation.namedInMemory(name).path
    }
}

extension Connection {
    /// The settings of ``Database/Configuration``, which a single connection takes too.
    public typealias Configuration = Database.Configuration

    /// Opens one connection to the database at `path` (creating the file if needed), set up by
    /// `configuration` as a ``Database``'s writer is: WAL, foreign keys on, a busy timeout. A
    /// connection is for one thread at a time; share a ``Database`` between threads instead.
    ///
    /// ```swift
    /// let db = try Connection(path: "app.sqlite")
    /// try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")
    /// ```
    /// `path` follows the conventions of ``Database/init(path:configuration:)``;
    /// ``Database/Configuration/maximumReaderCount`` does not apply.
    /// - Throws: `SQLiteError` when the file cannot be opened or a pragma fails.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try configuration.validate(path: path)
        try self.init(storageLocation: StorageLocation(path: path), tableLockPolicy: .fastFail, flags: configuration.openFlags)
        try configuration.prepare(self, isWriter: true)
    }
}
