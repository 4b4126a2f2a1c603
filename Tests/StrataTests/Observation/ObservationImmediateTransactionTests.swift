import Foundation
import StrataSQift
import Testing
import StrataTestSupport
import Strata
@testable import StrataCore

/// A transaction that writes outside an observed region yields nothing to its observer, however
/// it began.
///
/// `BEGIN IMMEDIATE` and `BEGIN EXCLUSIVE` are not read-only for SQLite (they take the write lock),
/// and the access analysis took them for a statement that writes the whole database: every
/// `Database.write` (an IMMEDIATE transaction) then woke every observer, whatever it wrote. Found
/// when issue 67 made `write` a transaction on every database.
@Suite struct ObservationImmediateTransactionTests {
    enum Kind: String, CaseIterable, Sendable {
        case write, bare, immediate, exclusive, deferred, rawImmediate, savepoint
    }

    static func run(_ sql: String, as kind: Kind, on database: Database) async throws {
        switch kind {
        case .write: try await database.write { try $0.run(sql) }
        case .bare: try await database.writeWithoutTransaction { try $0.run(sql) }
        case .immediate: try await database.writeInTransaction(transactionType: .immediate) { try $0.run(sql) }
        case .exclusive: try await database.writeInTransaction(transactionType: .exclusive) { try $0.run(sql) }
        case .deferred: try await database.writeInTransaction(transactionType: .deferred) { try $0.run(sql) }
        case .rawImmediate:
            try await database.writeWithoutTransaction { db in
                try db.execute("BEGIN IMMEDIATE")
                try db.run(sql)
                try db.execute("COMMIT")
            }
        case .savepoint: try await database.write { db in try db.savepoint(named: "s") { try db.run(sql) } }
        }
    }

    @Test(arguments: Kind.allCases, [false, true])
    func aTransactionOutsideTheRegionYieldsNothing(kind: Kind, sqiftInitializer: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("observed.sqlite")
        let database = sqiftInitializer ? try Database(storageLocation: .onDisk(path)) : try Database(path: path)
        try await database.writeWithoutTransaction {
            try $0.execute(
                "PRAGMA journal_mode = WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER); CREATE TABLE other(x); INSERT INTO t VALUES(1, 1, 1)")
        }
        let observed = await ObservedValues.started(database.observe { Fetched(numbers: try $0.query("SELECT a FROM t ORDER BY id")) }) { $0.count == 1 }
        try await Self.run("INSERT INTO other VALUES(1)", as: kind, on: database)
        try await Self.run("UPDATE t SET b = b + 1", as: kind, on: database)
        await observed.settle()
        #expect(observed.values.count == 1, "\(kind): another table and an unread column yield nothing")
        try await Self.run("UPDATE t SET a = 5", as: kind, on: database)
        await observed.wait { $0.last?.numbers == [5] }
        #expect(observed.values.count == 2)
        observed.cancel()
        try await database.close()
    }
}
