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
///
/// `sqlite3_interrupt` stops only a statement that is running when it arrives: SQLite clears the
/// flag when the next statement starts on an idle connection. A cancellation that lands between
/// two statements of the closure would be lost, and a long statement after it would run to its
/// end. So while the closure runs, a progress handler also polls the cancellation (every 1,000
/// virtual-machine instructions: a flag load) and stops whichever statement runs after it.
package final class InterruptibleRun: Sendable {
    private enum Phase { case queued, running, finished }
    private struct State {
        var phase = Phase.queued
        var isCancelled = false
    }

    private let interrupter: ConnectionInterrupter
    private let state = Locked(State())
    /// Read by the progress handler on the connection's thread, set by `cancel()` on any thread.
    private let cancelRequested = AtomicFlag(false)

    package init(interrupter: ConnectionInterrupter) { self.interrupter = interrupter }

    /// Marks the closure running; false when the task was cancelled before it started. Runs on
    /// the thread that then runs the closure, which owns the connection until `finish`.
    package func start() -> Bool {
        let started = state.withLock { state in
            guard !state.isCancelled else { state.phase = .finished; return false }
            state.phase = .running
            return true
        }
        if started {
            sqlite3_progress_handler(
                interrupter.handle, 1_000,
                { context in
                    guard let context else { return 0 }
                    return Unmanaged<InterruptibleRun>.fromOpaque(context).takeUnretainedValue().cancelRequested.load() ? 1 : 0
                }, Unmanaged.passUnretained(self).toOpaque())
        }
        return started
    }

    /// Marks the closure finished and turns an interruption caused by cancellation into
    /// `CancellationError`. Runs on the closure's thread, after it.
    package func finish<T>(_ result: Result<T, any Error>) -> Result<T, any Error> {
        sqlite3_progress_handler(interrupter.handle, 0, nil, nil)
        let cancelledUnderLock = state.withLock { state in
            state.phase = .finished
            return state.isCancelled
        }
        // `cancel()` raises `cancelRequested` before it takes the lock: the progress handler may
        // have interrupted on it already, with `isCancelled` not yet set. Still a cancellation.
        let cancelled = cancelledUnderLock || cancelRequested.load()
        if cancelled, case .failure(let error as SQLiteError) = result, error.code & 0xFF == SQLITE_INTERRUPT {
            return .failure(CancellationError())
        }
        return result
    }

    /// Called when the task is cancelled: interrupts the closure's statement if one runs now,
    /// and every statement it starts after this.
    package func cancel() {
        cancelRequested.store(true)
        state.withLock { state in
            state.isCancelled = true
            if state.phase == .running { interrupter.interrupt() }
        }
    }
}
