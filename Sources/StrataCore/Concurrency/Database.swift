// Concurrency: `ConnectionQueue`, `ConnectionPool`, `Database` and their async twins, over the
// kernel's pool core (which Squeal's `DatabasePool`, in StrataSqueal, shares).

import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// One writer connection and a pool of readers: the simple way to use a database from many threads.
///
/// New code opens it with ``init(path:configuration:)`` (WAL, foreign keys on, a busy timeout),
/// where each `write` is one IMMEDIATE transaction, each `read` one snapshot, and
/// ``close()`` leaves every commit in the database file:
/// ```swift
/// let database = try Database(path: "app.sqlite")
/// try await database.write { db in try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)") }
/// let count = try await database.read { try $0.query("SELECT count(*) FROM cars") as Int? }
/// try await database.close()
/// ```
/// Everything else is a ``Configuration`` field (read-only, extensions, connection preparation,
/// reader count, passphrase, replication safety). Synchronous code calls the same names without
/// `await`: their synchronous forms block the calling thread.
/// Conforming to ``DatabaseWriter``, it can be handed to code written for any reader or writer.
/// SQift's initializers, `executeRead` and `executeWrite` live in `StrataSQift`; a database
/// they open behaves as this one does, but for SQift's own bare `executeRead` and `executeWrite`.
/// Writes are serialized on the writer; reads run in parallel on up to `maximumReaderCount`
/// read-only connections (callers past that wait or suspend for a free one), which in
/// WAL mode see the last committed data and never wait for a write. Its connections wait up to
/// ``ConnectionPool/defaultBusyTimeout`` seconds on a lock before failing with `SQLITE_BUSY`. An in-memory or temporary
/// database is private to one connection, so there reads use the writer too.
///
/// ## SQLite before 3.51.3: the WAL-reset bug
/// SQLite older than 3.51.3 can corrupt a WAL database when two connections checkpoint and
/// write at the same moment. Strata's own connections never run two checkpoints of one file at
/// once (``Connection/checkpoint(attachedDatabaseName:mode:)`` takes a process-wide lock per
/// file), but SQLite's automatic checkpoints and other processes are outside that lock. Prefer a
/// SQLite of 3.51.3 or later; `strata check` prints a warning line for an older one.
///
/// ## The name under `import StrataSqueal`
/// `StrataSqueal` declares Squeal's `Database`, which is a ``Connection``. In a file that imports
/// it, `Database` means that connection, even beside `import Strata`, and a call such as
/// `observe` then fails with "no member". Name this type `Strata.Database` there, and Squeal's
/// `Connection`; a file with only `import Strata` (or `StrataRecords`) always means this pool.
public final class Database: Sendable {
    /// The single writer connection; every write goes through it, one at a time. Never handed
    /// out: a call on it directly would bypass the tracking ``close()`` relies on.
    package let writerQueue: ConnectionQueue
    /// The read-only connections that serve reads in parallel with each other and the writer
    /// (unused for an in-memory or temporary database, whose reads go to the writer).
    package let readerPool: ConnectionPool
    /// Whether reads go to the writer (a database private to one connection).
    let readsUseWriter: Bool
    /// The one shutdown ``close()`` starts; every later call waits for it.
    let closing = Locked<Task<Void, any Error>?>(nil)
    /// Set when a task waiting in ``close()`` is cancelled: the calls still running are interrupted.
    let closeInterruptsRunningWork = AtomicFlag(false)
    /// The connections whose open reads keep each live ``DatabaseSnapshot`` in the WAL, by
    /// snapshot: ``close()`` ends those reads, or its TRUNCATE checkpoint would wait on them.
    let snapshotPins = Locked<[ObjectIdentifier: ConnectionQueue]>([:])
    /// What every write throws, when a ``writeRefusalRules`` rule refused writes for the path this
    /// database was opened with (a read replica's); nil for a writable database.
    package let writeRefusal: (any Error & Sendable)?

    /// Looks at the path and flags a database is opened with; returns what its writes must throw,
    /// or nil. A layer above that opens databases which must not be written (a read replica)
    /// supplies one through the module's composition (`Composition.swift`), so this folder names none.
    typealias WriteRefusalRule = @Sendable (_ path: String, _ flags: Int32) -> (any Error & Sendable)?

    /// Counts and gates calls once events are reported or a shutdown is prepared; nil (the usual
    /// case) costs each call one locked read.
    let workTracker = Locked<DatabaseWorkTracker?>(nil)
    /// Whether ``workTracker`` was made: an atomic load, so an untracked call takes no lock.
    let isTracked = AtomicFlag(false)

    /// The tracker, when calls are tracked.
    private var activeTracker: DatabaseWorkTracker? { isTracked.load() ? workTracker.current : nil }

    /// SQift's opener, kept so code that imports only `Strata` still builds; `import StrataSQift`
    /// for it, or open ``init(path:configuration:)``.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's opener: import StrataSQift, or use Database(path:configuration:)")
    public convenience init(
        storageLocation: StorageLocation = .inMemory,
        tableLockPolicy: TableLockPolicy = .fastFail,
        multiThreaded: Bool = true,
        sharedCache: Bool = false,
        drainDelay: TimeInterval = 1.0,
        maximumReaderCount: Int = ConnectionPool.defaultMaximumConnectionCount,
        extensions: [String] = [],
        writerConnectionPreparation: ((Connection) throws -> Void)? = nil,
        readerConnectionPreparation: ((Connection) throws -> Void)? = nil
    ) throws {
        try self.init(
            location: storageLocation, tableLockPolicy: tableLockPolicy,
            flags: OpenFlags.make(multiThreaded: multiThreaded, sharedCache: sharedCache), drainDelay: drainDelay,
            maximumReaderCount: maximumReaderCount, extensions: extensions,
            writerConnectionPreparation: writerConnectionPreparation, readerConnectionPreparation: readerConnectionPreparation
        )
    }

    /// SQift's opener with explicit flags, kept so code that imports only `Strata` still builds;
    /// `import StrataSQift` for it, or open ``init(path:configuration:)``.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's opener: import StrataSQift, or use Database(path:configuration:)")
    public convenience init(
        storageLocation: StorageLocation = .inMemory,
        tableLockPolicy: TableLockPolicy = .fastFail,
        flags: Int32,
        drainDelay: TimeInterval = 1.0,
        maximumReaderCount: Int = ConnectionPool.defaultMaximumConnectionCount,
        extensions: [String] = [],
        writerConnectionPreparation: ((Connection) throws -> Void)? = nil,
        readerConnectionPreparation: ((Connection) throws -> Void)? = nil
    ) throws {
        try self.init(
            location: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags, drainDelay: drainDelay,
            maximumReaderCount: maximumReaderCount, extensions: extensions,
            writerConnectionPreparation: writerConnectionPreparation, readerConnectionPreparation: readerConnectionPreparation
        )
    }

    /// The one designated initializer, which every opener (this module's, StrataSQift's) calls:
    /// whatever opened it, a `Database` reads in snapshots, writes in transactions and tracks
    /// its calls for ``close()``. Every connection loads `extensions` before its preparation runs.
    package init(
        location storageLocation: StorageLocation,
        tableLockPolicy: TableLockPolicy,
        flags: Int32,
        drainDelay: TimeInterval,
        maximumReaderCount: Int,
        extensions: [String],
        writerConnectionPreparation: ((Connection) throws -> Void)?,
        readerConnectionPreparation: ((Connection) throws -> Void)?
    ) throws {
        writeRefusal = Self.writeRefusalRules.lazy.compactMap { $0(storageLocation.path, flags) }.first
        let writer = try Connection(storageLocation: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags)
        try writer.busyHandler(.timeout(ConnectionPool.defaultBusyTimeout))
        for path in extensions { try writer.loadExtension(at: path) }
        try writerConnectionPreparation?(writer)
        // Every caller shares the writer: what one closure leaves open must not reach the next.
        writerQueue = ConnectionQueue(connection: writer, endingLeftoverWorkFor: "the Database's writer")
        let readerFlags = OpenFlags.reader(from: flags)
        readerPool = ConnectionPool(
            location: storageLocation, tableLockPolicy: tableLockPolicy, flags: readerFlags,
            availableConnectionDrainDelay: drainDelay, maximumConnectionCount: maximumReaderCount,
            connectionPreparation: extensions.isEmpty
                ? readerConnectionPreparation
                : { reader in
                    for path in extensions { try reader.loadExtension(at: path) }
                    try readerConnectionPreparation?(reader)
                }
        )
        switch storageLocation {
        case .inMemory, .temporary: readsUseWriter = true
        case .onDisk(let path):
            readsUseWriter = OpenFlags.isPrivateToEachConnection(path: path, flags: flags)
        }
        // Counted from the start, so `close()` can wait for every call still running.
        trackWork()
    }

    /// Runs `closure` on a reader connection with no transaction around it (SQift's
    /// `executeRead`, which StrataSQift declares): each statement sees what was committed when it
    /// started.
    @discardableResult
    package func bareRead<T>(closure: (Connection) throws -> T) throws -> T {
        if let tracker = activeTracker {
            return try tracker.run(.read, onReader: !readsUseWriter, closure: closure) { body in
                readsUseWriter ? try writerQueue.execute(closure: body) : try readerPool.execute(closure: body)
            }
        }
        if readsUseWriter { return try writerQueue.execute(closure: closure) }
        return try readerPool.execute(closure: closure)
    }

    /// Runs `closure` on the writer with no transaction around it (SQift's `executeWrite`, and
    /// the synchronous `writeWithoutTransaction`). A transaction it leaves open, or a
    /// statement still running, is rolled back or reset when it returns (reported on standard
    /// error in debug builds): the next caller shares the writer.
    @discardableResult
    package func bareWrite<T>(closure: (Connection) throws -> T) throws -> T {
        if let writeRefusal { throw writeRefusal }
        if let tracker = activeTracker {
            return try tracker.run(.write, onReader: false, closure: closure) { try writerQueue.execute(closure: $0) }
        }
        return try writerQueue.execute(closure: closure)
    }

    /// SQift's bare read, kept so code that imports only `Strata` still builds.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's spelling: import StrataSQift, or use read(_:) (one snapshot)")
    @discardableResult
    public func executeRead<T>(closure: (Connection) throws -> T) throws -> T { try bareRead(closure: closure) }

    /// SQift's bare write, kept so code that imports only `Strata` still builds.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's spelling: import StrataSQift, or use write(_:) (one transaction)")
    @discardableResult
    public func executeWrite<T>(closure: (Connection) throws -> T) throws -> T { try bareWrite(closure: closure) }

    /// SQift's writer queue, kept so code that imports only `Strata` still builds.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's spelling: import StrataSQift; calls on the queue bypass close()'s tracking")
    public var writerConnectionQueue: ConnectionQueue { writerQueue }

    /// SQift's reader pool, kept so code that imports only `Strata` still builds.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's spelling: import StrataSQift; calls on the pool bypass close()'s tracking")
    public var readerConnectionPool: ConnectionPool { readerPool }

    /// Runs `closure` on a reader in one read transaction, blocking the calling thread: every
    /// query in it sees the same snapshot, whatever commits meanwhile. The synchronous twin of
    /// the async `read`, for code that is not async (a command-line tool, a test).
    ///
    /// ```swift
    /// let count = try database.read { db in try db.query("SELECT count(*) FROM book") as Int? }
    /// ```
    /// - Throws: ``SQLiteError/closed`` after ``close()``; what `closure` throws.
    @discardableResult
    public func read<T>(_ closure: (Connection) throws -> T) throws -> T {
        try bareRead { connection in try connection.transaction(transactionType: .deferred) { try closure(connection) } }
    }

    /// Runs `closure` on the writer in one IMMEDIATE transaction, blocking the calling thread:
    /// it commits when the closure returns and rolls back when it throws. The synchronous twin
    /// of the async `write`.
    ///
    /// ```swift
    /// try database.write { db in try db.run("INSERT INTO book(title) VALUES(?)", "Dune") }
    /// ```
    /// - Throws: ``SQLiteError/closed`` after ``close()``; what `closure` or the COMMIT throws.
    @discardableResult
    public func write<T>(_ closure: (Connection) throws -> T) throws -> T {
        if let writeRefusal { throw writeRefusal }
        if let tracker = activeTracker {
            // The transaction inside the tracked work, so its BEGIN and COMMIT belong to it.
            return try tracker.run(
                .transaction, onReader: false,
                closure: { connection in try connection.transaction(transactionType: .immediate) { try closure(connection) } },
                submit: { try writerQueue.execute(closure: $0) }
            )
        }
        return try writerQueue.execute { connection in try connection.transaction(transactionType: .immediate) { try closure(connection) } }
    }

    /// Runs `closure` on the writer with no transaction around it (for `VACUUM`, `PRAGMA
    /// journal_mode` and the like), blocking the calling thread; the synchronous twin of the
    /// async `writeWithoutTransaction`.
    /// - Throws: ``SQLiteError/closed`` after ``close()``; what `closure` throws.
    @discardableResult
    public func writeWithoutTransaction<T>(_ closure: (Connection) throws -> T) throws -> T {
        try bareWrite(closure: closure)
    }

    /// Runs `closure` on a reader without blocking the caller's thread; returns its value.
    ///
    /// The closure runs in one read transaction, so every query in it sees the same snapshot,
    /// whatever commits meanwhile.
    /// - Throws: ``SQLiteError/closed`` after ``close()``; what `closure` throws.
    public func read<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await performRead(closure) { try await readerPool.perform($0) }
    }

    /// Runs a short `closure` on a reader on the calling task's own thread: the form of
    /// `read` for reads of a few microseconds (a row by key, a page), where going to the
    /// reader's queue and back costs more than the read.
    ///
    /// The calling task still suspends, without blocking its thread, while every reader is busy;
    /// once it has one, the closure runs on its thread (a thread of the cooperative pool, one per
    /// core), which is held until the closure returns. So keep long reads (a report, a scan) on
    /// `read`, and never wait inside the closure for something another task must do: a
    /// nested synchronous `read` on a full pool, a semaphore. With one such closure per
    /// core, no thread is left to run the tasks that would return a reader, and the calls
    /// deadlock where `read`'s would not. Transactions, cancellation and events are as for
    /// `read`. For a database private to one connection (in memory) reads go to the
    /// writer's queue, as `read`'s do.
    ///
    /// ```swift
    /// let book = try await database.readOnCallingThread { db in try Book.fetchOne(db, id: 42) }
    /// ```
    /// - Throws: ``SQLiteError/closed`` after ``close()``; `CancellationError` when cancelled;
    ///   what `closure` throws.
    public func readOnCallingThread<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await performRead(closure) { try await readerPool.performOnCallingThread($0) }
    }

    /// What both reads share: the snapshot, the tracking, and the writer for a database private
    /// to one connection; `onReader` runs the call on a reader of the pool.
    private func performRead<T: Sendable>(
        _ closure: @escaping @Sendable (Connection) throws -> T,
        onReader: (@escaping @Sendable (Connection) throws -> T) async throws -> T
    ) async throws -> T {
        let closure = Self.inOneSnapshot(closure)
        let usesReader = !readsUseWriter
        if let tracker = activeTracker {
            return try await tracker.perform(.read, onReader: usesReader, closure: closure) { body in
                usesReader ? try await onReader(body) : try await writerQueue.perform(body)
            }
        }
        return usesReader ? try await onReader(closure) : try await writerQueue.perform(closure)
    }

    /// `closure` inside a deferred transaction: its first read takes the snapshot, which lasts until the COMMIT.
    private static func inOneSnapshot<T>(_ closure: @escaping @Sendable (Connection) throws -> T) -> @Sendable (Connection) throws -> T {
        { connection in try connection.transaction(transactionType: .deferred) { try closure(connection) } }
    }

    /// Runs `closure` on the writer in one IMMEDIATE transaction, serialized with every other
    /// write, without blocking the caller's thread; returns its value.
    ///
    /// The write lock is taken at the start, so the transaction never fails to upgrade later; it
    /// commits when the closure returns and rolls back when it throws, whichever initializer made
    /// the database. Inside it, nest with ``Connection/savepoint(named:closure:)`` (SQLite's
    /// transactions do not nest). Use `writeWithoutTransaction` for `VACUUM` and pragmas,
    /// which cannot run in a transaction.
    /// - Throws: ``SQLiteError/closed`` after ``close()``; what `closure` or the COMMIT throws.
    public func write<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await writeInTransaction(transactionType: .immediate, closure)
    }

    /// Runs `closure` on the writer with no transaction around it (for `VACUUM`, `PRAGMA
    /// journal_mode` and the like).
    /// - Throws: ``SQLiteError/closed`` after ``close()``; what `closure` throws.
    public func writeWithoutTransaction<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        if let writeRefusal { throw writeRefusal }
        if let tracker = activeTracker {
            return try await tracker.perform(.write, onReader: false, closure: closure) { try await writerQueue.perform($0) }
        }
        return try await writerQueue.perform(closure)
    }

    /// Runs `closure` in a transaction on the writer, without blocking the caller's thread;
    /// IMMEDIATE unless `transactionType` says otherwise, as `write`.
    public func writeInTransaction<T: Sendable>(
        transactionType: Connection.TransactionType = .immediate,
        _ closure: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        if let writeRefusal { throw writeRefusal }
        if let tracker = activeTracker {
            // The transaction inside the tracked work, so its BEGIN and COMMIT belong to it.
            let transaction: @Sendable (Connection) throws -> T = { connection in
                try connection.transaction(transactionType: transactionType) { try closure(connection) }
            }
            return try await tracker.perform(.transaction, onReader: false, closure: transaction) {
                try await writerQueue.perform($0)
            }
        }
        return try await writerQueue.performInTransaction(transactionType: transactionType, closure)
    }
}
