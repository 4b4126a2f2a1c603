import Foundation

/// A value that is only read or written while holding its lock: the one place where a `Sendable`
/// type keeps mutable state.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
// @unchecked Sendable: `value` is only reached through `withLock`, which holds `lock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    // Unchecked: the lock is what makes access exclusive, and a nested `withLock` on the same
    // value deadlocks before the runtime's check could report it; the check cost ~120
    // instructions per call (a commit visits each observer's `Locked` state).
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }
}
