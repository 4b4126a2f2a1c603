import Foundation

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
    private struct State {
        var idle: [Connection] = []
        var busy: [ObjectIdentifier: Connection] = [:]
        var delegate: DatabasePoolDelegate?
    }

    /// The database file every connection opens.
    public let databasePath: String

    /// The idle and busy connections and the delegate; a connection moves between threads only
    /// by being handed over through this lock.
    private let state: Locked<State>
    /// Serializes delegate calls, so a delegate need not be thread-safe.
    private let delegateLock = Locked(())

    /// Creates the pool; connections open on first ``dequeueDatabase()``. The pool keeps a
    /// strong reference to `delegate`.
    public init(databasePath: String, delegate: DatabasePoolDelegate? = nil) {
        self.databasePath = databasePath
        self.state = Locked(State(delegate: delegate))
    }

    /// The object told about opened and closed connections.
    public var delegate: DatabasePoolDelegate? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The number of idle connections waiting for reuse.
    public var idleDatabaseCount: Int { state.withLock { $0.idle.count } }

    /// The number of connections handed out and not yet enqueued or removed.
    public var activeDatabaseCount: Int { state.withLock { $0.busy.count } }

    /// An idle connection, or a newly opened one (announced to the delegate first).
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened; the delegate's error from
    ///   `databaseOpened`.
    public func dequeueDatabase() throws -> Connection {
        let reused: Connection? = state.withLock { state in
            guard let connection = state.idle.popLast() else { return nil }
            state.busy[ObjectIdentifier(connection)] = connection
            return connection
        }
        if let reused { return reused }
        let connection = try Connection(path: databasePath)
        if let delegate {
            try delegateLock.withLock { _ in try delegate.databaseOpened(connection) }
        }
        state.withLock { $0.busy[ObjectIdentifier(connection)] = connection }
        return connection
    }

    /// Returns a dequeued connection for reuse. Connections this pool did not hand out are ignored.
    ///
    /// A transaction left open is rolled back first, so the next caller starts clean.
    public func enqueueDatabase(_ database: Connection) {
        // Only a connection this pool handed out is touched: another's transaction is its own.
        let ours = state.withLock { $0.busy[ObjectIdentifier(database)] != nil }
        guard ours else { return }
        if database.isInTransaction { try? database.rollback() }
        state.withLock { state in
            guard state.busy.removeValue(forKey: ObjectIdentifier(database)) != nil else { return }
            state.idle.append(database)
        }
    }

    /// Drops a connection from the pool, idle or dequeued, and tells the delegate.
    public func removeDatabase(_ database: Connection) {
        let (removed, delegate): (Bool, DatabasePoolDelegate?) = state.withLock { state in
            let id = ObjectIdentifier(database)
            var removed = state.busy.removeValue(forKey: id) != nil
            if let index = state.idle.firstIndex(where: { $0 === database }) {
                state.idle.remove(at: index)
                removed = true
            }
            return (removed, state.delegate)
        }
        if removed, let delegate {
            delegateLock.withLock { _ in delegate.databaseClosed(database) }
        }
    }

    /// Closes every idle connection (dequeued ones are unaffected), telling the delegate.
    public func drain() {
        let (idle, delegate) = state.withLock { state in
            defer { state.idle.removeAll() }
            return (state.idle, state.delegate)
        }
        guard let delegate else { return }
        delegateLock.withLock { _ in
            for database in idle { delegate.databaseClosed(database) }
        }
    }
}
