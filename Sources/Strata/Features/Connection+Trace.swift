import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// An event reported by `sqlite3_trace_v2`.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement starts running: its SQL as written and with bound values expanded.
        case statement(statement: String, sql: SQL)
        /// A statement finished, with its run time.
        case profile(statement: String, seconds: Double)
        /// A statement produced a row.
        case row(statement: String)
        /// The connection closed.
        case connectionClosed(connection: OpaquePointer)

        public static let statementMask = UInt32(SQLITE_TRACE_STMT)
        public static let profileMask = UInt32(SQLITE_TRACE_PROFILE)
        public static let rowMask = UInt32(SQLITE_TRACE_ROW)
        public static let connectionClosedMask = UInt32(SQLITE_TRACE_CLOSE)

        public var description: String {
            switch self {
            case .statement(let statement, let sql): return "TraceEvent.statement: { statement: \"\(statement)\", sql: \"\(sql)\" }"
            case .profile(let statement, let seconds): return "TraceEvent.profile: { statement: \"\(statement)\", seconds: \(seconds) }"
            case .row(let statement): return "TraceEvent.row: { statement: \"\(statement)\" }"
            case .connectionClosed(let connection): return "TraceEvent.connectionClosed: { connection: \(connection) }"
            }
        }

        init?(mask: UInt32, p: UnsafeMutableRawPointer?, x: UnsafeMutableRawPointer?) {
            guard let p else { return nil }
            let statement = OpaquePointer(p)
            func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
            switch Int32(mask) {
            case SQLITE_TRACE_STMT:
                let expanded = sqlite3_expanded_sql(statement)
                defer { sqlite3_free(expanded) }
                self = .statement(statement: text(sqlite3_sql(statement)), sql: expanded.map { String(cString: $0) } ?? text(sqlite3_sql(statement)))
            case SQLITE_TRACE_PROFILE:
                let nanoseconds = x?.assumingMemoryBound(to: Int64.self).pointee ?? 0
                self = .profile(statement: text(sqlite3_sql(statement)), seconds: Double(nanoseconds) / 1_000_000_000)
            case SQLITE_TRACE_ROW:
                self = .row(statement: text(sqlite3_sql(statement)))
            case SQLITE_TRACE_CLOSE:
                self = .connectionClosed(connection: statement)
            default:
                return nil
            }
        }
    }

    /// Calls `closure` for the trace events in `mask` (all four when nil); nil unregisters.
    ///
    /// ```swift
    /// connection.traceEvent { event in
    ///     if case .statement(_, let sql) = event { print(sql) }
    /// }
    /// ```
    /// See <https://www.sqlite.org/c3ref/trace_v2.html>.
    public func traceEvent(mask: UInt32? = nil, closure: ((TraceEvent) -> Void)?) {
        let mask = mask ?? (TraceEvent.statementMask | TraceEvent.profileMask | TraceEvent.rowMask | TraceEvent.connectionClosedMask)
        registerCallback("trace", closure) { handle, pointer in
            sqlite3_trace_v2(handle, pointer == nil ? 0 : mask, pointer.map { _ in { eventMask, pointer, p, x in
                guard let pointer, let event = TraceEvent(mask: eventMask, p: p, x: x) else { return 0 }
                CallbackBox<(TraceEvent) -> Void>.from(pointer)(event)
                return 0
            } }, pointer)
        }
    }

    /// Calls `closure` with the expanded SQL of each statement run (SQift 3's `trace`).
    public func trace(_ closure: ((String) -> Void)?) {
        guard let closure else { traceEvent(closure: nil); return }
        traceEvent(mask: TraceEvent.statementMask) { event in
            if case .statement(_, let sql) = event { closure(sql) }
        }
    }
}
