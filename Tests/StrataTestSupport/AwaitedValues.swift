import Foundation
import Strata

/// Values one task appends and others wait for: a waiter is woken by each append (or the end),
/// not by polling with sleeps.
///
/// Swift Testing runs the tests of a run in parallel on the cooperative pool, one thread a core: a
/// waiter that polls every few milliseconds adds hundreds of jobs a second to that pool, beside a
/// thousand other tests, and a poll loop whose deadline passed while it was not scheduled gave up
/// without looking at the values once more. Here the condition is checked at every append and
/// once more when the bound has passed, so a late value still counts and only a missing one fails.
public final class AwaitedValues<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var isFinished = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var lastWaiterID = 0
    }

    private let state = Locked(State())

    public init() {}

    /// The values so far.
    public var values: [Value] { state.withLock { $0.values } }

    /// Whether ``finish()`` was called: no value comes after.
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Adds a value and wakes the waiters.
    public func append(_ value: Value) {
        let waiters = state.withLock { state in
            state.values.append(value)
            return state.waiters.take()
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// No more values come: wakes the waiters, whose conditions are then final.
    public func finish() {
        let waiters = state.withLock { state in
            state.isFinished = true
            return state.waiters.take()
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Waits until `condition` holds for the values so far, woken by each new value; true when it
    /// does. False when the values ended without it, or when it still does not hold once `limit`
    /// has passed (a bound for a value that never comes, not a measure of speed: pick it generous).
    public func wait(atMost limit: Duration, until condition: ([Value]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        // Wakes the waiter once at the deadline, for its last look.
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.wakeAll()
        }
        defer { timer.cancel() }
        while true {
            let (values, finished) = state.withLock { ($0.values, $0.isFinished) }
            if condition(values) { return true }
            if finished || ContinuousClock.now >= deadline { return false }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    // A value or the end that came since the look above, or the deadline (the
                    // timer may have fired before this waiter was registered): look again.
                    if state.values.count != values.count || state.isFinished || ContinuousClock.now >= deadline {
                        return true
                    }
                    state.lastWaiterID += 1
                    state.waiters[state.lastWaiterID] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    private func wakeAll() {
        let waiters = state.withLock { $0.waiters.take() }
        for waiter in waiters.values { waiter.resume() }
    }
}

private extension Dictionary {
    /// The dictionary's entries, leaving it empty.
    mutating func take() -> Self {
        defer { self = [:] }
        return self
    }
}
