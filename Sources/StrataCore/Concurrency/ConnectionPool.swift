import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Read-only connections to one database, opened on demand and reused, for parallel reads.
///
/// ```swift
/// let pool = ConnectionPool(storageLocation: .onDisk("path_to_db"))   // import StrataSQift
/// try pool.execute { connection in
///     let count: Int? = try connection.query("SELECT count(*) FROM cars")
/// }
/// ```
/// Each closure gets a connection no other caller is using. At most `maximumConnectionCount`
/// connections are open at once; past that, callers wait (`execute`) or suspend (`perform`) for
/// a free one, so a closure must not call `execute` on its own pool more times than that, nested.
/// When no connection has been busy for `availableConnectionDrainDelay` seconds, the pool closes
/// idle connections down to one. Use WAL mode so readers never wait for the writer.
public final class ConnectionPool: Sendable {
    /// The flags readers open with unless told otherwise.
    public static let defaultReaderFlags = OpenFlags.make(readOnly: true)

    /// How long connections opened by a pool or a `Database` wait on a lock before failing with
    /// `SQLITE_BUSY`. Even WAL readers meet brief locks (while the WAL index is rebuilt or reset);
    /// a preparation closure can set another `busyHandler`.
    public static let defaultBusyTimeout: TimeInterval = 5

    /// How many connections a pool opens at most unless told otherwise (GRDB's default too).
    public static let defaultMaximumConnectionCount = 5

    /// The database every connection of the pool opens.
    public let storageLocation: StorageLocation
    /// What the pool's connections do on a table lock (`SQLITE_LOCKED`).
    public let tableLockPolicy: TableLockPolicy
    /// The `sqlite3_open_v2` flags each connection opens with.
    public let flags: Int32
    /// How long the pool must sit idle before it closes spare connections, keeping one.
    public let availableConnectionDrainDelay: TimeInterval
    /// The most connections open at once (at least 1).
    public let maximumConnectionCount: Int
    private let connectionPreparation: SerializedPreparation?
    /// Registrations every connection runs before its next use (table-valued functions and
    /// virtual tables added to a `Database` after its readers opened), in order.
    private let registrations = Locked<[@Sendable (Connection) throws -> Void]>([])

    /// The kernel's pool state machine, holding the connections.
    private let core: PoolCore<ConnectionQueue>
    private let drainQueue = DispatchQueue(label: "strata.connection-pool.drain")
    /// What every connection reports its events to (see ``Database/setEventHandler(_:)``).
    private let eventHandler = Locked<(any DatabaseEventHandler)?>(nil)
    /// Set by ``close()``: no connection is handed out or kept idle any more.
    private let isClosed = AtomicFlag(false)

    /// SQift's pool, kept so code that imports only `Strata` still builds; `import StrataSQift`
    /// for it. A ``Database`` holds a pool of readers of its own.
    @_disfavoredOverload
    @available(*, deprecated, message: "SQift's pool: import StrataSQift, or open a Database(path:configuration:), which pools its readers")
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

    /// Creates the pool; connections open on first use. `connectionPreparation` runs once on each
    /// new connection (set pragmas, register functions); calls to it never overlap, so it may
    /// touch state of its own without a lock.
    package init(
        location storageLocation: StorageLocation,
        tableLockPolicy: TableLockPolicy,
        flags: Int32,
        availableConnectionDrainDelay: TimeInterval,
        maximumConnectionCount: Int,
        connectionPreparation: ((Connection) throws -> Void)?
    ) {
        self.storageLocation = storageLocation
        self.tableLockPolicy = tableLockPolicy
        self.flags = flags
        self.availableConnectionDrainDelay = availableConnectionDrainDelay
        self.maximumConnectionCount = max(1, maximumConnectionCount)
        self.connectionPreparation = connectionPreparation.map(SerializedPreparation.init)
        self.core = PoolCore(maximum: self.maximumConnectionCount) { $0.endLeftoverWork(returningTo: "a ConnectionPool") }
    }

    /// SQift's internal pool surface, for `StrataSQift`, whose internal forwarders give SQift's own
    /// tests (`@testable import StrataSQift`) the names they reach with `@testable import SQift`.
    package var sqiftAvailableConnections: Set<ConnectionQueue> {
        get { availableConnections }
        set { availableConnections = newValue }
    }
    package var sqiftBusyConnections: Set<ConnectionQueue> {
        get { busyConnections }
        set { busyConnections = newValue }
    }
    package func sqiftDequeueConnectionForUse() throws -> ConnectionQueue { try dequeueConnectionForUse() }
    package func sqiftEnqueueConnectionForReuse(_ queue: ConnectionQueue) { enqueueConnectionForReuse(queue) }

    /// Idle connections (settable, as SQift's tests reset it).
    var availableConnections: Set<ConnectionQueue> {
        get { Set(core.idleElements) }
        set { core.idleElements = Array(newValue) }
    }

    /// Connections handed out and not yet returned (settable, as SQift's tests reset it).
    var busyConnections: Set<ConnectionQueue> {
        get { Set(core.checkedOutElements) }
        set { core.checkedOutElements = Array(newValue) }
    }

    /// Runs `closure` on a connection of its own; the connection returns to the pool afterwards,
    /// also when `closure` throws. Waits while `maximumConnectionCount` connections are busy.
    /// A statement still running or a transaction still open when it returns is reset or rolled
    /// back (and reported on standard error in debug builds), so the next caller reads fresh data.
    /// - Throws: `SQLiteError` when a new connection cannot be opened; what `closure` throws.
    @discardableResult
    public func execute<T>(closure: (Connection) throws -> T) throws -> T {
        let queue = try dequeueConnectionForUse()
        defer { enqueueConnectionForReuse(queue) }
        return try queue.execute { connection in
            try applyRegistrations(to: connection)
            return try closure(connection)
        }
    }

    /// The async twin of ``execute(closure:)``: suspends, rather than blocking the caller's
    /// thread, while every connection is busy or the closure runs.
    ///
    /// Cancelling the calling task ends its wait for a connection, or interrupts the statement
    /// running (see ``ConnectionQueue/perform(_:)``), and the call throws `CancellationError`.
    /// - Throws: `CancellationError` when cancelled; `SQLiteError` when a new connection cannot
    ///   be opened; what `closure` throws.
    public func perform<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let queue = try await acquireConnection()
        defer { enqueueConnectionForReuse(queue) }
        return try await queue.perform { connection in
            try self.applyRegistrations(to: connection)
            return try closure(connection)
        }
    }

    /// Runs a short `closure` on a connection of its own, on the calling task's thread: no hop to
    /// the connection's queue and back, which for a fetch of a few microseconds costs more than
    /// the fetch. Cancellation interrupts it as ``perform(_:)`` does.
    func performOnCallingThread<T: Sendable>(_ closure: @Sendable (Connection) throws -> T) async throws -> T {
        let queue = try await acquireConnection()
        defer { enqueueConnectionForReuse(queue) }
        let run = InterruptibleRun(interrupter: queue.connection.interrupter)
        return try await withTaskCancellationHandler {
            guard run.start() else { throw CancellationError() }
            let result = Result {
                try queue.execute { connection in
                    try applyRegistrations(to: connection)
                    return try closure(connection)
                }
            }
            return try run.finish(result).get()
        } onCancel: {
            run.cancel()
        }
    }

    /// Adds a registration that every connection of the pool runs before its next use.
    func addRegistration(_ register: @escaping @Sendable (Connection) throws -> Void) {
        registrations.withLock { $0.append(register) }
    }

    /// Runs the registrations `connection` has not run yet (on the connection's queue).
    private func applyRegistrations(to connection: Connection) throws {
        let progress = connection.state(in: PoolRegistrationProgress.slot)
        let pending = registrations.withLock { $0.count > progress.applied ? Array($0[progress.applied...]) : [] }
        for register in pending {
            try register(connection)
            progress.applied += 1
        }
    }

    // MARK: - Handing out connections

    /// Takes an idle connection, or opens a new one below the maximum, or waits for one to be
    /// returned; marks it busy.
    /// - Throws: `SQLiteError` when a new connection cannot be opened.
    func dequeueConnectionForUse() throws -> ConnectionQueue {
        if isClosed.load() { throw DatabaseError.closed }
        return try core.checkOut(opening: openConnection)
    }

    /// The async form of ``dequeueConnectionForUse()``: suspends while the pool is full.
    func acquireConnection() async throws -> ConnectionQueue {
        if isClosed.load() { throw DatabaseError.closed }
        // A cancelled caller gives up its place in line: it would only be interrupted once served.
        return try await core.checkOut(whenCancelled: .stopWaiting, opening: openConnection)
    }

    /// A connection opened and prepared as the pool's are, but not one of them: it counts
    /// toward no limit and is never handed out (``DatabaseSnapshot`` keeps its read open on one).
    func openConnectionOutsidePool() throws -> ConnectionQueue { try openConnection() }

    private func openConnection() throws -> ConnectionQueue {
        if isClosed.load() { throw DatabaseError.closed }
        let connection = try Connection(storageLocation: storageLocation, tableLockPolicy: tableLockPolicy, flags: flags)
        try connection.busyHandler(.timeout(ConnectionPool.defaultBusyTimeout))
        try connectionPreparation?.run(connection)
        if let handler = eventHandler.current { connection.setEventHandler(handler) }
        return ConnectionQueue(connection: connection)
    }

    /// Sets `handler` on every connection, open now or later; a busy one gets it when its call returns.
    package func setEventHandler(_ handler: (any DatabaseEventHandler)?) {
        eventHandler.withLock { $0 = handler }
        for queue in core.idleElements + core.checkedOutElements {
            _ = try? queue.execute { $0.setEventHandler(handler) } // the closure cannot throw
        }
    }

    /// Closes the idle connections now (busy ones stay the pool's until returned).
    func closeIdleConnections() {
        _ = core.drainIdle(keeping: 0) // released here, outside the lock
    }

    /// Closes the idle connections and refuses new work: each busy connection closes when its
    /// call returns, and later calls throw ``SQLiteError/closed``.
    package func close() {
        isClosed.store(true)
        closeIdleConnections()
    }

    /// Returns a connection: to the first waiter if any, else to the idle set (restarting the
    /// drain timer); after ``close()``, out of the pool, to close.
    func enqueueConnectionForReuse(_ queue: ConnectionQueue) {
        if isClosed.load() {
            core.remove(queue)
            return
        }
        if case .idle(let generation) = core.checkIn(queue) {
            // A close that came between the check above and the check-in must not leave it idle.
            if isClosed.load() { closeIdleConnections() } else { scheduleDrain(generation: generation) }
        }
    }

    /// The drain timer, at most one pending however many connections come back: scheduling
    /// one per check-in put a timer on libdispatch's heap for every call (20,000 a second for a
    /// busy server, each waking a thread when it fired).
    private struct DrainSchedule {
        /// Whether a timer is pending; the check-ins meanwhile only move the times below.
        var pending = false
        /// The pool's idle generation at the latest check-in (``PoolCore/checkIn(_:)``).
        var generation = 0
        /// When the latest check-in happened (``monotonicNanoseconds()``).
        var lastCheckIn: UInt64 = 0
        /// How many timers were started, for tests.
        var timersStarted = 0
    }
    private let drainSchedule = Locked(DrainSchedule())

    /// How many drain timers the pool has started (tests check that check-ins share one).
    var drainTimersStarted: Int { drainSchedule.withLock { $0.timersStarted } }

    /// ``availableConnectionDrainDelay`` in nanoseconds, within what a timer can wait for; nil
    /// for a delay that never ends (NaN and infinity, which Dispatch never fired either).
    private var drainDelayNanoseconds: UInt64? {
        let delay = availableConnectionDrainDelay
        guard !delay.isNaN, delay != .infinity else { return nil }
        guard delay > 0 else { return 0 } // a negative delay drains at once, as before
        return delay >= 1e9 ? 1_000_000_000_000_000_000 : UInt64(delay * 1e9)
    }

    /// How long a timer that found connections out waits before it looks again: the delay, but
    /// not less than a millisecond, so that a delay of 0 does not spin a thread while a
    /// connection is out.
    private static let minimumRetryNanoseconds: UInt64 = 1_000_000

    /// Notes a check-in that left the pool idle at `generation`; starts the timer if none runs.
    private func scheduleDrain(generation: Int) {
        guard let delay = drainDelayNanoseconds else { return }
        let now = monotonicNanoseconds()
        let start = drainSchedule.withLock { schedule -> Bool in
            // Check-ins racing to this lock may arrive out of order: keep the latest.
            schedule.generation = max(schedule.generation, generation)
            schedule.lastCheckIn = max(schedule.lastCheckIn, now)
            guard !schedule.pending else { return false }
            schedule.pending = true
            return true
        }
        if start { startDrainTimer(after: delay) }
    }

    private func startDrainTimer(after nanoseconds: UInt64) {
        drainSchedule.withLock { $0.timersStarted += 1 }
        drainQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))) { [weak self] in
            self?.drainTimerFired()
        }
    }

    /// Closes idle connections down to one when the delay has passed since the latest check-in
    /// and nothing is out; otherwise waits again (for the rest of the delay, or all of it while
    /// connections are out).
    private func drainTimerFired() {
        // A closed pool closes what comes back as it comes back.
        guard !isClosed.load(), let delay = drainDelayNanoseconds else { return }
        let now = monotonicNanoseconds()
        let (remaining, generation) = drainSchedule.withLock { schedule -> (UInt64?, Int) in
            let due = schedule.lastCheckIn &+ delay
            return (now < due ? due - now : nil, schedule.generation)
        }
        if let remaining { return startDrainTimer(after: remaining) }
        let (retry, closing) = core.drainIdle(ifStillAt: generation, keeping: 1)
        _ = closing // released here, outside the lock: closing a connection takes time
        // A check-in after the read above found the timer pending and left it to this one.
        let again = drainSchedule.withLock { schedule -> UInt64? in
            if retry { return max(delay, Self.minimumRetryNanoseconds) }
            if schedule.generation != generation { return 0 } // waits out the rest of that one's delay
            schedule.pending = false
            return nil
        }
        if let again { startDrainTimer(after: again) }
    }
}

/// A connection preparation closure whose calls never overlap: pools open connections from
/// several threads at once, and SQift's closures were not written for that.
// @unchecked Sendable: `closure` is only called while holding `lock`.
private final class SerializedPreparation: @unchecked Sendable {
    private let lock = NSLock()
    private let closure: (Connection) throws -> Void

    init(_ closure: @escaping (Connection) throws -> Void) { self.closure = closure }

    func run(_ connection: Connection) throws {
        try lock.withLock { try closure(connection) }
    }
}

/// How many of its pool's registrations (`ConnectionPool.addRegistration`) a connection has run,
/// kept in a slot of the connection.
final class PoolRegistrationProgress {
    static let slot = ConnectionSlot { PoolRegistrationProgress() }
    var applied = 0
}
