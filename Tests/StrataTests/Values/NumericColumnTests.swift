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
/// from such a column must come back as the `Double` that was written, on every path.
@Suite struct NumericColumnTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC NOT NULL, fee DECIMAL(10,2));
            INSERT INTO payments (amount, fee) VALUES (32.00, 1.00), (16.75, 0.25), (9007199254740992, NULL);
            """)
        // What SQLite stored: the whole amounts became integers.
        let classes: [String] = try db.query("SELECT typeof(amount) FROM payments ORDER BY id") { $0[0] as String? ?? "" }
        #expect(classes == ["integer", "real", "integer"])
        return db
    }

    let expected: [Double] = [32.0, 16.75, 9_007_199_254_740_992.0]

    @Test func rowSubscriptsReadIntegersAsDouble() throws {
        let db = try makeDatabase()
        let byIndex: [Double?] = try db.query("SELECT amount FROM payments ORDER BY id") { $0[0] as Double? }
        #expect(byIndex == expected)
        let byName: [Double] = try db.query("SELECT amount FROM payments ORDER BY id") { $0["amount"] as Double }
        #expect(byName == expected)
        let fees: [Float?] = try db.query("SELECT fee FROM payments ORDER BY id") { $0["fee"] as Float? }
        #expect(fees == [1.0, 0.25, nil])
        #expect(try db.query("SELECT amount FROM payments WHERE id = 1") as Double? == 32.0)
        #expect(try db.query("SELECT amount FROM payments WHERE id = ?", 1) as Double == 32.0)
    }

    @Test func decodableRowsReadIntegersAsDouble() throws {
        let db = try makeDatabase()
        let payments: [Payment] = try db.query("SELECT id, amount, fee FROM payments ORDER BY id")
        #expect(
            payments == [
                Payment(id: 1, amount: 32, fee: 1), Payment(id: 2, amount: 16.75, fee: 0.25),
                Payment(id: 3, amount: 9_007_199_254_740_992, fee: nil)
            ])
    }

    @Test func functionArgumentsReadIntegersAsDouble() throws {
        let db = try makeDatabase()
        try db.addScalarFunction(named: "half", argumentCount: 1, deterministic: true) { _, values in
            .double(values[0].double / 2)
        }
        let halves: [Double?] = try db.query("SELECT half(amount) FROM payments ORDER BY id") { $0[0] as Double? }
        #expect(halves == expected.map { $0 / 2 })
    }

    @Test func textAndBlobStillDoNotConvert() throws {
        let db = try makeDatabase()
        #expect(try db.query("SELECT '32.00'") as Double? == nil)
        #expect(try db.query("SELECT x'20'") as Float? == nil)
    }
}
