import Foundation
import StrataSQift
import StrataTestSupport
import Testing
#if canImport(SQLite3)
import SQLite3
#endif
import Strata
@testable import StrataCore

/// Issue 67, item 2: the kernel keeps no higher layer's state; layers register observers.
@Suite struct ConnectionObserverTests {
    /// Records what the kernel tells it.
    final class Recorder: ConnectionObserver {
        var events: [String] = []
        var observesExecutions: Bool { true }
        func statementProducedRow(_ prepared: PreparedStatement, on connection: Connection) -> Bool {
            events.append("row")
            return false
        }
        func statementEnded(_ prepared: PreparedStatement, on connection: Connection, afterRow: Bool) {
            events.append("ended(afterRow: \(afterRow))")
        }
        func statementFailed(_ error: SQLiteError, sql: String?, on connection: Connection) {
            events.append("failed(\(error.code), \(sql ?? "nil"))")
        }
        func connectionWroteOutsideStatements(_ written: DatabaseAccess, on connection: Connection) {
            events.append("wrote outside")
        }
    }

    @Test func aRegisteredObserverHearsStatementsFailuresAndOutsideWritesUntilRemoved() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(id INTEGER PRIMARY KEY)")
        let recorder = Recorder()
        db.addObserver(recorder)
        db.addObserver(recorder) // once only
        try db.run("INSERT INTO t VALUES (1)")
        #expect(try db.query("SELECT id FROM t") as Int? == 1)
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (1)") }
        #expect(throws: SQLiteError.self) { try db.run("SELECT nope FROM t") }
        db.noteChangeOutsideStatements()
        // The single-value query stops after its row without asking for its end; the failed
        // insert ends (with no row) before its failure is reported; the bad column fails to compile.
        let expected = [
            "ended(afterRow: false)",
            "row",
            "ended(afterRow: false)", "failed(\(SQLITE_CONSTRAINT), INSERT INTO t VALUES (1))",
            "failed(\(SQLITE_ERROR), SELECT nope FROM t)",
            "wrote outside"
        ]
        #expect(recorder.events == expected)
        db.removeObserver(recorder)
        try db.run("INSERT INTO t VALUES (2)")
        #expect(recorder.events == expected)
        #expect(db.observers.isEmpty)
    }

    /// Nothing in `Connection`'s stored properties is named after a layer above the kernel.
    @Test func theConnectionHoldsNoHigherLayersFields() throws {
        let db = try Connection(storageLocation: .inMemory)
        let names = Mirror(reflecting: db).children.compactMap(\.label)
        #expect(names.contains("observers"))
        for layer in ["monitor", "event", "transaction", "failure", "pool", "observation", "replication", "context"] {
            #expect(!names.contains { $0.lowercased().contains(layer) }, "\(names)")
        }
    }

    /// The event handler and the transaction wrappers register as observers, and go when done.
    @Test func eventsAndTransactionsRegisterThemselves() throws {
        final class Handler: DatabaseEventHandler, @unchecked Sendable {
            // Unchecked: used on the test's one thread only.
            var failures: [String] = []
            func statementDidFail(_ event: DatabaseStatementEvent) { failures.append(event.sql) }
        }
        let db = try Connection(storageLocation: .inMemory)
        let handler = Handler()
        db.setEventHandler(handler)
        #expect(db.eventHandler === handler)
        #expect(db.observers.count == 1)
        #expect(throws: SQLiteError.self) { try db.execute("SELECT nope") }
        #expect(handler.failures == ["SELECT nope"])
        try db.transaction { try db.execute("CREATE TABLE t(x)") }
        #expect(db.observers.count == 2)
        // Neither hears of every execution: the hot path stays as without them.
        #expect(db.executionObservers.isEmpty)
        db.setEventHandler(nil)
        #expect(db.eventHandler == nil)
        #expect(db.observers.count == 1)
    }
}
