import Foundation
import Strata

/// Told when a ``DatabasePool`` opens or closes a connection, e.g. to set pragmas or register
/// functions on each one.
public protocol DatabasePoolDelegate: AnyObject {
    /// Called once for each newly opened connection, before anyone uses it; throwing discards
    /// the connection and makes ``DatabasePool/dequeueDatabase()`` throw.
    ///
    /// - Throws: whatever the delegate decides makes the connection unusable.
    func databaseOpened(_ database: Connection) throws

    /// Called when the pool lets go of a connection (``DatabasePool/removeDatabase(_:)``,
    /// ``DatabasePool/drain()``).
    func databaseClosed(_ database: Connection)
}

/// Squeal's pool: connections to one database file, handed out one caller at a time and reused.
///
/// ```swift
/// let pool = DatabasePool(databasePath: path)
/// let db = try pool.dequeueDatabase()
/// defer { pool.enqueueDatabase(db) }
/// let count = try db.countFrom("contacts")
/// ```
/// A dequeued connection belongs to the caller until it is enqueued (back into the pool) or
/// removed (dropped). Delegate calls are serialized, so a delegate need not be thread-safe.
/// Use WAL mode (in `databaseOpened`) so readers do not wait for writers.
public final class DatabasePool: Sendable {
    /// The database file every connection opens.
    public let databasePath: String

    /// The kernel's pool state machine (unbounded here): a connection moves between threads only
    /// by being handed over through its lock.
    private let core = PoolCore<Connection>(maximum: nil) { $0.endLeftoverWork(returningTo: "a DatabasePool") }
    /// The delegate, read and replaced under a lock.
    private let delegateBox: Locked<DatabasePoolDelegate?>
    /// Serializes delegate calls, so a delegate need not be thread-safe.
    private let delegateLock = Locked(())

    /// Creates the pool; connections open on first ``dequeueDatabase()``. The pool keeps a
    /// strong reference to `delegate`.
    public init(databasePath: String, delegate: DatabasePoolDelegate? = nil) {
        self.databasePath = databasePath
        self.delegateBox = Locked(delegate)
    }

    /// The object told about opened and closed connections.
    public var delegate: DatabasePoolDelegate? {
        get { delegateBox.withLock { $0 } }
        set { delegateBox.withLock { $0 = newValue } }
    }

    /// The number of idle connections waiting for reuse.
    public var idleDatabaseCount: Int { core.idleElements.count }

    /// The number of connections handed out and not yet enqueued or removed.
    public var activeDatabaseCount: Int { core.checkedOutElements.count }

    /// An idle connection, or a newly opened one (announced to the delegate first).
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened; the delegate's error from
    ///   `databaseOpened`.
    public func dequeueDatabase() throws -> Connection {
        try core.checkOut {
            let connection = try Connection(path: databasePath)
            if let delegate {
                try delegateLock.withLock { _ in try delegate.databaseOpened(connection) }
            }
            return connection
        }
    }

    /// Returns a dequeued connection for reuse. Connections this pool did not hand out are ignored.
    ///
    /// A transaction left open is rolled back first, and statements left running are reset, so
    /// the next caller starts clean (debug builds report it on standard error).
    public func enqueueDatabase(_ database: Connection) {
        // Only a connection this pool handed out is touched: another's transaction is its own.
        core.checkIn(database)
    }

    /// Drops a connection from the pool, idle or dequeued, and tells the delegate.
    public func removeDatabase(_ database: Connection) {
        guard core.remove(database), let delegate else { return }
        delegateLock.withLock { _ in delegate.databaseClosed(database) }
    }

    /// Closes every idle connection (dequeued ones are unaffected), telling the delegate.
    public func drain() {
        let idle = core.drainIdle()
        guard let delegate else { return }
        delegateLock.withLock { _ in
            for database in idle { delegate.databaseClosed(database) }
        }
    }
}
