import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Database {
    /// Reports what this database's connections do to `handler` (nil stops): every call's work,
    /// statements, failures, checkpoints and observation fetches. See ``DatabaseEventHandler``.
    ///
    /// Set it before the database is shared: a connection busy with a call gets it once the call
    /// returns, and a call already queued may not be reported.
    public func setEventHandler(_ handler: (any DatabaseEventHandler)?) {
        tracker().withState { $0.handler = handler }
        readerPool.setEventHandler(handler)
        _ = try? writerQueue.execute { $0.setEventHandler(handler) } // the closure cannot throw
    }

    /// The tracker, made on first use; it then stays, so every later call is counted.
    private func tracker() -> DatabaseWorkTracker {
        workTracker.withLock { tracker in
            if let tracker { return tracker }
            let made = DatabaseWorkTracker()
            tracker = made
            isTracked.store(true)
            return made
        }
    }

    /// Counts the calls from now on, so a shutdown can wait for them (``runningWorkCount``).
    package func trackWork() {
        _ = tracker()
    }

    /// Makes every call from now on throw `error` before it starts (calls already admitted go on):
    /// the first step of a graceful shutdown.
    package func refuseNewWork(throwing error: any Error & Sendable) {
        tracker().withState { $0.refusal = error }
    }

    /// Calls admitted and not yet returned, once tracked (see ``refuseNewWork(throwing:)``).
    package var runningWorkCount: Int {
        workTracker.current?.withState { $0.running } ?? 0
    }

    /// Interrupts the statement each running call is executing (`sqlite3_interrupt`), which SQLite
    /// rolls back: the last step of a shutdown whose deadline passed.
    func interruptRunningWork() {
        tracker().interruptAll()
    }

    /// Closes the idle reader connections (the writer closes with the database).
    package func closeIdleReaders() {
        readerPool.closeIdleConnections()
    }

    /// Waits until every admitted call has returned (see ``refuseNewWork(throwing:)``). Each few
    /// milliseconds `shouldInterrupt` is asked; once it says yes, the running statements are
    /// interrupted (and rolled back) each time, so the wait ends.
    package func waitForRunningWork(interruptingWhen shouldInterrupt: () -> Bool) async {
        while runningWorkCount > 0 {
            if shouldInterrupt() { interruptRunningWork() }
            await Self.pauseBriefly()
        }
    }

    /// Waits a few milliseconds without a cancellation check (a cancelled task must still drain).
    private static func pauseBriefly() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { continuation.resume() }
        }
    }

    /// The checkpoint of a shutdown, on `connection` (the writer): TRUNCATE, so the WAL is empty
    /// and the database file alone holds the data; PASSIVE while Litestream replicates the
    /// database (a truncation would reset the WAL under it). Its result counts the frames written
    /// back (see ``Connection/checkpointCountingFrames(mode:force:)``). Nil outside WAL mode.
    ///
    /// Another process reading or writing the file (SQLITE_BUSY, SQLITE_LOCKED) does not make it
    /// fail: every commit is already durable in the WAL, so it falls back to PASSIVE (what it can
    /// copy without waiting), and to nothing when even that is busy; the next checkpoint, in any
    /// process, copies the rest. Only what leaves the database at risk (an I/O error, a full disk,
    /// corruption) is thrown.
    package static func shutdownCheckpoint(on connection: Connection) throws -> (mode: Connection.CheckpointMode, result: Connection.CheckpointResult)? {
        guard connection.journalModeIsWAL else { return nil }
        // A guard that refuses TRUNCATE (a replicator's, see `checkpointGuards`) gets PASSIVE.
        let truncationRefused = Connection.checkpointGuards.contains { (try? $0(connection, "main", .truncate)) == nil }
        let mode: Connection.CheckpointMode = truncationRefused ? .passive : .truncate
        func isContention(_ error: any Error) -> Bool {
            guard let error = error as? SQLiteError else { return false }
            return error.code & 0xFF == SQLITE_BUSY || error.code & 0xFF == SQLITE_LOCKED
        }
        do {
            return (mode, try connection.checkpointCountingFrames(mode: mode, force: true))
        } catch  where isContention(error) && mode != .passive {
            do {
                return (.passive, try connection.checkpointCountingFrames(mode: .passive, force: true))
            } catch  where isContention(error) {
                return nil
            }
        } catch  where isContention(error) {
            return nil
        }
    }
}

extension Connection {
    /// Whether the main database is in WAL mode (only then is there a WAL to checkpoint).
    var journalModeIsWAL: Bool {
        // Strata's own question, kept out of the user's trace, logs and spans.
        withBookkeeping { ((try? query("PRAGMA journal_mode") as String?) ?? nil)?.lowercased() == "wal" }
    }
}

/// Admits, counts and reports a ``Database``'s calls once events or a shutdown need it.
final class DatabaseWorkTracker: Sendable {
    struct State {
        var handler: (any DatabaseEventHandler)?
        var refusal: (any Error & Sendable)?
        var running = 0
        var readersInUse = 0
        /// The connections running calls now, with how many calls each runs (nested calls count).
        var busy: [ObjectIdentifier: (interrupter: ConnectionInterrupter, count: Int)] = [:]
    }

    /// One admitted call: what it captured before queueing.
    struct Ticket: @unchecked Sendable {
        let handler: (any DatabaseEventHandler)?
        // @unchecked: the handler's context is `Sendable`; the ticket only carries it to the queue.
        let context: (any Sendable)?
        let start: ContinuousClock.Instant
    }

    private let state = Locked(State())

    func withState<R>(_ body: (inout State) -> R) -> R { state.withLock(body) }

    /// Admits a call, or throws the refusal of a shutdown.
    private func admit() throws -> Ticket {
        let handler: (any DatabaseEventHandler)? = try state.withLock { state in
            if let refusal = state.refusal { throw refusal }
            state.running += 1
            return state.handler
        }
        return Ticket(handler: handler, context: handler?.captureContext(), start: .now)
    }

    private func leave() {
        state.withLock { $0.running -= 1 }
    }

    func interruptAll() {
        // Under the lock: an entry leaves `busy` (under it) before its connection goes back to the
        // pool, so every handle interrupted here is open; copied out, a reader closed meanwhile
        // (a closed pool, a drain) would be interrupted after it was freed.
        state.withLock { state in
            for entry in state.busy.values { entry.interrupter.interrupt() }
        }
    }

    /// Runs a synchronous call: `submit` hands the wrapped closure to its connection.
    func run<T>(
        _ kind: DatabaseWork.Kind, onReader: Bool, closure: (Connection) throws -> T,
        submit: ((Connection) throws -> T) throws -> T
    ) throws -> T {
        let ticket = try admit()
        defer { leave() }
        return try withoutActuallyEscaping(closure) { closure in
            try submit { connection in try work(ticket, kind, onReader: onReader, connection: connection, closure) }
        }
    }

    /// Runs an async call: `submit` hands the wrapped closure to its connection.
    func perform<T: Sendable>(
        _ kind: DatabaseWork.Kind, onReader: Bool, closure: @escaping @Sendable (Connection) throws -> T,
        submit: (@escaping @Sendable (Connection) throws -> T) async throws -> T
    ) async throws -> T {
        let ticket = try admit()
        defer { leave() }
        return try await submit { [self] connection in
            try work(ticket, kind, onReader: onReader, connection: connection, closure)
        }
    }

    /// On the connection's queue: reports the work around `body`, with its context set on the
    /// connection for the events of its statements.
    private func work<T>(
        _ ticket: Ticket, _ kind: DatabaseWork.Kind, onReader: Bool, connection: Connection,
        _ body: (Connection) throws -> T
    ) throws -> T {
        let waited = ContinuousClock.now - ticket.start
        let id = ObjectIdentifier(connection)
        let interrupter = connection.interrupter
        let readers = state.withLock { state in
            if onReader { state.readersInUse += 1 }
            state.busy[id, default: (interrupter, 0)].count += 1
            return state.readersInUse
        }
        let previousContext = connection.eventContext
        connection.eventContext = ticket.context
        defer { connection.eventContext = previousContext }
        ticket.handler?.workDidStart(
            DatabaseWork(kind: kind, context: ticket.context, waited: waited, readersInUse: readers, connection: connection)
        )
        let result = Result { try body(connection) }
        let readersAfter = state.withLock { state in
            if onReader { state.readersInUse -= 1 }
            if let entry = state.busy[id] {
                state.busy[id] = entry.count <= 1 ? nil : (entry.interrupter, entry.count - 1)
            }
            return state.readersInUse
        }
        if let handler = ticket.handler {
            let error: (any Error)?
            if case .failure(let failure) = result { error = failure } else { error = nil }
            handler.workDidEnd(
                DatabaseWork(kind: kind, context: ticket.context, waited: waited, readersInUse: readersAfter, connection: connection),
                error: error
            )
        }
        return try result.get()
    }
}
