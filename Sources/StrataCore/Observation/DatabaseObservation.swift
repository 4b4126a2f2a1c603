import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The values of a fetch, again after every commit that changes what it read.
///
/// ```swift
/// for try await count in database.observe({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 }) {
///     print("players:", count)
/// }
/// ```
/// The first value is the current one. After that, a commit on the database's writer that wrote to
/// a table and column the fetch read (its region, learned while its statements compiled) makes the
/// next value due; commits elsewhere yield nothing. A consumer slower than the writer gets one
/// fetch of the latest state, not one per commit, and values arrive in commit order. `Equatable`
/// values equal to the last one delivered are skipped.
///
/// Fetches run on a reader connection after the commit (the writer is never blocked), and an
/// observation waiting for a change holds no connection. Ending the loop, or cancelling its task,
/// ends the observation. The sequence throws the fetch's error, then ends.
public struct DatabaseObservation<Value: Sendable>: AsyncSequence, Sendable {
    /// The type of values the observation delivers.
    public typealias Element = Value

    let center: ObservationCenter
    let externalChanges: ExternalChanges?
    /// Runs the fetch on a reader, returning its value and what it read.
    let fetchOnReader: @Sendable () async throws -> (Value, DatabaseAccess)
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    /// Where the fetches run; each iterator makes its own when nil.
    var thread: ObservationThread? = nil

    /// Starts the observation (each iterator is an observation of its own).
    public func makeAsyncIterator() -> Iterator { Iterator(observation: self) }

    /// Delivers the observation's values; see ``DatabaseObservation``.
    public struct Iterator: AsyncIteratorProtocol {
        let observation: DatabaseObservation
        private var registration: Registration?
        private var last: Value?
        private var isFinished = false
        private var inBurst = false
        private let thread: ObservationThread

        init(observation: DatabaseObservation) {
            self.observation = observation
            thread = observation.thread ?? ObservationThread()
        }

        /// The next value: the current one first, then one after each change to what it read;
        /// nil once cancelled.
        /// - Throws: what the fetch throws (the observation then ends).
        public mutating func next() async throws -> Value? {
            guard !isFinished else { return nil }
            // All of it on the observation's thread, not only the fetch: a fetch lane handed on
            // by the observer before then wakes this one where it fetches, one thread switch in
            // the chain of observers taking turns rather than two.
            let thread = self.thread
            return try await thread.run { try await self.nextOnThread() }
        }

        private mutating func nextOnThread() async throws -> Value? {
            let registration: Registration
            if let existing = self.registration {
                registration = existing
            } else {
                registration = Registration(center: observation.center, externalChanges: observation.externalChanges)
                self.registration = registration
            }
            let observer = registration.observer
            while true {
                guard try await observer.waitUntilDue(), !Task.isCancelled else { return finish() }
                if inBurst {
                    // The writer committed during the last fetch and likely goes on: let a few more
                    // commits land, so one fetch covers them (a lone commit is fetched at once).
                    try? await Task.sleep(for: observation.center.burstCoalescingDelay)
                    guard !Task.isCancelled else { return finish() }
                }
                observer.fetchStarted()
                let value: Value, region: DatabaseAccess
                do {
                    let lanes = observation.center.fetchLanes
                    let lane = try await lanes.checkOut(whenCancelled: .stopWaiting) { FetchLane() }
                    defer { lanes.checkIn(lane) }
                    (value, region) = try await observation.fetchOnReader()
                } catch {
                    _ = finish()
                    if error is CancellationError || Task.isCancelled { return nil }
                    throw error
                }
                inBurst = observer.fetchEnded(region: region)
                if let last, let isDuplicate = observation.isDuplicate, isDuplicate(last, value) { continue }
                last = value
                return value
            }
        }

        private mutating func finish() -> Value? {
            isFinished = true
            registration?.end()
            registration = nil
            return nil
        }
    }
}

/// An observer's place in its center, given up when the iterator ends or is dropped.
final class Registration: Sendable {
    let observer: Observer
    private let center: ObservationCenter
    private let isEnded = Locked(false)

    init(center: ObservationCenter, externalChanges: ExternalChanges?) {
        self.center = center
        self.observer = center.register(externalChanges: externalChanges)
    }

    func end() {
        let first = isEnded.withLock { ended -> Bool in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        observer.cancel()
        center.unregister(observer)
    }

    deinit { end() }
}

/// Keeps a closure-based observation running; ``cancel()`` or dropping the token ends it.
///
/// Keep the token for as long as you want changes: in a property, or with `store(in:)`.
/// The compiler's fix-it for an unused result, `_ = database.observe(…)`, drops the token at once,
/// so the observation delivers its first value and then nothing. Where the observation belongs to
/// a scope or a task, prefer `withObservation(_:onChange:during:)`
/// or iterating `observe(_:)` in the task: neither
/// leaves a token to drop.
///
/// ```swift
/// let token = database.observe({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 }) { result in
///     if case .success(let count) = result { print("players:", count) }
/// }
/// // later
/// token.cancel()
/// ```
public final class ObservationToken: Sendable, Hashable {
    private let task: Task<Void, Never>
    private let isCancelledFlag: Locked<Bool>

    init<Value: Sendable>(observation: DatabaseObservation<Value>, onChange: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        let cancelled = Locked(false)
        isCancelledFlag = cancelled
        let thread = ObservationThread()
        var onThread = observation
        onThread.thread = thread
        let observation = onThread
        task = thread.task {
            var retryDelay = ObservationToken.firstRetryDelay
            while !cancelled.current, !Task.isCancelled {
                do {
                    for try await value in observation {
                        // A value fetched while cancel() ran is not delivered after it returned.
                        guard !cancelled.current else { return }
                        onChange(.success(value))
                        retryDelay = ObservationToken.firstRetryDelay
                    }
                    return
                } catch {
                    guard !cancelled.current else { return }
                    onChange(.failure(error))
                    // A disk that failed a read (or filled up) usually comes back: observe again,
                    // from the current value, after a pause that grows while the failures go on.
                    guard ObservationToken.isResumable(error) else { return }
                    try? await Task.sleep(for: retryDelay)
                    retryDelay = min(retryDelay * 2, ObservationToken.longestRetryDelay)
                }
            }
        }
    }

    static let firstRetryDelay = Duration.milliseconds(10)
    static let longestRetryDelay = Duration.seconds(2)

    /// Whether a fetch failed for a reason outside the fetch (I/O, a full disk, a lock, memory),
    /// after which observing again makes sense; an error of the fetch's own ends the observation.
    static func isResumable(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_PROTOCOL].contains(error.code)
    }

    /// Whether ``cancel()`` was called (or the token was dropped).
    public var isCancelled: Bool { isCancelledFlag.current }

    /// Ends the observation: no value is delivered after this returns, and what the observation
    /// registered is released.
    public func cancel() {
        isCancelledFlag.withLock { $0 = true }
        task.cancel()
    }

    /// Keeps the token in `tokens`, so the observation runs as long as the collection holds it.
    ///
    /// ```swift
    /// var observations = Set<ObservationToken>()
    /// database.observe({ try $0.query("SELECT count(*) FROM players") as Int? ?? 0 }) { print($0) }
    ///     .store(in: &observations)
    /// ```
    public func store(in tokens: inout Set<ObservationToken>) {
        tokens.insert(self)
    }

    /// Keeps the token in `tokens`, so the observation runs as long as the array holds it.
    public func store(in tokens: inout [ObservationToken]) {
        tokens.append(self)
    }

    /// Tokens are equal when they are the same token.
    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs === rhs }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    deinit { cancel() }
}

/// The thread an observation's fetches run on: a serial dispatch queue of the observation's own,
/// not Swift's cooperative pool.
///
/// The pool has one thread a core, which a fetch blocked in SQLite (a busy database, an endless
/// query waiting to be interrupted) or a caller's semaphore would hold: on a one-core machine the
/// task that was to cancel the fetch could never run. One queue per observation rather than one
/// concurrent queue for all, because libdispatch also runs a concurrent queue's work on one thread
/// a core, where a serial queue runs on its overcommitting pool, which starts another thread when
/// one blocks. Task executors arrived in macOS 15 and its siblings; before them the fetches run
/// on the cooperative pool.
final class ObservationThread: Sendable {
    // Untyped so that the class exists where `TaskExecutor` does not.
    private let executor: (any Sendable)?

    init() {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            executor = ObservationDeliveryExecutor()
        } else {
            executor = nil
        }
    }

    /// A task whose jobs all run on this thread.
    func task(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *),
            let executor = executor as? ObservationDeliveryExecutor
        {
            // The task may outlive every other reference to its thread (a cancelled token is
            // dropped while its last job runs), so the operation keeps it alive to the end.
            return Task(executorPreference: executor) {
                await operation()
                withExtendedLifetime(self) {}
            }
        }
        return Task(operation: operation)
    }

    /// Runs `operation` on this thread (no hop when the task already runs here).
    func run<T>(_ operation: () async throws -> T) async throws -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *),
            let executor = executor as? ObservationDeliveryExecutor
        {
            return try await withTaskExecutorPreference(executor, operation: operation)
        }
        return try await operation()
    }
}

/// Runs one observation's jobs on its serial dispatch queue (see ``ObservationThread``).
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class ObservationDeliveryExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "strata.observation")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
