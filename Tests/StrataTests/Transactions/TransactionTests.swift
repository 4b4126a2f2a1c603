import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Transactions and savepoints on the writer of each kind of `Database` (the recommended
/// `Database(path:)` first), their outcome read back through the database's readers.
@Suite struct TransactionTests {
    @Test(arguments: DatabaseKind.allCases, [Connection.TransactionType.deferred, .immediate, .exclusive])
    func commitsEachKind(database kind: DatabaseKind, kind transactionType: Connection.TransactionType) throws {
        let temporary = try makeDatabase(kind)
        try temporary.database.executeWrite { db in
            try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("INSERT INTO cars(name) VALUES('Audi'), ('Mercedes'), ('Skoda'), ('Volvo')")
            try db.transaction(transactionType: transactionType) {
                #expect(db.isInTransaction)
                try db.run("DELETE FROM cars WHERE id = ?", 1)
            }
            #expect(!db.isInTransaction)
        }
        #expect(try temporary.database.executeRead { try $0.query("SELECT count(*) FROM cars") as Int? } == 3)
        #expect(transactionType.rawValue == transactionType.rawValue.uppercased())
    }

    @Test(arguments: DatabaseKind.allCases) func failedTransactionLeavesTheDatabaseUnchanged(kind: DatabaseKind) throws {
        let temporary = try makeDatabase(kind)
        try temporary.database.executeWrite { db in
            try db.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
            try db.run("INSERT INTO accounts VALUES(1, 100), (2, 50)")
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try db.transaction(transactionType: .immediate) {
                    try db.run("UPDATE accounts SET balance = balance - 70 WHERE id = 1")
                    try db.run("UPDATE accounts SET balance = balance + 70 WHERE id = 2")
                    throw Abort()
                }
            }
            #expect(throws: SQLiteError.self) {
                try db.transaction {
                    try db.run("INSERT INTO accounts VALUES(3, 1)")
                    try db.run("INSERT INTO accounts VALUES(3, 1)")
                }
            }
        }
        let balances: [Int] = try temporary.database.executeRead { try $0.query("SELECT balance FROM accounts ORDER BY id") }
        #expect(balances == [100, 50])
    }

    @Test func failedTransactionLeavesTheFileUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        do {
            let db = try makeConnection(.onDisk(path), executing: "CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
            try db.run("INSERT INTO accounts VALUES(1, 100), (2, 50)")
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try db.transaction(transactionType: .immediate) {
                    try db.run("UPDATE accounts SET balance = balance - 70 WHERE id = 1")
                    throw Abort()
                }
            }
        }
        let reopened = try Connection(storageLocation: .onDisk(path))
        let balances: [Int] = try reopened.query("SELECT balance FROM accounts ORDER BY id")
        #expect(balances == [100, 50])
    }

    @Test(arguments: DatabaseKind.allCases) func failedCommitRollsBack(kind: DatabaseKind) throws {
        let temporary = try makeDatabase(kind)
        try temporary.database.executeWrite { db in
            try db.execute("PRAGMA foreign_keys = ON")
            try db.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY)")
            try db.execute("CREATE TABLE child(parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
            let error = sqliteError {
                try db.transaction { try db.run("INSERT INTO child VALUES(42)") }
            }
            #expect(error?.message == "FOREIGN KEY constraint failed")
            #expect(!db.isInTransaction)
        }
        #expect(try temporary.database.executeRead { try $0.query("SELECT count(*) FROM child") as Int? } == 0)
    }

    @Test(arguments: DatabaseKind.allCases) func savepointsNestAndRollBack(kind: DatabaseKind) throws {
        let temporary = try makeDatabase(kind)
        try temporary.database.executeWrite { db in
            try db.execute("CREATE TABLE t(v INTEGER)")
            struct Abort: Error {}
            try db.savepoint(named: "outer") {
                try db.run("INSERT INTO t VALUES(1)")
                #expect(throws: Abort.self) {
                    try db.savepoint(named: "in'ner") {
                        try db.run("INSERT INTO t VALUES(2)")
                        throw Abort()
                    }
                }
                try db.run("INSERT INTO t VALUES(3)")
            }
            #expect(throws: Abort.self) {
                try db.savepoint(named: "top") {
                    try db.run("INSERT INTO t VALUES(4)")
                    throw Abort()
                }
            }
            #expect(!db.isInTransaction)
            let value = try db.transaction { try db.query("SELECT sum(v) FROM t") as Int? }
            #expect(value == 4)
        }
        #expect(try temporary.database.executeRead { try $0.query("SELECT group_concat(v) FROM t") as String? } == "1,3")
    }

    /// A rollback-journal database where `reader` holds a read lock mid-SELECT, so `writer`'s
    /// COMMIT is refused with SQLITE_BUSY (neither waits: no busy handler).
    struct LockedCommit {
        let directory: TemporaryDirectory
        let path: String
        let writer: Connection
        let reader: Connection
        let readerStatement: Statement

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.path("db.sqlite")
            writer = try Connection(storageLocation: .onDisk(path))
            #expect(try writer.query("PRAGMA journal_mode") as String? == "delete")
            try writer.execute("CREATE TABLE t(v INTEGER); INSERT INTO t VALUES(1), (2)")
            reader = try Connection(storageLocation: .onDisk(path))
            readerStatement = try reader.prepare("SELECT v FROM t")
            #expect(try readerStatement.step())
        }

        /// The refused COMMIT left nothing behind: the writer is outside any transaction, holds no
        /// PENDING lock (a new reader is let in), and its next transaction works once the
        /// reader finishes.
        func expectCleanAfterRefusal(_ error: SQLiteError?) throws {
            #expect(error?.code == SQLITE_BUSY)
            #expect(error?.message == "database is locked")
            #expect(!writer.isInTransaction)
            let newcomer = try Connection(storageLocation: .onDisk(path))
            #expect(try newcomer.query("SELECT count(*) FROM t") as Int? == 2)
            try readerStatement.run()
            try writer.transaction { try writer.run("INSERT INTO t VALUES(3)") }
            #expect(try newcomer.query("SELECT group_concat(v) FROM t") as String? == "1,2,3")
        }
    }

    @Test func refusedOutermostReleaseRollsTheSavepointBackWhole() throws {
        let setup = try LockedCommit()
        let error = sqliteError {
            try setup.writer.savepoint(named: "s") { try setup.writer.run("INSERT INTO t VALUES(9)") }
        }
        try setup.expectCleanAfterRefusal(error)
    }

    @Test func refusedOutermostReleaseThroughAQueueRollsBackWhole() throws {
        let setup = try LockedCommit()
        let queue = ConnectionQueue(connection: setup.writer)
        let error = sqliteError {
            try queue.executeInSavepoint("s") { try $0.run("INSERT INTO t VALUES(9)") }
        }
        try setup.expectCleanAfterRefusal(error)
    }

    @Test func refusedCommitOfATransactionRollsBack() throws {
        let setup = try LockedCommit()
        let error = sqliteError {
            try setup.writer.transaction { try setup.writer.run("INSERT INTO t VALUES(9)") }
        }
        try setup.expectCleanAfterRefusal(error)
    }

    @Test(arguments: DatabaseKind.allCases) func failedInnerSavepointLeavesTheOuterTransactionOpen(kind: DatabaseKind) throws {
        let temporary = try makeDatabase(kind)
        try temporary.database.executeWrite { db in
            try db.execute("CREATE TABLE t(v INTEGER)")
            struct Abort: Error {}
            try db.transaction {
                try db.run("INSERT INTO t VALUES(1)")
                #expect(throws: Abort.self) {
                    try db.savepoint(named: "inner") {
                        try db.run("INSERT INTO t VALUES(2)")
                        throw Abort()
                    }
                }
                #expect(db.isInTransaction)
            }
        }
        #expect(try temporary.database.executeRead { try $0.query("SELECT group_concat(v) FROM t") as String? } == "1")
    }
}
