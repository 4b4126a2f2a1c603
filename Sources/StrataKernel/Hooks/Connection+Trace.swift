import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// An event reported by `sqlite3_trace_v2`.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement starts running: `statement` is its SQL with the bound values expanded
        /// (`INSERT INTO employees VALUES(1, 'Bill Bowerman')`), `sql` the SQL as written.
        case statement(statement: String, sql: SQL)
        /// A statement finished, with its expanded SQL and its run time.
        case profile(statement: String, seconds: Double)
        /// A statement produced a row; its expanded SQL.
        case row(statement: String)
        /// The connection closed.
        case connectionClosed(connection: SQLiteConnectionHandle)

        /// Selects `.statement` events in ``Connection/traceEvent(mask:closure:)`` (`SQLITE_TRACE_STMT`).
        public static let statementMask = UInt32(SQLITE_TRACE_STMT)
        /// Selects `.profile` events, a statement's run time (`SQLITE_TRACE_PROFILE`).
        public static let profileMask = UInt32(SQLITE_TRACE_PROFILE)
        /// Selects `.row` events, one per result row (`SQLITE_TRACE_ROW`).
        public static let rowMask = UInt32(SQLITE_TRACE_ROW)
        /// Selects `.connectionClosed` events (`SQLITE_TRACE_CLOSE`).
        public static let connectionClosedMask = UInt32(SQLITE_TRACE_CLOSE)

        /// The event's kind and payload, for logging.
        public var description: String {
            switch self {
            case .statement(let statement, let sql): return "TraceEvent.statement: { statement: \"\(statement)\", sql: \"\(sql)\" }"
            case .profile(let statement, let seconds): return "TraceEvent.profile: { statement: \"\(statement)\", seconds: \(seconds) }"
            case .row(let statement): return "TraceEvent.row: { statement: \"\(statement)\" }"
            case .connectionClosed(let connection): return "TraceEvent.connectionClosed: { connection: \(connection) }"
            }
        }

        /// The event SQLite reports, or nil for an event not to deliver: statements SQLite runs
        /// for itself (inside `VACUUM` or `ALTER TABLE`, say) have no SQL text, and SQift drops
        /// them.
        init?(mask: UInt32, p: UnsafeMutableRawPointer?, x: UnsafeMutableRawPointer?) {
            guard let p else { return nil }
            if Int32(mask) == SQLITE_TRACE_CLOSE {
                self = .connectionClosed(connection: SQLiteConnectionHandle(p))
                return
            }
            let statement = SQLiteStatementHandle(p)
            guard let text = sqlite3_sql(statement).map({ String(cString: $0) }) else { return nil }
            // The SQL with bound values substituted, as SQift reports it; the plain text when
            // SQLite cannot expand it (out of memory, or longer than SQLITE_LIMIT_LENGTH).
            let expandedPointer = sqlite3_expanded_sql(statement)
            defer { sqlite3_free(expandedPointer) }
            let expanded = expandedPointer.map { String(cString: $0) } ?? text
            switch Int32(mask) {
            case SQLITE_TRACE_STMT:
                // X is the SQL as written, or a `-- trigger` comment for a trigger's statement.
                let written = x.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? text
                self = .statement(statement: expanded, sql: written)
            case SQLITE_TRACE_PROFILE:
                let nanoseconds = x?.assumingMemoryBound(to: Int64.self).pointee ?? 0
                self = .profile(statement: expanded, seconds: Double(nanoseconds) / 1_000_000_000)
            case SQLITE_TRACE_ROW:
                self = .row(statement: expanded)
            default:
                return nil
            }
        }
    }

    /// Calls `closure` for the trace events in `mask` (all four when nil); nil unregisters.
    ///
    /// ```swift
    /// connection.traceEvent { event in
    ///     if case .statement(let statement, _) = event { print(statement) }
    /// }
    /// // INSERT INTO employees VALUES(1, 'Bill Bowerman')
    /// ```
    /// Only the program's statements are reported, as in SQift: those Strata runs for its own
    /// bookkeeping (schema-version checks and introspection behind its caches, the pragmas around
    /// a rebuild, the Litestream lock check, savepoints under names it invents such as
    /// `strata_schema_migrate`) are not; those run for a call you made (a helper's `INSERT`, a
    /// migration's steps, an observation's fetch closure) are. The user callback of `authorize`
    /// follows the same rule. See <https://www.sqlite.org/c3ref/trace_v2.html>.
    public func traceEvent(mask: UInt32? = nil, closure: ((TraceEvent) -> Void)?) {
        let mask = mask ?? (TraceEvent.statementMask | TraceEvent.profileMask | TraceEvent.rowMask | TraceEvent.connectionClosedMask)
        // Strata's own bookkeeping statements are not the program's: SQift's trace never showed them.
        let bookkeeping = authorizerHub.bookkeeping
        let filtered = closure.map { closure in
            { (event: TraceEvent) in
                if case .connectionClosed = event { closure(event) } else if !bookkeeping.isActive { closure(event) }
            }
        }
        callbackBoxes["trace.user"] = filtered.map { CallbackBox(UserTrace(mask: mask, closure: $0)) }
        installTrace()
    }

    /// What ``traceEvent(mask:closure:)`` registered.
    private struct UserTrace {
        let mask: UInt32
        let closure: (TraceEvent) -> Void
    }

    /// The one trace callback SQLite holds: it serves the user's ``traceEvent(mask:closure:)``
    /// and the observers that want finished statements (the event handler's reporter) together,
    /// and is unregistered when none wants it.
    private final class TraceDispatcher {
        let user: UserTrace?
        /// Whether statements go to the connection's event handler.
        let reportsEvents: Bool
        /// Unowned: the connection holds this dispatcher (its callback box) and clears this in
        /// its deinit, before it finalizes statements (which end with trace events), so no
        /// handler sees a connection being destroyed. Not weak: a weak reference gives the
        /// connection a side table, which puts every retain and release of it, on every path,
        /// on the runtime's slow path (about 500 instructions a statement, measured).
        @exclusivity(unchecked) unowned(unsafe) var connection: Connection?
        init(user: UserTrace?, reportsEvents: Bool, connection: Connection) {
            self.user = user
            self.reportsEvents = reportsEvents
            self.connection = connection
        }

        // The state below is the connection's, used on its thread one callback at a time (a
        // connection is not shared across threads while it runs), so it skips the runtime's
        // exclusivity tracking: ten checks a statement cost more than the rest of the dispatch.

        /// The running statement and when it started (monotonic nanoseconds): SQLite's own
        /// profile time has the VFS clock's millisecond resolution, too coarse for most
        /// statements. One slot serves the usual case, one statement at a time; `nested` holds
        /// those started while it runs (a cursor left open, a statement run from a function).
        @exclusivity(unchecked) private var running: UnsafeMutableRawPointer?
        @exclusivity(unchecked) private var runningStart: UInt64 = 0
        @exclusivity(unchecked) private var nested: [(statement: UnsafeMutableRawPointer, start: UInt64)] = []

        /// The text of recently finished statements, so that a cached statement run again reports
        /// the same `String` instead of decoding SQLite's copy each time. An entry is used only
        /// when its text equals SQLite's byte for byte: a statement finalized and another
        /// prepared at the same address is found out.
        @exclusivity(unchecked) private var recentSQL = RecentEntries<(pointer: UnsafePointer<CChar>, text: String)>(capacity: 8)

        private func sqlText(_ pointer: UnsafePointer<CChar>) -> String {
            for entry in recentSQL.entries where entry.pointer == pointer {
                if entry.text.withCString({ strcmp($0, pointer) }) == 0 { return entry.text }
            }
            let text = String(cString: pointer)
            recentSQL.insert((pointer, text))
            return text
        }

        private func statementStarted(_ statement: UnsafeMutableRawPointer) {
            // A trigger's statements report the same handle: keep the outer statement's start.
            if running == statement || nested.contains(where: { $0.statement == statement }) { return }
            if running == nil {
                running = statement
                runningStart = monotonicNanoseconds()
            } else {
                nested.append((statement, monotonicNanoseconds()))
            }
        }

        /// How long `statement` ran, by its start; nil when its start was not seen.
        private func statementEnded(_ statement: UnsafeMutableRawPointer) -> Int64? {
            if running == statement {
                running = nil
                return Int64(clamping: monotonicNanoseconds() &- runningStart)
            }
            guard let index = nested.lastIndex(where: { $0.statement == statement }) else { return nil }
            return Int64(clamping: monotonicNanoseconds() &- nested.remove(at: index).start)
        }

        func deliver(mask: UInt32, p: UnsafeMutableRawPointer?, x: UnsafeMutableRawPointer?) {
            if let user, user.mask & mask != 0, let event = TraceEvent(mask: mask, p: p, x: x) { user.closure(event) }
            guard reportsEvents, let p, let connection else { return }
            switch Int32(mask) {
            case SQLITE_TRACE_STMT:
                statementStarted(p)
            case SQLITE_TRACE_PROFILE:
                let nanoseconds = statementEnded(p) ?? x?.assumingMemoryBound(to: Int64.self).pointee ?? 0
                guard !connection.authorizerHub.bookkeeping.isActive, let text = sqlite3_sql(OpaquePointer(p)) else { return }
                connection.notifyStatementFinished(SQLiteStatementHandle(p), sql: sqlText(text), nanoseconds: nanoseconds)
            default:
                break
            }
        }
    }

    /// Stops statement reports to the event handler, for good: the connection is being destroyed.
    func endTraceReports() {
        (callbackBoxes["trace"] as? CallbackBox<TraceDispatcher>)?.value.connection = nil
    }

    /// Registers the trace callback for what the user and the event handler want, or none.
    package func installTrace() {
        let user = (callbackBoxes["trace.user"] as? CallbackBox<UserTrace>)?.value
        let reportsEvents = observersWantFinishedStatements
        let mask = (user?.mask ?? 0) | (reportsEvents ? TraceEvent.statementMask | TraceEvent.profileMask : 0)
        let dispatcher = mask == 0 ? nil : TraceDispatcher(user: user, reportsEvents: reportsEvents, connection: self)
        registerCallback("trace", dispatcher) { handle, pointer in
            sqlite3_trace_v2(
                handle, pointer == nil ? 0 : mask,
                pointer.map { _ in
                    { eventMask, pointer, p, x in
                        guard let pointer else { return 0 }
                        // The box is borrowed (the connection's `callbackBoxes` holds it while SQLite
                        // holds the pointer), but the dispatcher is held for the call: the user's trace
                        // or the event handler it calls may install another trace, which frees this box.
                        let dispatcher = Unmanaged<CallbackBox<TraceDispatcher>>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.value }
                        dispatcher.deliver(mask: eventMask, p: p, x: x)
                        return 0
                    }
                }, pointer)
        }
    }

    /// Calls `closure` with the expanded SQL of each statement run (SQift 3's `trace`).
    public func trace(_ closure: ((String) -> Void)?) {
        guard let closure else { traceEvent(closure: nil); return }
        traceEvent(mask: TraceEvent.statementMask) { event in
            if case .statement(let expanded, _) = event { closure(expanded) }
        }
    }
}
