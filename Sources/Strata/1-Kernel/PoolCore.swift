// The one pool state machine: SQift's `ConnectionPool` (bounded, sync callers wait, async callers
// suspend, idle connections drained after a delay) and Squeal's `DatabasePool` (unbounded, a
// delegate told about opened and closed connections) are thin layers over it.
import Foundation

/// Hands out pooled elements one caller at a time, opening new ones on demand below an optional
/// maximum; past it, callers wait (on their thread) or suspend (in a task) in arrival order.
///
/// An element moves between threads only by being handed over under the pool's lock.
final class PoolCore<Element: AnyObject>: Sendable {
    /// What a caller is given: an element to reuse, or leave to open a new one.
    enum Grant {
        case reuse(Element)
        case open
    }

    /// A caller waiting for an element, blocked on a thread or suspended in a task.
    private enum Waiter {
        case synchronous(SynchronousWaiter<Grant>)
        /// Resumes the suspended task (made where `Element` is `Sendable`).
        case asynchronous((Grant) -> Void)
    }

    private struct State {
        /// Idle elements, the most recently returned last.
        var idle: [Element] = []
        var busy: [ObjectIdentifier: Element] = [:]
        /// Elements being opened, counted against the maximum before they exist.
        var opening = 0
        var waiters: [Waiter] = []
        /// Moves on every return to the idle list, so a drain scheduled earlier sees activity.
        var idleGeneration = 0

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
    }

    /// The most elements out or idle at once; nil for no limit.
    let maximum: Int?
    private let state = Locked(State())

    init(maximum: Int?) { self.maximum = maximum.map { max(1, $0) } }

    // MARK: - Checking out

    /// An idle element, a new one from `open`, or (when the pool is full) the next one returned.
    /// - Throws: what `open` throws; the slot is then free for the next caller.
    func checkOut(opening open: () throws -> Element) throws -> Element {
        let waiter = SynchronousWaiter<Grant>()
        let immediate: Grant? = state.withLock { state in
            if let grant = state.grantNow(maximum: maximum) { return grant }
            state.waiters.append(.synchronous(waiter))
            return nil
        }
        return try fulfil(immediate ?? waiter.wait(), opening: open)
    }

    /// The async form of ``checkOut(opening:)``: suspends while the pool is full.
    func checkOut(opening open: () throws -> Element) async throws -> Element where Element: Sendable {
        let grant: Grant = await withCheckedContinuation { continuation in
            let immediate: Grant? = state.withLock { state in
                if let grant = state.grantNow(maximum: maximum) { return grant }
                state.waiters.append(.asynchronous { grant in continuation.resume(returning: grant) })
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        return try fulfil(grant, opening: open)
    }

    private func fulfil(_ grant: Grant, opening open: () throws -> Element) throws -> Element {
        switch grant {
        case .reuse(let element):
            return element
        case .open:
            do {
                let element = try open()
                state.withLock { $0.busy[ObjectIdentifier(element)] = element; $0.opening -= 1 }
                return element
            } catch {
                let next = state.withLock { state in
                    state.opening -= 1
                    return state.nextWaiterForFreeSlot(maximum: maximum)
                }
                if let (waiter, grant) = next { Self.resume(waiter, grant) }
                throw error
            }
        }
    }

    // MARK: - Returning and removing

    /// What became of a returned element.
    enum CheckIn: Equatable {
        /// The pool did not hand it out (or it was removed): nothing changed.
        case notOurs
        /// A waiting caller has it now.
        case handedOver
        /// It is idle; `generation` identifies this moment for ``drainIdle(ifStillAt:keeping:)``.
        case idle(generation: Int)
    }

    /// Takes back an element it handed out: to the first waiter if any, else to the idle list.
    @discardableResult
    func checkIn(_ element: Element) -> CheckIn {
        let (waiter, outcome): (Waiter?, CheckIn) = state.withLock { state in
            guard state.busy[ObjectIdentifier(element)] != nil else { return (nil, .notOurs) }
            if !state.waiters.isEmpty { return (state.waiters.removeFirst(), .handedOver) } // stays busy, for the waiter
            state.busy[ObjectIdentifier(element)] = nil
            state.idle.append(element)
            state.idleGeneration += 1
            return (nil, .idle(generation: state.idleGeneration))
        }
        if let waiter { Self.resume(waiter, .reuse(element)) }
        return outcome
    }

    /// Whether `element` is out with a caller now.
    func isCheckedOut(_ element: Element) -> Bool {
        state.withLock { $0.busy[ObjectIdentifier(element)] != nil }
    }

    /// Forgets an element, idle or out; its slot goes to the first waiter. False when it was not the pool's.
    @discardableResult
    func remove(_ element: Element) -> Bool {
        let (removed, next): (Bool, (Waiter, Grant)?) = state.withLock { state in
            var removed = state.busy.removeValue(forKey: ObjectIdentifier(element)) != nil
            if let index = state.idle.firstIndex(where: { $0 === element }) {
                state.idle.remove(at: index)
                removed = true
            }
            return (removed, removed ? state.nextWaiterForFreeSlot(maximum: maximum) : nil)
        }
        if let (waiter, grant) = next { Self.resume(waiter, grant) }
        return removed
    }

    /// Removes idle elements down to `keeping` and returns them, for the caller to close outside the lock.
    func drainIdle(keeping: Int = 0) -> [Element] {
        state.withLock { state in
            let count = max(0, state.idle.count - max(0, keeping))
            let drained = Array(state.idle.prefix(count))
            state.idle.removeFirst(count)
            return drained
        }
    }

    /// ``drainIdle(keeping:)`` if nothing was returned since `generation` and nothing is out;
    /// `retry` when elements are out (try again later), nil when something was returned since.
    func drainIdle(ifStillAt generation: Int, keeping: Int) -> (retry: Bool, drained: [Element]) {
        state.withLock { state in
            guard generation == state.idleGeneration else { return (false, []) }
            guard state.busy.isEmpty else { return (true, []) }
            let count = max(0, state.idle.count - max(0, keeping))
            let drained = Array(state.idle.prefix(count))
            state.idle.removeFirst(count)
            return (false, drained)
        }
    }

    // MARK: - Inspecting

    /// The idle elements, oldest first.
    var idleElements: [Element] {
        get { state.withLock { $0.idle } }
        set { state.withLock { $0.idle = newValue } }
    }

    /// The elements out with callers.
    var checkedOutElements: [Element] {
        get { state.withLock { Array($0.busy.values) } }
        set { state.withLock { $0.busy = Dictionary(newValue.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first }) } }
    }

    /// How many callers are waiting (tests use it to order their callers).
    var waiterCountForTesting: Int { state.withLock { $0.waiters.count } }

    private static func resume(_ waiter: Waiter, _ grant: Grant) {
        switch waiter {
        case .synchronous(let waiter): waiter.resume(grant)
        case .asynchronous(let resume): resume(grant)
        }
    }
}

extension PoolCore.Grant: Sendable where Element: Sendable {}

/// A thread blocked until another hands it a value.
// @unchecked Sendable: `value` is only reached under `Locked`'s lock, and a value is handed over
// exactly once, from the thread that resumes to the thread that waits.
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
