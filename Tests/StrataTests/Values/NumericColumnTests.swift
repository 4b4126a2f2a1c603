import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata

private struct Payment: DecodableRow, Equatable {
    let id: Int
    let amount: Double
    let fee: Float?
}

/// A NUMERIC (or DECIMAL) column stores whole amounts as INTEGER and the rest as REAL; money read
/// from such a column must come back as the `Double` that was written, on every path and every
/// kind of database.
@Suite struct NumericColumnTests {
    /// Opens a database of `kind` with the payments, and runs `body` in one read of it.
    func withPayments(_ kind: DatabaseKind, _ body: (Connection) throws -> Void) throws {
        let temporary = try TemporaryDatabase(kind)
        try temporary.database.write { db in
            try db.execute(
                """
                CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC NOT NULL, fee DECIMAL(10,2));
                INSERT INTO payments (amount, fee) VALUES (32.00, 1.00), (16.75, 0.25), (9007199254740992, NULL);
                """)
        }
        try temporary.database.read { db in
            // What SQLite stored: the whole amounts became integers.
            let classes: [String] = try db.query("SELECT typeof(amount) FROM payments ORDER BY id") { $0[0] as String? ?? "" }
            #expect(classes == ["integer", "real", "integer"])
            try body(db)
        }
    }

    let expected: [Double] = [32.0, 16.75, 9_007_199_254_740_992.0]

    @Test(arguments: DatabaseKind.allCases) func rowSubscriptsReadIntegersAsDouble(kind: DatabaseKind) throws {
        try withPayments(kind) { db in
            let byIndex: [Double?] = try db.query("SELECT amount FROM payments ORDER BY id") { $0[0] as Double? }
            #expect(byIndex == expected)
            let byName: [Double] = try db.query("SELECT amount FROM payments ORDER BY id") { $0["amount"] as Double }
            #expect(byName == expected)
            let fees: [Float?] = try db.query("SELECT fee FROM payments ORDER BY id") { $0["fee"] as Float? }
            #expect(fees == [1.0, 0.25, nil])
            #expect(try db.query("SELECT amount FROM payments WHERE id = 1") as Double? == 32.0)
            #expect(try db.query("SELECT amount FROM payments WHERE id = ?", 1) as Double == 32.0)
        }
    }

    @Test(arguments: DatabaseKind.allCases) func decodableRowsReadIntegersAsDouble(kind: DatabaseKind) throws {
        try withPayments(kind) { db in
            let payments: [Payment] = try db.query("SELECT id, amount, fee FROM payments ORDER BY id")
            #expect(
                payments == [
                    Payment(id: 1, amount: 32, fee: 1), Payment(id: 2, amount: 16.75, fee: 0.25),
                    Payment(id: 3, amount: 9_007_199_254_740_992, fee: nil)
                ])
        }
    }

    @Test(arguments: DatabaseKind.allCases) func functionArgumentsReadIntegersAsDouble(kind: DatabaseKind) throws {
        try withPayments(kind) { db in
            try db.addScalarFunction(named: "half", argumentCount: 1, deterministic: true) { _, values in
                .double(values[0].double / 2)
            }
            let halves: [Double?] = try db.query("SELECT half(amount) FROM payments ORDER BY id") { $0[0] as Double? }
            #expect(halves == expected.map { $0 / 2 })
        }
    }

    @Test(arguments: DatabaseKind.allCases) func textAndBlobStillDoNotConvert(kind: DatabaseKind) throws {
        try withPayments(kind) { db in
            let text: Double? = try db.query("SELECT '32.00'")
            let blob: Float? = try db.query("SELECT x'20'")
            #expect(text == nil)
            #expect(blob == nil)
        }
    }
}
