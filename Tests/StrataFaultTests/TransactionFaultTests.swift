import Foundation
import Strata
import Testing

extension FaultSweeps {
    /// A write transaction, and a savepoint inside one, under every fault.
    @Suite struct TransactionFaultTests {
        static func setUp(_ db: Connection) throws {
            try makeItems(db, count: 40, payload: "zeroblob(600)")
        }

        @Test func writeTransaction() throws {
            let sweep = Sweep<Connection>(
                name: "write transaction", faults: Fault.journalModeFaults, setUp: Self.setUp,
                run: { db in
                    try db.transaction {
                        try db.run("UPDATE items SET name = name || '!' WHERE id % 2 = 0")
                        try db.run("DELETE FROM items WHERE id > 30")
                        for id in 100..<110 { try db.run("INSERT INTO items VALUES(?, ?, zeroblob(900))", id, "new \(id)") }
                    }
                },
                state: allRows
            )
            try sweep()
        }

        @Test func savepointInsideATransaction() throws {
            let sweep = Sweep<Connection>(
                name: "savepoint in a transaction", faults: Fault.journalModeFaults, setUp: Self.setUp,
                run: { db in
                    try db.transaction(transactionType: .immediate) {
                        try db.run("UPDATE items SET name = 'outer' WHERE id = 1")
                        try db.savepoint(named: "inner") {
                            try db.run("DELETE FROM items WHERE id BETWEEN 10 AND 25")
                            try db.run("INSERT INTO items VALUES(?, ?, zeroblob(4000))", 200, "inner")
                        }
                    }
                },
                state: allRows
            )
            try sweep()
        }
    }
}
