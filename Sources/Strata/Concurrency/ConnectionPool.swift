import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Read-only connections to one database, opened on demand and reused, for parallel reads.
///
/// ```swift
/// let pool = ConnectionPool(storageLocation: .onDisk("path_to_db"))
/// try pool.execute { connection in
///     let count: Int? = try connection.query("SELECT count(*) FROM cars")
/// }
/// ```
/// Each closure gets a connection no other caller is using. When no connection has been busy for
/// `availableConnectionDrainDelay` seconds, the pool closes idle connections down to one. Use WAL
/// mode so readers never wait for the writer.
// @unchecked Sendable: the two sets are only read or written while holding `lock`; connections
// are used only through their ConnectionQueue.
public final class ConnectionPool: @unchecked Sendable {
    /// The flags readers open with unless told otherwise.
    public static let defaultReaderFlags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE

    /// How long connections opened by a pool or a `Database` wait on a lock before failing with
    /// `SQLITE_BUSY`. Even WAL readers meet brief locks (while the WAL index is rebuilt or reset);
    /// a preparation closure can set another `busyHandler`.
    public static let defaultBusyTimeout: TimeInterval = 5

    public let storageLocation: StorageLocation
    public let tableLockPolicy: TableLockPolicy
    public let flags: Int32
    public let availableConnectionDrainDelay: TimeInterval
    private let connectionPreparation: ((Connection) throws -> Void)?

    private let lock = NSLock()
    private var _availableConnections: Set<ConnectionQueue> = []
    private var _busyConnections: Set<ConnectionQueue> = []
    private var drainGeneration = 0
    private let drainQueue = DispatchQueue(label: "strata.connection-pool.drain")

    /// Creates the pool; connections open on first use. `connectionPreparation` runs once on each
    /// new connection (set pragmas, register functions).
    public init(
        storageLocation: StorageLocation,
        tableLockPolicy: TableLockPolicy = .fastFail,
        flags: Int32 = ConnectionPool.defaultReaderFlags,
        availableConnectionDrainDelay: TimeInterval = 1.0,
        connectionPreparation: ((Connection) throws -> Void)? = nil
    ) {
        self.storageLocation = storageLocation
        self.tableLockPolicy = tableLockPolicy
        self.flags = flags
        self.availableConnectionDrainDelay = availableConnectionDrainDelay
        self.connectionPreparation = connectionPreparation
    }

    /// Idle connections.
    var availableConnections: Set<ConnectionQueue> { lock.withLock { _availableConnections } }
    /// Connections handed out and not yet returned.
    var busyConnections: Set<ConnectionQueue> { lock.withLock { _busyConnections } }

    /// Runs `closure` on a connection of its own; the connection returns to the pool afterwards,
    /// also when `closure` throws.
    @discardableResult
    public func execute<T>(closure: (Connection) throws -> T) throws -> T {
        let queue = try dequeueConnectionForUse()
        defer { enqueueConnectionForReuse(queue) }
        return try queue.execute(closure: closure)
    }

    /// The async twin of ``execute(closure:)``: waits for nothing on the caller's thread.
    public func perform<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let queue = try dequeueConnectionForUse()
        defer { enqueueConnectionForReuse(queue) }
        return try await queue.perform(closure)
    }

    /// Takes an idle connection, or opens a new one, and marks it busy.
    func dequeueConnectionForUse() throws -> ConnectionQueue {
        let reused: ConnectionQueue? = lock.withLock {
            guard let queue = _availableConnections.popFirst() else { return nil }
            _busyConnections.insert(queue)
            return queue
        }
        if let reused { return reused }
        let connection = try Connection(storageLocation: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags)
        try connection.busyHandler(.timeout(ConnectionPool.defaultBusyTimeout))
        try connectionPreparation?(connection)
        let queue = ConnectionQueue(connection: connection)
        lock.withLock { _ = _busyConnections.insert(queue) }
        return queue
    }

    /// Returns a connection to the idle set and restarts the drain timer.
    func enqueueConnectionForReuse(_ queue: ConnectionQueue) {
        let generation: Int = lock.withLock {
            guard _busyConnections.remove(queue) != nil else { return drainGeneration }
            _availableConnections.insert(queue)
            drainGeneration += 1
            return drainGeneration
        }
        scheduleDrain(generation: generation)
    }

    private func scheduleDrain(generation: Int) {
        drainQueue.asyncAfter(deadline: .now() + availableConnectionDrainDelay) { [weak self] in
            self?.drainIfIdle(generation: generation)
        }
    }

    /// Closes idle connections down to one, if nothing happened since `generation` and no
    /// connection is busy; otherwise tries again after the delay.
    private func drainIfIdle(generation: Int) {
        let retry: Bool = lock.withLock {
            guard generation == drainGeneration else { return false }
            guard _busyConnections.isEmpty else { return true }
            while _availableConnections.count > 1 { _availableConnections.removeFirst() }
            return false
        }
        if retry { scheduleDrain(generation: generation) }
    }
}
