// Observation's access monitor, registered as a `ConnectionObserver`: what each statement
// execution reads and writes, on a connection that observation uses. The writer reports each committed transaction's writes, a reader reports what a fetch read. Strata's
// statements all step through `Statement`, so the monitor hears of every execution there: its reads
// at its first row, its writes once at its end (done, failed, or reset or finalized before done),
// and needs no SQLite hook that a user might also set.
import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Hears of every statement execution on one connection (on that connection's thread).
///
/// A statement's reads and writes are learned once, from the authorizer while Strata compiles it,
/// and kept on the compiled statement; a statement compiled before monitoring began, or
/// re-prepared by SQLite since (after a schema change), is compiled again on the side to learn
/// them afresh.
package final class AccessMonitor: ConnectionObserver {
    /// Receives each committed transaction's writes, when the connection's writes are tracked.
    private var onCommit: ((DatabaseAccess) -> Void)?
    /// Whether anyone observes the connection's commits now; set from any thread, read on every
    /// execution, so tracking costs one atomic load while nobody observes.
    private let isAwake = AtomicFlag(false)
    /// Whether the previous execution was tracked (the connection's thread only).
    private var wasAwake = false
    /// The writes of the transaction in progress.
    private var pendingWrites = DatabaseAccess()
    /// What the statements run so far by the fetch being recorded read.
    private var recordedReads: DatabaseAccess?
    /// A fetch read this connection inside the open transaction: it may have seen writes a
    /// ROLLBACK then undoes, so the rollback is reported as a change to what they touched.
    private var fetchedInsideTransaction = false

    /// Where a connection keeps its monitor (registered as its observer when made).
    static let slot = ConnectionSlot { AccessMonitor() }

    init() {}

    package var observesExecutions: Bool { true }

    /// The part of the monitor other threads may touch.
    var awakeSwitch: AwakeSwitch { AwakeSwitch(monitor: self) }

    /// Starts or stops a monitor's commit reports from any thread.
    // @unchecked Sendable: it only reaches the monitor's `isAwake`, an atomic flag.
    struct AwakeSwitch: @unchecked Sendable {
        fileprivate let monitor: AccessMonitor

        /// Starts reporting commits, from the next statement execution on.
        package func wake() { monitor.isAwake.store(true) }

        /// Stops reporting commits.
        package func sleep() { monitor.isAwake.store(false) }
    }

    /// Called at the first row of an execution: what it reads counts for the fetch being
    /// recorded. Its writes wait for the execution's end: SQLite commits an autocommit statement
    /// (an `INSERT … RETURNING` read for one row only) when it is reset, not at its first row.
    /// - Returns: Whether the monitor must hear of the execution's end even when it comes by a
    ///   reset or a finalize: when commits are tracked and the statement may write.
    package func statementProducedRow(_ prepared: PreparedStatement, on connection: Connection) -> Bool {
        if recordedReads != nil { recordedReads?.formUnion(currentAccess(of: prepared, on: connection).reads) }
        return onCommit != nil && sqlite3_stmt_readonly(prepared.handle) == 0
    }

    /// Called once at the end of each execution of a statement of the connection: at
    /// `SQLITE_DONE`, at an error, and at a reset before `SQLITE_DONE` of an execution that
    /// produced a row. A failed statement counts too: with `OR FAIL` or `RAISE(FAIL)` the rows it
    /// wrote before failing stay, and autocommit commits them.
    /// - Parameter afterRow: Whether ``statementProducedRow(_:on:)`` was called for the execution.
    package func statementEnded(_ prepared: PreparedStatement, on connection: Connection, afterRow: Bool) {
        if !afterRow, recordedReads != nil { recordedReads?.formUnion(currentAccess(of: prepared, on: connection).reads) }
        guard tracksWritesNow() else { return }
        writesEnded(currentAccess(of: prepared, on: connection), on: connection)
    }

    /// Called when a statement whose execution produced a row is finalized before its end, with
    /// `finalize` doing it: SQLite commits then, so the writes are reported after it, and learned
    /// before it while the statement is still there to learn them from.
    package func statementFinalized(_ prepared: PreparedStatement, on connection: Connection, finalize: () -> Void) -> Bool {
        guard tracksWritesNow() else { return false }
        let access = currentAccess(of: prepared, on: connection)
        finalize()
        writesEnded(access, on: connection)
        return true
    }

    /// Whether commits are reported now; when they stop, forgets the writes pending, which the
    /// next wake-up treats as unknown.
    private func tracksWritesNow() -> Bool {
        guard onCommit != nil, isAwake.load() else {
            if wasAwake {
                wasAwake = false
                pendingWrites = DatabaseAccess()
            }
            return false
        }
        return true
    }

    /// Adds an ended execution's writes to the transaction's, and reports them all when no
    /// transaction is left open (an autocommit statement, a COMMIT).
    private func writesEnded(_ access: StatementAccess, on connection: Connection) {
        let inTransaction = sqlite3_get_autocommit(connection.handle) == 0
        if !wasAwake {
            wasAwake = true
            // Woken in the middle of a transaction: what it wrote before is unknown.
            if inTransaction ? !access.writes.beginsTransaction : access.writes.endsTransaction || access.writes.rollsBack {
                pendingWrites.insertEverything()
            }
        }
        if access.writes.rollsBack {
            // A fetch on this connection (a ConnectionQueue's, or an in-memory database's) during
            // the transaction saw its writes: their undoing changes what it would read now.
            let undone = pendingWrites
            pendingWrites = DatabaseAccess()
            if fetchedInsideTransaction, !undone.isEmpty { onCommit?(undone) }
        } else if !access.writes.isEmpty {
            pendingWrites.formUnion(access.writes)
        }
        if !inTransaction {
            if !pendingWrites.isEmpty { transactionEnded() }
            fetchedInsideTransaction = false
        }
    }

    /// What `prepared` reads and writes now, learning it again when it is unknown or stale.
    private func currentAccess(of prepared: PreparedStatement, on connection: Connection) -> StatementAccess {
        if let access = prepared.access, prepared.accessCapturedAt == prepared.reprepareCount { return access }
        let access = connection.analyse(prepared.sql)
        prepared.access = access
        return access
    }

    /// Records writes made outside Strata's statements (a changeset applied); reported at once
    /// when no transaction is open.
    package func connectionWroteOutsideStatements(_ written: DatabaseAccess, on connection: Connection) {
        guard onCommit != nil, isAwake.load() else { return }
        pendingWrites.formUnion(written)
        if !pendingWrites.isEmpty, sqlite3_get_autocommit(connection.handle) != 0 { transactionEnded() }
    }

    private func transactionEnded() {
        fetchedInsideTransaction = false
        let written = pendingWrites
        pendingWrites = DatabaseAccess()
        onCommit?(written)
    }

    fileprivate func trackWrites(_ onCommit: @escaping (DatabaseAccess) -> Void) {
        self.onCommit = onCommit
        pendingWrites = DatabaseAccess()
    }

    fileprivate func startRecordingReads(inTransaction: Bool) -> DatabaseAccess? {
        if inTransaction { fetchedInsideTransaction = true }
        defer { recordedReads = DatabaseAccess() }
        return recordedReads
    }

    fileprivate func stopRecordingReads(restoring outer: DatabaseAccess?) -> DatabaseAccess {
        defer { recordedReads = outer }
        return recordedReads ?? DatabaseAccess()
    }
}

extension Connection {
    /// The connection's monitor, created on first use. Call it on the connection's thread, or
    /// before the connection is shared.
    package var monitor: AccessMonitor {
        if let monitor = existingState(in: AccessMonitor.slot) { return monitor }
        let monitor = state(in: AccessMonitor.slot)
        addObserver(monitor)
        return monitor
    }

    /// Reports each committed transaction's writes to `onCommit` while the monitor is awake, on
    /// the connection's thread, after `sqlite3_step` returned from the commit (so a connection
    /// opened afterwards sees it). Call it before the connection is shared.
    func trackWrites(_ onCommit: @escaping (DatabaseAccess) -> Void) {
        monitor.trackWrites(onCommit)
    }

    /// Runs `body`, returning with its result what the statements it ran read (tables and
    /// columns): an observation's region.
    func recordingReads<T>(_ body: () throws -> T) rethrows -> (T, DatabaseAccess) {
        let monitor = self.monitor
        if !authorizerHub.isMonitoring {
            authorizerHub.isMonitoring = true
            installAuthorizerHubIfNeeded(forceReinstall: false)
        }
        let outer = monitor.startRecordingReads(inTransaction: sqlite3_get_autocommit(handle) == 0)
        do {
            let value = try body()
            return (value, monitor.stopRecordingReads(restoring: outer))
        } catch {
            _ = monitor.stopRecordingReads(restoring: outer)
            throw error
        }
    }
}
