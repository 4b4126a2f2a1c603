import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

// Transaction and savepoint forms as SQift code writes them, in Swift 5 mode.
@Suite struct SQiftTransactionBehaviourTests {
    @Test func transactionsAndSavepoints() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a)")
        try db.transaction(transactionType: .immediate) { try db.run("INSERT INTO t VALUES(1)") }
        try db.transaction { try db.run("INSERT INTO t VALUES(2)") }
        try db.savepoint(named: "it's") { try db.run("INSERT INTO t VALUES(3)") }
        #expect(throws: SQLiteError.self) {
            try db.savepoint(named: "s") {
                try db.run("INSERT INTO t VALUES(4)")
                try db.execute("bogus")
            }
        }
        let n: Int = try db.query("SELECT count(*) FROM t")
        #expect(n == 3)
        #expect(Connection.TransactionType.exclusive.rawValue == "exclusive" || Connection.TransactionType.exclusive.rawValue == "EXCLUSIVE")
        try db.attachDatabase(from: .inMemory, withName: "other")
        try db.detachDatabase(named: "other")
    }
}
