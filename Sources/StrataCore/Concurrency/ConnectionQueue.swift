import StrataKernel
import StrataSchema
import Foundation

/// Runs work on one connection serially, from any thread.
///
/// ```swift
/// let queue = try ConnectionQueue(connection: Connection(path: "path_to_db"))
/// try queue.executeInTransaction { connection in
///     try connection.execute("INSERT INTO cars VALUES(1, 'Audi', 52642)")
/// }
/// let count = try await queue.perform { connection in try connection.query("SELECT count(*) FROM cars") as Int? }
/// ```
/// A closure may call the queue again (it runs inline instead of deadlocking).
// @unchecked Sendable: the connection is only touched inside `queue` (a serial DispatchQueue), so
// at most one thread uses it at a time. `connection` stays public for SQift compatibility; using
// it outside the queue's closures gives up that guarantee.
public final class ConnectionQueue: @unchecked Sendable {
    /// The connection the queue serializes.
    public let connection: Connection
    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// What the layers above keep for this queue's connection (observation's center, which tracks
    /// its commits), made by the module's composition (`Composition.swift`, ``makeCompanion``) as the
    /// queue is made, before the connection is shared; this folder names none of their types.
    let companion: any AnyObject & Sendable

    /// Who ends what each closure leaves running on the connection (see
    /// ``Connection/endLeftoverWork(returningTo:)``) when it returns; nil for a queue whose owner
    /// may run one transaction across several closures.
    private let leftoverWorkOwner: String?

    /// Set by ``close(finally:)``; from then on every call throws ``SQLiteError/closed``.
    private let isClosed = AtomicFlag(false)

    /// Wraps `connection`; from now on use it only through the queue.
    public convenience init(connection: Connection) {
        self.init(connection: connection, endingLeftoverWorkFor: nil)
    }

    /// Wraps `connection`; with `owner`, what each outermost closure leaves running (a statement,
    /// a transaction) is ended when it returns, as for a `Database`'s writer, which every caller
    /// shares.
    package init(connection: Connection, endingLeftoverWorkFor owner: String?) {
        self.connection = connection
        self.leftoverWorkOwner = owner
        self.queue = DispatchQueue(label: "strata.connection-queue")
        // Dormant (one atomic load per statement) until someone observes.
        self.companion = Self.makeCompanion(connection)
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(queue))
    }

    /// Whether the current thread is already running one of this queue's closures.
    private var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(queue) }

    /// Runs `closure` with the connection, waiting until the queue is free; returns its value.
    @discardableResult
    public func execute<T>(closure: (Connection) throws -> T) throws -> T {
        if isOnQueue { return try closure(connection) }
        return try queue.sync {
            // Checked on the queue, so nothing queued behind a close runs after it.
            if isClosed.load() { throw DatabaseError.closed }
            defer { endLeftoverWorkIfAsked() }
            return try closure(connection)
        }
    }

    /// Ends what a caller left running on the connection, on the queue (see
    /// ``Connection/endLeftoverWork(returningTo:)``): for a pool taking the queue back.
    package func endLeftoverWork(returningTo owner: String) {
        if isOnQueue {
            connection.endLeftoverWork(returningTo: owner)
        } else {
            queue.sync { _ = connection.endLeftoverWork(returningTo: owner) }
        }
    }

    /// On the queue, after an outermost closure.
    private func endLeftoverWorkIfAsked() {
        if let leftoverWorkOwner { connection.endLeftoverWork(returningTo: leftoverWorkOwner) }
    }

    /// Runs `closure` inside a transaction (see ``Connection/transaction(transactionType:closure:)``).
    @discardableResult
    public func executeInTransaction<T>(
        transactionType: Connection.TransactionType = .deferred,
        closure: (Connection) throws -> T
    ) throws -> T {
        try execute { connection in
            try connection.transaction(transactionType: transactionType) { try closure(connection) }
        }
    }

    /// Runs `closure` inside a savepoint (see ``Connection/savepoint(named:closure:)``).
    @discardableResult
    public func executeInSavepoint<T>(named name: String, closure: (Connection) throws -> T) throws -> T {
        try execute { connection in
            try connection.savepoint(named: name) { try closure(connection) }
        }
    }

    /// SQift README's spelling: `executeInSavepoint("name") { connection in ... }`.
    @discardableResult
    public func executeInSavepoint<T>(_ name: String, closure: (Connection) throws -> T) throws -> T {
        try executeInSavepoint(named: name, closure: closure)
    }

    // MARK: - async

    /// Runs `closure` on the queue without blocking the caller's thread; returns its value.
    ///
    /// Cancelling the calling task interrupts the statement `closure` is running
    /// (`sqlite3_interrupt`), which SQLite rolls back, and the call throws `CancellationError`; a
    /// closure that has not started yet never starts. A closure that finishes before the
    /// interruption lands returns its value as usual.
    /// - Throws: `CancellationError` when cancelled; what `closure` throws.
    public func perform<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let run = InterruptibleRun(interrupter: connection.interrupter)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    if self.isClosed.load() { return continuation.resume(throwing: DatabaseError.closed) }
                    guard run.start() else { return continuation.resume(throwing: CancellationError()) }
                    let result = run.finish(Result { try closure(self.connection) })
                    // After `finish`, so a late cancellation cannot interrupt the cleanup.
                    self.endLeftoverWorkIfAsked()
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            run.cancel()
        }
    }

    /// Runs `body` once the work queued before it is done, and marks the queue closed before it
    /// starts: every later call throws ``SQLiteError/closed``, so `body` (a final checkpoint)
    /// is the last thing the connection runs.
    package func close<T: Sendable>(finally body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                self.isClosed.store(true)
                continuation.resume(with: Result { try body(self.connection) })
            }
        }
    }

    /// The async twin of ``executeInTransaction(transactionType:closure:)``.
    public func performInTransaction<T: Sendable>(
        transactionType: Connection.TransactionType = .deferred,
        _ closure: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await perform { connection in
            try connection.transaction(transactionType: transactionType) { try closure(connection) }
        }
    }

    /// The async twin of ``executeInSavepoint(named:closure:)``.
    public func performInSavepoint<T: Sendable>(named name: String, _ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await perform { connection in
            try connection.savepoint(named: name) { try closure(connection) }
        }
    }
}

extension ConnectionQueue: Hashable {
    /// Queues are equal only when they are the same instance (and so the same connection).
    public static func == (lhs: ConnectionQueue, rhs: ConnectionQueue) -> Bool { lhs === rhs }
    /// Hashes the queue by identity, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
