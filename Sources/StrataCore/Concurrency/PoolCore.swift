// PoolCore: the one pool state machine behind ConnectionPool and DatabasePool. It owns the idle
// elements, the elements handed out, the optional maximum and its FIFO line of waiting threads and
// tasks; the pools above it only open, prepare, announce and close what it hands them.
import StrataKernel
import StrataSchema
import Foundation

/// Hands out pooled elements one caller at a time, opening new ones on demand below an optional
/// maximum; past it, callers wait (on their thread) or suspend (in a task) in arrival order.
///
/// ```swift
/// let core = PoolCore<ConnectionQueue>(maximum: 5)
/// let queue = try core.checkOut { ConnectionQueue(connection: try Connection(storageLocation: location)) }
/// defer { core.checkIn(queue) }
/// ```
/// Opening runs outside the lock but counts against the maximum while it runs, so a slow open
/// never holds up callers that can reuse an idle element, and never lets the pool overshoot.
/// Elements are told apart by identity. An element moves between threads only by being handed over
/// under the pool's lock, which is why the synchronous API needs no `Sendable` element.
package final class PoolCore<Element: AnyObject>: Sendable {
    /// What a caller is given: an element to reuse, or leave to open a new one.
    enum Grant {
        case reuse(Element)
        case open
    }

    /// What a suspended caller does when its task is cancelled.
    enum CancellationResponse {
        /// Give up its place in line and throw `CancellationError`.
        case stopWaiting
        /// Stay in line: for pools whose documented API throws no `CancellationError`.
        case keepWaiting
    }

    /// A caller in line for an element, blocked on a thread or suspended in a task.
    private struct Waiter {
        enum Resumption {
            case thread(SynchronousWaiter<Grant>)
            /// Resumes the suspended task (made only where `Element` is `Sendable`).
            case task((Result<Grant, any Error>) -> Void)
        }

        /// Lets a cancelled task find its own entry in the line.
        let id: Int
        let resumption: Resumption

        func resume(_ grant: Grant) {
            switch resumption {
            case .thread(let waiter): waiter.resume(grant)
            case .task(let resume): resume(.success(grant))
            }
        }
    }

    private struct State {
        /// Idle elements, the most recently returned last (reused first, while its pages are warm).
        var idle: [Element] = []
        var busy: [ObjectIdentifier: Element] = [:]
        /// Elements being opened, counted against the maximum before they exist.
        var opening = 0
        var waiters: [Waiter] = []
        var lastWaiterID = 0
        /// Moves on every return to the idle list, so a drain scheduled earlier sees activity.
        var idleGeneration = 0

        /// An idle element, or leave to open one; nil when the caller must wait.
        mutating func grantNow(maximum: Int?) -> Grant? {
            if let element = idle.popLast() {
                busy[ObjectIdentifier(element)] = element
                return .reuse(element)
            }
            if let maximum, busy.count + opening >= maximum { return nil }
            opening += 1
            return .open
        }

        /// The first waiter and leave to open an element, when a slot is free.
        mutating func nextWaiterForFreeSlot(maximum: Int?) -> (Waiter, Grant)? {
            guard !waiters.isEmpty else { return nil }
            if let maximum, busy.count + opening >= maximum { return nil }
            opening += 1
            return (waiters.removeFirst(), .open)
        }

        mutating func removeOldestIdle(keeping: Int) -> [Element] {
            let count = max(0, idle.count - max(0, keeping))
            let drained = Array(idle.prefix(count))
            idle.removeFirst(count)
            return drained
        }

        mutating func newWaiterID() -> Int {
            lastWaiterID &+= 1
            return lastWaiterID
        }
    }

    /// The most elements out or idle at once (at least 1); nil for no limit.
    let maximum: Int?
    private let state = Locked(State())
    /// Readies a returned element for its next caller (a connection's leftover statements and
    /// transaction are ended), before anyone else can have it.
    private let recycle: (@Sendable (Element) -> Void)?

    /// - Parameter recycle: runs on each element checked in, on the returning caller's thread.
    package init(maximum: Int?, recycle: (@Sendable (Element) -> Void)? = nil) {
        self.maximum = maximum.map { max(1, $0) }
        self.recycle = recycle
    }

    // MARK: - Checking out

    /// An idle element, a new one from `open`, or (when the pool is full) the next one returned.
    /// - Throws: what `open` throws; the slot is then free for the next caller.
    package func checkOut(opening open: () throws -> Element) throws -> Element {
        // The common case takes the lock once and makes no waiter (a waiter owns a semaphore).
        if let grant = state.withLock({ $0.grantNow(maximum: maximum) }) {
            return try fulfil(grant, opening: open)
        }
        let waiter = SynchronousWaiter<Grant>()
        let grant: Grant? = state.withLock { state in
            if let grant = state.grantNow(maximum: maximum) { return grant }
            state.waiters.append(Waiter(id: state.newWaiterID(), resumption: .thread(waiter)))
            return nil
        }
        return try fulfil(grant ?? waiter.wait(), opening: open)
    }

    /// The async form of ``checkOut(opening:)``: suspends, without blocking a thread, while the
    /// pool is full.
    ///
    /// Cancellation only ends a wait: with `.stopWaiting` a cancelled task leaves the line and
    /// throws, and an element handed to it at the same moment still reaches it (it must check it
    /// in), so nothing is lost either way.
    /// - Throws: what `open` throws; `CancellationError` when cancelled while waiting with
    ///   `.stopWaiting`.
    func checkOut(
        whenCancelled response: CancellationResponse = .stopWaiting,
        opening open: () throws -> Element
    ) async throws -> Element where Element: Sendable {
        if let grant = state.withLock({ $0.grantNow(maximum: maximum) }) {
            return try fulfil(grant, opening: open)
        }
        let id = state.withLock { $0.newWaiterID() }
        let grant: Grant = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<Grant, any Error>? = state.withLock { state in
                    if let grant = state.grantNow(maximum: maximum) { return .success(grant) }
                    // Read under the lock `leaveLine` takes: a cancellation that came first is seen
                    // here, one that comes later finds this waiter in line.
                    if response == .stopWaiting, Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, resumption: .task { continuation.resume(with: $0) }))
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            if response == .stopWaiting { leaveLine(waiterID: id) }
        }
        return try fulfil(grant, opening: open)
    }

    /// Takes a cancelled task out of line and resumes it with `CancellationError`; does nothing
    /// when it was already handed an element (it proceeds with it).
    private func leaveLine(waiterID id: Int) {
        let resume: ((Result<Grant, any Error>) -> Void)? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }),
                case .task(let resume) = state.waiters[index].resumption
            else { return nil }
            state.waiters.remove(at: index)
            return resume
        }
        resume?(.failure(CancellationError()))
    }

    private func fulfil(_ grant: Grant, opening open: () throws -> Element) throws -> Element {
        switch grant {
        case .reuse(let element):
            return element
        case .open:
            do {
                let element = try open()
                state.withLock {
                    $0.busy[ObjectIdentifier(element)] = element; $0.opening -= 1
                }
                return element
            } catch {
                // The slot is free again: the next waiter may try to open it.
                let next = state.withLock { state in
                    state.opening -= 1
                    return state.nextWaiterForFreeSlot(maximum: maximum)
                }
                if let (waiter, grant) = next { waiter.resume(grant) }
                throw error
            }
        }
    }

    // MARK: - Returning and removing

    /// What became of a returned element.
    package enum CheckIn: Equatable {
        /// The pool did not hand it out (or it was removed): nothing changed.
        case notOurs
        /// A waiting caller has it now.
        case handedOver
        /// It is idle; `generation` identifies this moment for ``drainIdle(ifStillAt:keeping:)``.
        case idle(generation: Int)
    }

    /// Takes back an element it handed out, readied for reuse: to the first waiter if any, else
    /// to the idle list.
    @discardableResult
    package func checkIn(_ element: Element) -> CheckIn {
        // Outside the lock (a rollback takes time), and only while the element is still out with
        // the returning caller, so no other thread can be using it.
        if let recycle, isCheckedOut(element) { recycle(element) }
        let (waiter, outcome): (Waiter?, CheckIn) = state.withLock { state in
            guard state.busy[ObjectIdentifier(element)] != nil else { return (nil, .notOurs) }
            if !state.waiters.isEmpty { return (state.waiters.removeFirst(), .handedOver) } // stays busy, for the waiter
            state.busy[ObjectIdentifier(element)] = nil
            state.idle.append(element)
            state.idleGeneration += 1
            return (nil, .idle(generation: state.idleGeneration))
        }
        waiter?.resume(.reuse(element))
        return outcome
    }

    /// Whether `element` is out with a caller now, so a pool touches only what it handed out.
    func isCheckedOut(_ element: Element) -> Bool {
        state.withLock { $0.busy[ObjectIdentifier(element)] != nil }
    }

    /// Forgets an element, idle or out; its slot goes to the first waiter. False when it was not the pool's.
    @discardableResult
    package func remove(_ element: Element) -> Bool {
        let (removed, next): (Bool, (Waiter, Grant)?) = state.withLock { state in
            var removed = state.busy.removeValue(forKey: ObjectIdentifier(element)) != nil
            if let index = state.idle.firstIndex(where: { $0 === element }) {
                state.idle.remove(at: index)
                removed = true
            }
            return (removed, removed ? state.nextWaiterForFreeSlot(maximum: maximum) : nil)
        }
        if let (waiter, grant) = next { waiter.resume(grant) }
        return removed
    }

    /// Removes idle elements down to `keeping` (the oldest go) and returns them, for the caller to
    /// close outside the lock: closing a connection takes time.
    package func drainIdle(keeping: Int = 0) -> [Element] {
        state.withLock { $0.removeOldestIdle(keeping: keeping) }
    }

    /// ``drainIdle(keeping:)`` if nothing was returned since `generation` and nothing is out, so a
    /// drain timer never closes what a busy pool is about to reuse. `retry` says elements are out
    /// (try again later); an empty result without it says something was returned since.
    func drainIdle(ifStillAt generation: Int, keeping: Int) -> (retry: Bool, drained: [Element]) {
        state.withLock { state in
            guard generation == state.idleGeneration else { return (false, []) }
            guard state.busy.isEmpty else { return (true, []) }
            return (false, state.removeOldestIdle(keeping: keeping))
        }
    }

    // MARK: - Inspecting

    /// The idle elements, oldest first (settable, as SQift's tests reset a pool's sets).
    package var idleElements: [Element] {
        get { state.withLock { $0.idle } }
        set { state.withLock { $0.idle = newValue } }
    }

    /// The elements out with callers (settable, as SQift's tests reset a pool's sets).
    package var checkedOutElements: [Element] {
        get { state.withLock { Array($0.busy.values) } }
        set {
            let busy = Dictionary(newValue.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first })
            state.withLock { $0.busy = busy }
        }
    }

    /// How many callers are in line (tests use it to order their callers).
    var waiterCountForTesting: Int { state.withLock { $0.waiters.count } }
}

extension PoolCore.Grant: Sendable where Element: Sendable {}

/// A thread blocked until another hands it a value.
// @unchecked Sendable: `value` is only reached under `Locked`'s lock, and a value is handed over
// exactly once, from the thread that resumes to the thread that waits, after which the resuming
// side no longer touches it. (`Value` itself need not be `Sendable`: a pool's elements are not.)
final class SynchronousWaiter<Value>: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let value = Locked<Value?>(nil)

    func resume(_ value: Value) {
        self.value.withLock { $0 = value }
        semaphore.signal()
    }

    /// Blocks until ``resume(_:)`` has run, and returns what it was given.
    func wait() -> Value {
        while true {
            semaphore.wait()
            if let value = value.withLock({ $0 }) { return value }
        }
    }
}
