import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

/// The event handler's statement timings: one slot for the running statement, a list for those
/// that start while it runs, and nothing reported once the connection is going away.
@Suite struct StatementEventTimingTests {
    final class Finished: DatabaseEventHandler, @unchecked Sendable {
        // @unchecked Sendable: `events` is only reached under `lock`.
        private let lock = NSLock()
        private var events: [(sql: String, nanoseconds: Int64?)] = []
        func statementDidFinish(_ event: DatabaseStatementEvent) {
            let nanoseconds = event.duration.map { $0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 }
            #expect(nanoseconds == event.durationNanoseconds, "the Duration is the measured nanoseconds")
            lock.withLock { events.append((event.sql, nanoseconds)) }
        }
        var seen: [(sql: String, nanoseconds: Int64?)] { lock.withLock { events } }
    }

    static let busy = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000) SELECT count(*) FROM c"

    /// A statement left open after its first row spans one run to completion inside it: both are
    /// reported once, the inner first, and the outer's time covers the inner's.
    @Test func aStatementRunWhileAnotherIsOpenIsTimedOnItsOwn() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let handler = Finished()
        connection.setEventHandler(handler)
        let outer = try connection.prepare("SELECT 1 UNION ALL SELECT 2")
        #expect(try outer.step())
        #expect(try connection.query(Self.busy) as Int? == 50_000)
        #expect(try outer.step())
        #expect(try !outer.step())
        outer.resetKeepingBindings()

        let seen = handler.seen
        #expect(seen.map(\.sql) == [Self.busy, "SELECT 1 UNION ALL SELECT 2"])
        let inner = try #require(seen.first?.nanoseconds), spanning = try #require(seen.last?.nanoseconds)
        #expect(inner > 0)
        #expect(spanning >= inner, "the open statement's time includes the one run inside it")
    }

    /// Three statements open at once finish in another order than they started; each is timed
    /// from its own start (the slot and the list hand over correctly).
    @Test func statementsFinishingOutOfOrderAreEachTimedFromTheirStart() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let handler = Finished()
        connection.setEventHandler(handler)
        let first = try connection.prepare("SELECT 1 UNION ALL SELECT 2")
        let second = try connection.prepare("SELECT 3 UNION ALL SELECT 4")
        #expect(try first.step())
        #expect(try second.step())
        #expect(try connection.query(Self.busy) as Int? == 50_000)
        first.resetKeepingBindings()
        #expect(try connection.query("SELECT 5") as Int? == 5)
        second.resetKeepingBindings()

        let seen = handler.seen
        #expect(seen.map(\.sql) == [Self.busy, "SELECT 1 UNION ALL SELECT 2", "SELECT 5", "SELECT 3 UNION ALL SELECT 4"])
        let busy = try #require(seen[0].nanoseconds)
        for event in seen { #expect(event.nanoseconds != nil, "\(event.sql) is timed") }
        #expect(try #require(seen[1].nanoseconds) >= busy)
        #expect(try #require(seen[3].nanoseconds) >= busy)
        #expect(try #require(seen[2].nanoseconds) < busy, "SELECT 5 is not timed from an earlier start")
    }

    /// A trigger's statements run under the statement that fired it: one report, for it.
    @Test func aTriggersStatementsAreNotReportedApart() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute(
            """
            CREATE TABLE t(x); CREATE TABLE log(x);
            CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.x); END
            """)
        let handler = Finished()
        connection.setEventHandler(handler)
        try connection.run("INSERT INTO t VALUES(?)", 1)
        try connection.run("INSERT INTO t VALUES(?)", 2)
        #expect(handler.seen.map(\.sql) == ["INSERT INTO t VALUES(?)", "INSERT INTO t VALUES(?)"])
        #expect(try connection.query("SELECT count(*) FROM log") as Int? == 2)
    }
}

/// A trace closure or event handler that installs another trace from inside its callback frees
/// the dispatcher that called it; the call it is in must still end safely.
@Suite struct TraceReentrancyTests {
    @Test func aTraceClosureThatRemovesItselfAndTheHandlerMidCallbackEndsSafely() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let handler = StatementEventTimingTests.Finished()
        connection.setEventHandler(handler)
        let seen = Locked<[String]>([])
        connection.traceEvent(mask: Connection.TraceEvent.statementMask | Connection.TraceEvent.profileMask) {
            [unowned connection] (event: Connection.TraceEvent) in
            seen.withLock { $0.append("\(event)") }
            // Replaces the trace (and its dispatcher) while SQLite is inside its callback.
            connection.traceEvent(closure: nil)
            connection.setEventHandler(nil)
            connection.setEventHandler(handler)
        }
        for value in 0..<20 { #expect(try connection.query("SELECT ?", value) as Int? == value) }
        #expect(seen.current.count == 1, "the closure removed itself at its first event")
        #expect(handler.seen.count >= 19, "the handler, installed again, hears the later statements")
    }

    @Test func anEventHandlerThatRemovesItselfMidEventEndsSafely() throws {
        final class Removing: DatabaseEventHandler, @unchecked Sendable {
            // @unchecked Sendable: used on the test's thread only.
            var count = 0
            func statementDidFinish(_ event: DatabaseStatementEvent) {
                count += 1
                event.connection.setEventHandler(nil)
            }
        }
        let connection = try Connection(storageLocation: .inMemory)
        let handler = Removing()
        for value in 0..<10 {
            connection.setEventHandler(handler)
            #expect(try connection.query("SELECT ?", value) as Int? == value)
        }
        #expect(handler.count == 10)
    }
}
