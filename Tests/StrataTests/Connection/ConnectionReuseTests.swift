import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// What a pool does with a connection a caller hands back (Connection+Reuse.swift).
@Suite struct ConnectionReuseTests {
    @Test func cleanConnectionHasNothingToEnd() throws {
        let db = try makeCarsConnection()
        _ = try db.query("SELECT count(*) FROM cars") as Int?
        #expect(db.endLeftoverWork(returningTo: "a test").isEmpty)
    }

    @Test func endsRunningStatementsAndTheOpenTransaction() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let db = try makeConnection(.onDisk(path), executing: "CREATE TABLE t(v)")
        try db.execute("BEGIN")
        try db.run("INSERT INTO t VALUES(?)", 1)
        let running = try db.prepare("SELECT v FROM t")
        #expect(try running.step())
        let leftovers = db.endLeftoverWork(returningTo: "a test")
        #expect(leftovers == ["a statement still running (SELECT v FROM t)", "an open transaction"])
        #expect(!db.isInTransaction)
        #expect(!running.isBusy)
        #expect(try db.query("SELECT count(*) FROM t") as Int? == 0)
        // Stepped again, the statement starts a new execution.
        #expect(try !running.step())
    }

    @Test func aWritingStatementLeftRunningIsCommittedByItsReset() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let db = try makeConnection(.onDisk(path), executing: "CREATE TABLE t(v)")
        let inserting = try db.prepare("INSERT INTO t VALUES(1), (2) RETURNING v")
        #expect(try inserting.step())
        #expect(db.endLeftoverWork(returningTo: "a test").count == 1)
        let other = try Connection(storageLocation: .onDisk(path))
        #expect(try other.query("SELECT count(*) FROM t") as Int? == 2)
    }
}
