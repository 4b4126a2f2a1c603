// SQift's own spellings: its openers with flags and Booleans, the bare `executeRead` and
// `executeWrite`, its pool and the queues a `Database` held in the open. SQift code ports by
// changing `import SQift` to `import StrataSQift`; new code opens `Database(path:configuration:)`
// under `import Strata` and never needs this module.
//
// `Strata` keeps deprecated copies of these (so code that imports only `Strata` still builds,
// with a warning naming this module); they are marked `@_disfavoredOverload`, so under this
// import these declarations win without ambiguity or warning.
@_exported import Strata
import Foundation

extension Connection {
    /// Opens a connection with SQift's flag conveniences (SQift's opener).
    ///
    /// ```swift
    /// let connection = try Connection(storageLocation: .onDisk("path_to_db"))
    /// ```
    /// - Parameters:
    ///   - storageLocation: Where the database lives (in memory by default).
    ///   - tableLockPolicy: What to do on a table lock (`SQLITE_LOCKED`).
    ///   - readOnly: `SQLITE_OPEN_READONLY` instead of `READWRITE | CREATE`.
    ///   - multiThreaded: `SQLITE_OPEN_NOMUTEX` (one thread at a time, the fast choice) instead of
    ///     `FULLMUTEX`.
    ///   - sharedCache: `SQLITE_OPEN_SHAREDCACHE` instead of `PRIVATECACHE`.
    /// - Throws: `SQLiteError` when the file cannot be opened (`SQLITE_CANTOPEN`, ...).
    public convenience init(
        storageLocation: StorageLocation = .inMemory,
        tableLockPolicy: TableLockPolicy = .fastFail,
        readOnly: Bool = false,
        multiThreaded: Bool = true,
        sharedCache: Bool = false
    ) throws {
        let flags = OpenFlags.make(readOnly: readOnly, multiThreaded: multiThreaded, sharedCache: sharedCache)
        try self.init(storageLocation: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags)
    }
}

extension Database {
    /// Opens the writer now (creating the file if needed); readers open on demand (SQift's
    /// opener). The database behaves as one opened by ``Database/init(path:configuration:)``
    /// does (snapshot reads, transactional writes, calls tracked for `close()`), with SQLite's
    /// own settings instead of a ``Database/Configuration``'s.
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

    /// Opens the writer with `flags`; readers use the same flags with READONLY instead of
    /// READWRITE and CREATE. Every connection loads `extensions` (paths of loadable extensions,
    /// see ``Connection/loadExtension(at:entryPoint:)``) before its preparation closure runs.
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

    /// Runs `closure` on a reader connection with no transaction around it (read-only; parallel
    /// with other reads and the writer): each statement sees what was committed when it started.
    @discardableResult
    public func executeRead<T>(closure: (Connection) throws -> T) throws -> T { try bareRead(closure: closure) }

    /// Runs `closure` on the writer connection with no transaction around it, serialized with
    /// every other write. A transaction it leaves open, or a statement still running, is rolled
    /// back or reset when it returns (reported on standard error in debug builds).
    @discardableResult
    public func executeWrite<T>(closure: (Connection) throws -> T) throws -> T { try bareWrite(closure: closure) }

    /// The single writer connection's queue. Calls on it directly are not tracked, so
    /// ``Database/close()`` does not wait for them.
    public var writerConnectionQueue: ConnectionQueue { writerQueue }

    /// The read-only connections that serve reads (unused for an in-memory or temporary
    /// database). Calls on it directly are not tracked, so ``Database/close()`` does not wait for them.
    public var readerConnectionPool: ConnectionPool { readerPool }
}

extension ConnectionPool {
    /// Creates a pool of connections that open on first use (SQift's pool).
    /// `connectionPreparation` runs once on each new connection; calls to it never overlap.
    public convenience init(
        storageLocation: StorageLocation,
        tableLockPolicy: TableLockPolicy = .fastFail,
        flags: Int32 = ConnectionPool.defaultReaderFlags,
        availableConnectionDrainDelay: TimeInterval = 1.0,
        maximumConnectionCount: Int = ConnectionPool.defaultMaximumConnectionCount,
        connectionPreparation: ((Connection) throws -> Void)? = nil
    ) {
        self.init(
            location: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags,
            availableConnectionDrainDelay: availableConnectionDrainDelay, maximumConnectionCount: maximumConnectionCount,
            connectionPreparation: connectionPreparation
        )
    }
}

// SQift's internals its own tests reach with `@testable import SQift`: internal here too, so
// `@testable import StrataSQift` gives those tests the same names, and nothing else sees them.
extension ConnectionPool {
    var availableConnections: Set<ConnectionQueue> {
        get { sqiftAvailableConnections }
        set { sqiftAvailableConnections = newValue }
    }
    var busyConnections: Set<ConnectionQueue> {
        get { sqiftBusyConnections }
        set { sqiftBusyConnections = newValue }
    }
    func dequeueConnectionForUse() throws -> ConnectionQueue { try sqiftDequeueConnectionForUse() }
    func enqueueConnectionForReuse(_ queue: ConnectionQueue) { sqiftEnqueueConnectionForReuse(queue) }
}

extension Migrator {
    var migrationTableExists: Bool { sqiftMigrationTableExists }
    func createMigrationTable() throws { try sqiftCreateMigrationTable() }
}
