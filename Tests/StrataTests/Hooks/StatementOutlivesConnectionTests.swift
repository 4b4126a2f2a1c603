import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// A statement that outlives every other reference to its connection, dropped mid-run: SQLite
/// finalizes it (a last profile event) and closes the connection (rolling back an open
/// transaction, calling the rollback hook) after the `Connection` object's own references are
/// gone. Each path SQLite calls back through runs here; CI runs the suite under AddressSanitizer,
/// where a callback through a freed box is a `heap-use-after-free`.
@Suite struct StatementOutlivesConnectionTests {
    /// What the callbacks saw, shared with closures SQLite may call after the connection is gone.
    final class Seen: @unchecked Sendable {
        // @unchecked Sendable: `items` is only reached under `lock`.
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
    }

    /// The ways a connection can be left holding callbacks.
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case trace, eventHandler, rollbackHook, commitHook, updateHook, authorizer, busyHandler, all
        var testDescription: String { rawValue }
    }

    /// A connection with `path`'s callbacks installed, a table of three rows, and (for the hook
    /// paths) a transaction open with a change in it.
    static func connection(with path: Path, seen: Seen, handler: StatementEventTimingTests.Finished) throws -> Connection {
        let connection = try makeConnection(executing: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a'), ('b'), ('c')")
        let paths: [Path] = path == .all ? Path.allCases.filter { $0 != .all } : [path]
        for path in paths {
            switch path {
            case .trace:
                connection.traceEvent { event in seen.add("trace \(event)") }
            case .eventHandler:
                connection.setEventHandler(handler)
            case .rollbackHook:
                connection.rollbackHook { seen.add("rollback") }
            case .commitHook:
                connection.commitHook {
                    seen.add("commit"); return false
                }
            case .updateHook:
                connection.updateHook { _, _, table, _ in seen.add("update \(table ?? "")") }
            case .authorizer:
                try connection.authorizer { action, _, _, _, _ in
                    seen.add("authorize \(action)"); return .ok
                }
            case .busyHandler:
                try connection.busyHandler(
                    .custom { _ in
                        seen.add("busy"); return false
                    })
            case .all:
                break
            }
        }
        try connection.execute("BEGIN")
        try connection.run("INSERT INTO t(v) VALUES (?)", "d")
        return connection
    }

    /// Keeps only a statement stepped once (mid-run), then drops it: the statement goes last.
    @Test(arguments: Path.allCases)
    func aStatementDroppedLastAfterItsFirstRowEndsSafely(path: Path) throws {
        let seen = Seen()
        let handler = StatementEventTimingTests.Finished()
        var statement: Statement? = try {
            let connection = try Self.connection(with: path, seen: seen, handler: handler)
            let statement = try connection.prepare("SELECT v FROM t ORDER BY id")
            #expect(try statement.step())
            return statement
        }()
        #expect(statement?.isBusy == true)
        statement = nil
        // The statement is finalized while its connection lives, then the connection closes and
        // rolls back the open transaction (the row inserted in it is gone with the database).
        if path == .rollbackHook || path == .all {
            #expect(seen.all.last == "rollback", "the rollback of the open transaction reached its hook: \(seen.all)")
        }
        if path == .eventHandler || path == .all {
            #expect(handler.seen.contains { $0.sql == "SELECT v FROM t ORDER BY id" }, "the mid-run statement's end was reported")
        }
        if path == .trace || path == .all {
            #expect(seen.all.contains { $0.hasPrefix("trace") && $0.contains("SELECT v FROM t") })
        }
    }

    /// The other order, which `Statement` avoids but a raw handle (or any future holder of a
    /// prepared statement) can take: the `Connection` object goes first and SQLite keeps a
    /// zombie until the statement is finalized; the callbacks it then makes find their closures.
    @Test(arguments: Path.allCases)
    func aRawStatementFinalizedAfterTheConnectionObjectIsGoneEndsSafely(path: Path) throws {
        let seen = Seen()
        let handler = StatementEventTimingTests.Finished()
        weak var weakConnection: Connection?
        let raw: OpaquePointer = try {
            let connection = try Self.connection(with: path, seen: seen, handler: handler)
            weakConnection = connection
            var statement: OpaquePointer?
            #expect(sqlite3_prepare_v2(connection.handle, "SELECT v FROM t ORDER BY id", -1, &statement, nil) == SQLITE_OK)
            let prepared = try #require(statement)
            #expect(sqlite3_step(prepared) == SQLITE_ROW)
            return prepared
        }()
        #expect(weakConnection == nil, "the Connection object is gone; SQLite holds a zombie")
        let before = seen.all.count
        #expect(sqlite3_finalize(raw) == SQLITE_OK)
        if path == .rollbackHook || path == .all {
            #expect(seen.all.last == "rollback", "the zombie's rollback reached the hook: \(seen.all)")
        }
        if path == .trace || path == .all {
            #expect(seen.all[before...].contains { $0.hasPrefix("trace") }, "the finalized statement's profile reached the trace")
        }
        if path == .eventHandler {
            #expect(!handler.seen.contains { $0.sql == "SELECT v FROM t ORDER BY id" }, "no event names a connection being destroyed")
        }
    }

    /// A connection closed with nothing outstanding still rolls back through its hook, as before.
    @Test func aConnectionDroppedWithATransactionOpenCallsItsRollbackHook() throws {
        let seen = Seen()
        do {
            let connection = try Self.connection(with: .rollbackHook, seen: seen, handler: StatementEventTimingTests.Finished())
            #expect(connection.isInTransaction)
        }
        #expect(seen.all == ["rollback"])
    }

    /// A cursor over a script, kept past its connection, is finalized safely too.
    @Test func aCursorStatementKeptPastItsConnectionEndsSafely() throws {
        let seen = Seen()
        var statement: Statement? = try {
            let connection = try Self.connection(with: .all, seen: seen, handler: StatementEventTimingTests.Finished())
            let cursor = connection.statements(in: "SELECT 1; SELECT v FROM t")
            _ = try cursor.next()
            let second = try #require(try cursor.next())
            #expect(try second.step())
            return second
        }()
        #expect(statement?.isBusy == true)
        statement = nil
        #expect(seen.all.last == "rollback")
    }
}
