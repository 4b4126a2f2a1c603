import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

/// SQLite can end a transaction by itself (an `OR ROLLBACK` conflict): the wrapper must not let
/// the closure's later statements autocommit, nor report success (issue 40, item 8).
@Suite struct TransactionEndedBySQLiteTests {
    func makeConnection() throws -> Connection {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES(1)")
        return connection
    }

    func ids(_ connection: Connection) throws -> [Int] { try connection.query("SELECT id FROM t ORDER BY id") }

    @Test func anOrRollbackConflictInAnInnerSavepointCommitsNothingOfTheTransaction() throws {
        let connection = try makeConnection()
        let error = #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t VALUES(2)")
                // The caller swallows the savepoint's error, as code that retries might.
                try? connection.savepoint(named: "inner") { try connection.run("INSERT OR ROLLBACK INTO t VALUES(1)") }
                try connection.run("INSERT INTO t VALUES(3)")
            }
        }
        #expect(error?.message.contains("rolled back by SQLite") == true, "\(String(describing: error))")
        #expect(try ids(connection) == [1], "nothing of the failed transaction committed")
        #expect(!connection.isInTransaction)
        // The connection works as before afterwards.
        try connection.transaction { try connection.run("INSERT INTO t VALUES(4)") }
        #expect(try ids(connection) == [1, 4])
    }

    /// The inner savepoint says what happened (the transaction is gone), not that its own
    /// RELEASE found no savepoint; the outer wrapper still rolls everything back.
    @Test func anInnerSavepointReportsTheTransactionSQLiteEnded() throws {
        let connection = try makeConnection()
        var inner: SQLiteError?
        #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t VALUES(2)")
                do {
                    try connection.savepoint(named: "inner") {
                        _ = try? connection.run("INSERT OR ROLLBACK INTO t VALUES(1)")
                    }
                } catch let error as SQLiteError {
                    inner = error
                }
                try connection.run("INSERT INTO t VALUES(3)")
            }
        }
        #expect(inner?.message.contains("rolled back by SQLite") == true, "\(String(describing: inner))")
        #expect(try ids(connection) == [1])
        #expect(!connection.isInTransaction)
    }

    /// An OR ROLLBACK conflict caught in the body of a transaction, or of an outer savepoint,
    /// ends it: the body's next statement or its end throws, and nothing is committed.
    @Test(arguments: ["transaction", "savepoint"])
    func anOrRollbackConflictCaughtInTheOuterScopeCommitsNothing(scope: String) throws {
        let connection = try makeConnection()
        let body = {
            try connection.run("INSERT INTO t VALUES(2)")
            _ = try? connection.run("INSERT OR ROLLBACK INTO t VALUES(1)")
            try connection.run("INSERT INTO t VALUES(3)")
        }
        #expect(throws: SQLiteError.self) {
            if scope == "transaction" {
                try connection.transaction(closure: body)
            } else {
                try connection.savepoint(named: "outer", closure: body)
            }
        }
        #expect(try ids(connection) == [1])
        #expect(!connection.isInTransaction)
    }

    @Test func anOrdinaryFailureInASavepointLeavesTheTransactionToCommit() throws {
        let connection = try makeConnection()
        try connection.transaction {
            try connection.run("INSERT INTO t VALUES(2)")
            try? connection.savepoint(named: "inner") { try connection.run("INSERT INTO t VALUES(1)") }
            try connection.run("INSERT INTO t VALUES(3)")
        }
        #expect(try ids(connection) == [1, 2, 3])
    }
}
