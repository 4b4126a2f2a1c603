// Cancellation of async calls: a cancelled task interrupts only its own closure's statement, never
// the next caller's, because the interrupt is sent under the same lock that marks the closure done.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Sends `sqlite3_interrupt` to a connection from any thread.
// @unchecked Sendable: it holds only the handle, and `sqlite3_interrupt` is documented as safe to
// call from another thread while the connection is open (the owner outlives every run using it).
package struct ConnectionInterrupter: @unchecked Sendable {
    let handle: SQLiteConnectionHandle

    package func interrupt() { sqlite3_interrupt(handle) }
}

extension Connection {
    /// Interrupts this connection's running statement from another thread.
    package var interrupter: ConnectionInterrupter { ConnectionInterrupter(handle: handle) }
}

/// One closure's run on a connection, from queued to finished, that a cancelled task can stop.
package final class InterruptibleRun: Sendable {
    private enum Phase { case queued, running, finished }
    private struct State {
        var phase = Phase.queued
        var isCancelled = false
    }

    private let interrupter: ConnectionInterrupter
    private let state = Locked(State())

    package init(interrupter: ConnectionInterrupter) { self.interrupter = interrupter }

    /// Marks the closure running; false when the task was cancelled before it started.
    package func start() -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { state.phase = .finished; return false }
            state.phase = .running
            return true
        }
    }

    /// Marks the closure finished and turns an interruption caused by cancellation into
    /// `CancellationError`.
    package func finish<T>(_ result: Result<T, any Error>) -> Result<T, any Error> {
        let cancelled = state.withLock { state in
            state.phase = .finished
            return state.isCancelled
        }
        if cancelled, case .failure(let error as SQLiteError) = result, error.code & 0xFF == SQLITE_INTERRUPT {
            return .failure(CancellationError())
        }
        return result
    }

    /// Called when the task is cancelled: interrupts the closure if it is running now.
    package func cancel() {
        state.withLock { state in
            state.isCancelled = true
            if state.phase == .running { interrupter.interrupt() }
        }
    }
}
