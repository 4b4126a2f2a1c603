// Per-connection state that layers above the kernel keep (Squeal's insert plan, say) without the
// kernel naming their types: each declares a typed slot once, and every connection holds one value
// per slot, made on first use and released with the connection.
import Foundation

/// A place on every ``Connection`` for one piece of state a higher layer keeps per connection.
///
/// Declare it once, as a `static let`, and read it with `Connection.state(in:)`:
/// ```swift
/// extension PlanMemo { static let slot = ConnectionSlot { PlanMemo() } }
/// let memo = connection.state(in: PlanMemo.slot)
/// ```
/// The value lives as long as the connection and is used by the connection's one thread at a
/// time, as the connection is. It must not hold the connection strongly (that would be a cycle).
/// It survives schema changes: state derived from a compiled statement belongs on the statement
/// (`Statement.statementCache(for:as:)`), which forgets it when SQLite re-prepares.
package struct ConnectionSlot<Value: AnyObject>: Sendable {
    /// The slot's position in each connection's slot array, unique in the process.
    let index: Int
    let make: @Sendable () -> Value

    /// A new slot whose value `make` creates on a connection's first read of it.
    package init(_ make: @escaping @Sendable () -> Value) {
        index = slotIndexes.withLock { next in
            defer { next += 1 }
            return next
        }
        self.make = make
    }
}

/// The next free slot index; slots are declared as `static let`s, so it is taken rarely.
private let slotIndexes = Locked(0)

extension Connection {
    /// The value of `slot` on this connection, made on first use.
    ///
    /// One array read and a nil check: cheap enough to call once per statement execution.
    @inline(__always)
    package final func state<Value>(in slot: ConnectionSlot<Value>) -> Value {
        if slot.index < slotValues.count, let value = slotValues[slot.index] {
            // Only `makeState` stores at this index, and only a `Value` made by this slot.
            return unsafeDowncast(value, to: Value.self)
        }
        return makeState(in: slot)
    }

    /// The value of `slot` on this connection if it was ever made; never makes one.
    @inline(__always)
    package final func existingState<Value>(in slot: ConnectionSlot<Value>) -> Value? {
        guard slot.index < slotValues.count, let value = slotValues[slot.index] else { return nil }
        return unsafeDowncast(value, to: Value.self)
    }

    @inline(never)
    private func makeState<Value>(in slot: ConnectionSlot<Value>) -> Value {
        let value = slot.make()
        if slotValues.count <= slot.index {
            slotValues.append(contentsOf: repeatElement(nil, count: slot.index + 1 - slotValues.count))
        }
        slotValues[slot.index] = value
        return value
    }
}
