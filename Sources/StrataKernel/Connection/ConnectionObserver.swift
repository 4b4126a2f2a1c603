// The one way a layer above the kernel hears of a connection's statements: it registers an
// observer (observation's access monitor, the database events' reporter, transactions' failure
// watch), and the kernel calls every registered one, naming none of them.
import Foundation

/// What a layer above the kernel hears of one connection's work, on that connection's thread.
///
/// Register with ``Connection/addObserver(_:)`` on the connection's thread, or before the
/// connection is shared. Every method has a default that does nothing, so an observer implements
/// only what it needs. A connection with no observer of executions pays one emptiness check per
/// execution; the others are called on failures, finished statements and checkpoints only.
package protocol ConnectionObserver: AnyObject {
    /// Whether the observer hears of every execution (the first three methods); fixed for its
    /// life. Only such observers are called on the hot path.
    var observesExecutions: Bool { get }

    /// The first row of an execution. Returns whether the observer must hear of the execution's
    /// end even when it comes by a reset or a finalize.
    func statementProducedRow(_ prepared: PreparedStatement, on connection: Connection) -> Bool

    /// The end of an execution: at `SQLITE_DONE`, at an error, or at a reset before `SQLITE_DONE`
    /// of one that produced a row (`afterRow`: whether ``statementProducedRow(_:on:)`` was called).
    func statementEnded(_ prepared: PreparedStatement, on connection: Connection, afterRow: Bool)

    /// A statement whose execution produced a row is finalized before its end: `finalize` does it
    /// (SQLite commits then). An observer that takes part calls it and returns true.
    func statementFinalized(_ prepared: PreparedStatement, on connection: Connection, finalize: () -> Void) -> Bool

    /// A statement failed to compile or to run (after ``statementEnded(_:on:afterRow:)`` for one
    /// that ran); `sql` is its text when known.
    func statementFailed(_ error: SQLiteError, sql: String?, on connection: Connection)

    /// A statement failed to compile: nothing ran. By default, the same as
    /// ``statementFailed(_:sql:on:)``; an observer of what running statements did (a transaction
    /// SQLite may have rolled back) ignores it.
    func statementFailedToCompile(_ error: SQLiteError, sql: String?, on connection: Connection)

    /// Whether the observer wants ``statementFinished(_:sql:nanoseconds:on:)``: the connection
    /// traces its statements (SQLite's trace callback) only while one does. Read when the trace
    /// is installed, so an observer answering true is added before it.
    var wantsFinishedStatements: Bool { get }

    /// A statement finished running, in `nanoseconds` (from the trace callback).
    func statementFinished(_ statement: SQLiteStatementHandle, sql: String, nanoseconds: Int64, on connection: Connection)

    /// A checkpoint of the connection's database finished.
    func checkpointFinished(mode: Connection.CheckpointMode, result: Connection.CheckpointResult, on connection: Connection)

    /// Something was written without a statement Strata saw (blob I/O, a backup into this
    /// connection, a deserialize, a changeset, a reset's commit).
    func connectionWroteOutsideStatements(_ written: DatabaseAccess, on connection: Connection)
}

extension ConnectionObserver {
    package var observesExecutions: Bool { false }
    package func statementProducedRow(_ prepared: PreparedStatement, on connection: Connection) -> Bool { false }
    package func statementEnded(_ prepared: PreparedStatement, on connection: Connection, afterRow: Bool) {}
    package func statementFinalized(_ prepared: PreparedStatement, on connection: Connection, finalize: () -> Void) -> Bool { false }
    package func statementFailed(_ error: SQLiteError, sql: String?, on connection: Connection) {}
    package func statementFailedToCompile(_ error: SQLiteError, sql: String?, on connection: Connection) {
        statementFailed(error, sql: sql, on: connection)
    }
    package func connectionWroteOutsideStatements(_ written: DatabaseAccess, on connection: Connection) {}
    package var wantsFinishedStatements: Bool { false }
    package func statementFinished(_ statement: SQLiteStatementHandle, sql: String, nanoseconds: Int64, on connection: Connection) {}
    package func checkpointFinished(mode: Connection.CheckpointMode, result: Connection.CheckpointResult, on connection: Connection) {}
}

extension Connection {
    /// Registers `observer` (once: registering it again does nothing). Call it on the connection's
    /// thread, or before the connection is shared.
    package func addObserver(_ observer: any ConnectionObserver) {
        guard !observers.contains(where: { $0 === observer }) else { return }
        observers.append(observer)
        if observer.observesExecutions { executionObservers.append(observer) }
    }

    /// Unregisters `observer`.
    package func removeObserver(_ observer: any ConnectionObserver) {
        observers.removeAll { $0 === observer }
        executionObservers.removeAll { $0 === observer }
    }

    @usableFromInline @inline(never)
    func notifyStatementProducedRow(_ prepared: PreparedStatement) -> Bool {
        var wantsEnd = false
        for observer in executionObservers where observer.statementProducedRow(prepared, on: self) { wantsEnd = true }
        return wantsEnd
    }

    @usableFromInline @inline(never)
    func notifyStatementEnded(_ prepared: PreparedStatement, afterRow: Bool) {
        for observer in executionObservers { observer.statementEnded(prepared, on: self, afterRow: afterRow) }
    }

    /// Finalizes through the observer that takes part, or directly when none does.
    func notifyStatementFinalized(_ prepared: PreparedStatement, finalize: () -> Void) {
        for observer in executionObservers where observer.statementFinalized(prepared, on: self, finalize: finalize) { return }
        finalize()
    }

    @usableFromInline @inline(never)
    func notifyStatementFailed(_ error: SQLiteError, sql: String?) {
        for observer in observers { observer.statementFailed(error, sql: sql, on: self) }
    }

    func notifyStatementFailedToCompile(_ error: SQLiteError, sql: String?) {
        for observer in observers { observer.statementFailedToCompile(error, sql: sql, on: self) }
    }

    /// Whether an observer wants each finished statement (the trace callback is installed for it).
    var observersWantFinishedStatements: Bool { observers.contains { $0.wantsFinishedStatements } }

    func notifyStatementFinished(_ statement: SQLiteStatementHandle, sql: String, nanoseconds: Int64) {
        for observer in observers { observer.statementFinished(statement, sql: sql, nanoseconds: nanoseconds, on: self) }
    }

    func notifyCheckpointFinished(mode: CheckpointMode, result: CheckpointResult) {
        for observer in observers { observer.checkpointFinished(mode: mode, result: result, on: self) }
    }

    /// Records writes made outside Strata's statements, so observers hear of them.
    package func noteWrites(_ written: DatabaseAccess) {
        for observer in observers { observer.connectionWroteOutsideStatements(written, on: self) }
    }

    /// The one entry point for a change made without a statement Strata saw (incremental blob
    /// I/O, a backup into this connection, deserialize, a dump restored, a changeset applied):
    /// the authorizer reported nothing, so it counts as a change to the whole database, reported
    /// with the transaction it belongs to (at once outside one). Call it on the connection's thread.
    package func noteChangeOutsideStatements() {
        noteWrites(.everything)
    }
}
