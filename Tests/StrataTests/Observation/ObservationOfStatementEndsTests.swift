import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Observation hears of a statement's writes when the statement ends, however it ends: a failure
/// that keeps what it wrote, or a reset or finalize before it ran to its end, which is when
/// SQLite commits it.
@Suite struct ObservationOfStatementEndsTests {
    static let setupSQL = """
        CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER UNIQUE ON CONFLICT FAIL);
        CREATE TRIGGER no_three BEFORE INSERT ON t WHEN new.id = 3 BEGIN SELECT RAISE(FAIL, 'no three'); END;
        """

    /// Each statement fails at its third row and keeps the first two, which autocommit commits:
    /// `OR FAIL`, a column's `ON CONFLICT FAIL`, a trigger's `RAISE(FAIL)`; run through `execute`
    /// (a script's statement) and `run` (a cached statement's fast path).
    @Test(
        arguments: [
            "INSERT OR FAIL INTO t(id) VALUES (1), (2), (1)",
            "INSERT INTO t(id, v) VALUES (1, 1), (2, 2), (4, 1)",
            "INSERT INTO t(id) VALUES (1), (2), (3)"
        ], [false, true])
    func rowsKeptByAFailingStatementAreSeen(sql: String, cached: Bool) async throws {
        let directory = try TemporaryDirectory()
        let database = try await ObservationTests.makeDatabase(directory, schema: Self.setupSQL)
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        await #expect(throws: SQLiteError.self) {
            // Bare, so the statement autocommits what it wrote before failing.
            try await database.writeWithoutTransaction { connection in
                if cached { try connection.run(sql) } else { try connection.execute(sql) }
            }
        }
        let stored = try await database.read { try $0.query("SELECT count(*) FROM t") as Int? }
        #expect(stored == 2, "the rows before the failure stay")
        await observed.waitThenCancel { $0.last == 2 }
    }

    /// `INSERT … RETURNING` read for one row only: SQLite commits when the statement is reset or
    /// finalized, so that is when observers must hear of it. A reader that fetched at the first
    /// row saw nothing committed yet.
    @Test(arguments: ["reset", "finalize", "query"])
    func aReturningStatementReadForOneRowIsSeenWhenItEnds(ending: String) async throws {
        let directory = try TemporaryDirectory()
        let database = try await ObservationTests.makeDatabase(directory, schema: Self.setupSQL)
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        let sql = "INSERT INTO t(id) VALUES (1), (2) RETURNING id"
        try await database.write { connection in
            switch ending {
            case "query":
                let first: Int? = try connection.query(sql)
                #expect(first == 1)
            default:
                let statement = try connection.prepare(sql)
                #expect(try statement.step())
                // Long enough for an observer told at the first row to fetch the old snapshot.
                Thread.sleep(forTimeInterval: 0.3)
                if ending == "reset" { try statement.bind() }
            }
        }
        await observed.waitThenCancel { $0.last == 2 }
    }

    /// An explicit transaction's writes are still reported once, at its COMMIT, whatever its
    /// statements did in between.
    @Test func aFailedStatementInsideATransactionIsReportedAtCommit() async throws {
        let directory = try TemporaryDirectory()
        let database = try await ObservationTests.makeDatabase(directory, schema: Self.setupSQL)
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { $0 == [0] }
        try await database.writeWithoutTransaction { connection in
            try connection.execute("BEGIN")
            #expect(throws: SQLiteError.self) { try connection.execute("INSERT OR FAIL INTO t(id) VALUES (1), (2), (1)") }
            try connection.execute("COMMIT")
        }
        await observed.waitThenCancel { $0.last == 2 }
    }
}
