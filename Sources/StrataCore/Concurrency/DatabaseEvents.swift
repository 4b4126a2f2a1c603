import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Hears what a ``Database`` and its connections do, for monitoring: work handed to a connection
/// (with how long it waited), statements run or failed, checkpoints and observation fetches.
///
/// ```swift
/// final class StatementCounter: DatabaseEventHandler {
///     let count = Mutex(0)
///     func statementDidFinish(_ event: DatabaseStatementEvent) { count.withLock { $0 += 1 } }
/// }
/// database.setEventHandler(StatementCounter())
/// ```
/// Every method has a default that does nothing, so a handler implements only what it needs. They
/// run synchronously on the thread doing the work (the connection's, except
/// ``captureContext()``): keep them short, and never use the connection from them. A connection
/// without a handler pays one nil check where an event could be reported, and its statements
/// are not traced at all.
public protocol DatabaseEventHandler: AnyObject, Sendable {
    /// Called on the caller's task or thread when a ``Database`` call starts, before its work is
    /// queued: what it returns reaches every event of that work as `context` (the caller's trace
    /// context, say, which does not follow the work onto the connection's queue by itself).
    func captureContext() -> (any Sendable)?
    /// A ``Database`` call's work starts on its connection.
    func workDidStart(_ work: DatabaseWork)
    /// A ``Database`` call's work ended; `error` is what it threw.
    func workDidEnd(_ work: DatabaseWork, error: (any Error)?)
    /// A statement finished running (`SQLITE_TRACE_PROFILE`), successfully or not: a failure is
    /// then reported by ``statementDidFail(_:)`` right after.
    func statementDidFinish(_ event: DatabaseStatementEvent)
    /// A statement failed to prepare or to run.
    func statementDidFail(_ event: DatabaseStatementEvent)
    /// A WAL checkpoint completed.
    func checkpointDidFinish(_ event: DatabaseCheckpointEvent)
    /// An observation of the database fetched its value (the first one, or again after a change).
    func observationDidFetch(on connection: Connection)
    /// Whether ``DatabaseStatementEvent/expandedSQL`` is wanted (expanding costs an allocation).
    var wantsExpandedSQL: Bool { get }
}

extension DatabaseEventHandler {
    public func captureContext() -> (any Sendable)? { nil }
    public func workDidStart(_ work: DatabaseWork) {}
    public func workDidEnd(_ work: DatabaseWork, error: (any Error)?) {}
    public func statementDidFinish(_ event: DatabaseStatementEvent) {}
    public func statementDidFail(_ event: DatabaseStatementEvent) {}
    public func checkpointDidFinish(_ event: DatabaseCheckpointEvent) {}
    public func observationDidFetch(on connection: Connection) {}
    public var wantsExpandedSQL: Bool { false }
}

/// One ``Database`` call's work on a connection, as a ``DatabaseEventHandler`` hears of it.
public struct DatabaseWork {
    /// What the call does.
    public enum Kind: String, Sendable {
        /// A read on a reader connection (or on the writer, for a database private to it).
        case read
        /// A write on the writer, outside any transaction the call opens.
        case write
        /// A write inside a transaction the call opens and commits.
        case transaction
    }

    /// What the call does.
    public let kind: Kind
    /// What ``DatabaseEventHandler/captureContext()`` returned for the call.
    public let context: (any Sendable)?
    /// How long the call waited for its connection: a free pooled reader, or its turn on the writer.
    public let waited: Duration
    /// How many reads were running on reader connections, this one included while it runs.
    public let readersInUse: Int
    /// The connection doing the work.
    public let connection: Connection
}

/// A statement that finished or failed, as a ``DatabaseEventHandler`` hears of it.
public struct DatabaseStatementEvent {
    /// The SQL as written, without bound values.
    public let sql: String
    /// The SQL with its bound values in place, when the handler asked for it
    /// (``DatabaseEventHandler/wantsExpandedSQL``) and the statement ran.
    public let expandedSQL: String?
    /// How long the statement ran; nil for a statement that failed to prepare.
    public var duration: Duration? { durationNanoseconds.map { .nanoseconds($0) } }
    /// ``duration`` in nanoseconds, as measured: a handler on every statement's path reads this
    /// rather than build and take apart a `Duration` (128-bit arithmetic, ~250 instructions).
    package let durationNanoseconds: Int64?
    /// Why it failed; nil in ``DatabaseEventHandler/statementDidFinish(_:)``.
    public let error: SQLiteError?
    /// The connection that ran it.
    public let connection: Connection
    /// The context of the ``Database`` call it runs for, if any.
    public let context: (any Sendable)?
}

/// A completed WAL checkpoint, as a ``DatabaseEventHandler`` hears of it.
public struct DatabaseCheckpointEvent {
    /// The checkpoint's mode.
    public let mode: Connection.CheckpointMode
    /// Frames in the WAL and frames moved.
    public let result: Connection.CheckpointResult
    /// The size of the main database's WAL file afterwards, in bytes; nil when it has none.
    public let walSizeBytes: Int64?
    /// The connection that checkpointed.
    public let connection: Connection
    /// The context of the ``Database`` call it runs for, if any.
    public let context: (any Sendable)?
}

extension Connection {
    /// The size of the main database's WAL file in bytes, nil when it has none.
    var walFileSize: Int64? {
        let path = fileName
        guard !path.isEmpty else { return nil }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
        return (attributes?[.size] as? NSNumber)?.int64Value
    }
}

/// A connection's event handler and the context of the ``Database`` call running on it, kept in a
/// slot and registered as the connection's observer while there is a handler: the kernel reports
/// failures, finished statements and checkpoints to it without naming events.
final class DatabaseEventReporter: ConnectionObserver {
    static let slot = ConnectionSlot { DatabaseEventReporter() }

    /// The handler ``Connection/setEventHandler(_:)`` set; nil stops the reports.
    var handler: (any DatabaseEventHandler)?
    /// The context of the ``Database`` call running on the connection (its queue only).
    var context: (any Sendable)?

    var wantsFinishedStatements: Bool { handler != nil }

    func statementFailed(_ error: SQLiteError, sql: String?, on connection: Connection) {
        guard let handler, !connection.authorizerHub.bookkeeping.isActive else { return }
        handler.statementDidFail(
            DatabaseStatementEvent(
                sql: sql ?? error.sql ?? "", expandedSQL: nil, durationNanoseconds: nil, error: error, connection: connection, context: context
            ))
    }

    func statementFinished(_ statement: SQLiteStatementHandle, sql: String, nanoseconds: Int64, on connection: Connection) {
        guard let handler else { return }
        var expanded: String?
        if handler.wantsExpandedSQL, let pointer = sqlite3_expanded_sql(statement) {
            expanded = String(cString: pointer)
            sqlite3_free(pointer)
        }
        handler.statementDidFinish(
            DatabaseStatementEvent(
                sql: sql, expandedSQL: expanded, durationNanoseconds: nanoseconds, error: nil,
                connection: connection, context: context
            ))
    }

    func checkpointFinished(mode: Connection.CheckpointMode, result: Connection.CheckpointResult, on connection: Connection) {
        guard let handler else { return }
        handler.checkpointDidFinish(
            DatabaseCheckpointEvent(mode: mode, result: result, walSizeBytes: connection.walFileSize, connection: connection, context: context))
    }
}

extension Connection {
    /// Where this connection's statements, failures and checkpoints are reported (see
    /// ``setEventHandler(_:)``); nil, the usual case.
    public var eventHandler: (any DatabaseEventHandler)? { existingState(in: DatabaseEventReporter.slot)?.handler }

    /// The context of the ``Database`` call running on this connection, for the events of its
    /// statements; set and read on the connection's queue only.
    var eventContext: (any Sendable)? {
        get { existingState(in: DatabaseEventReporter.slot)?.context }
        set {
            // A context set before a handler (one set inline during the call) is kept for it.
            if newValue != nil {
                state(in: DatabaseEventReporter.slot).context = newValue
            } else {
                existingState(in: DatabaseEventReporter.slot)?.context = nil
            }
        }
    }
}
