// Columns declared NUMERIC or DECIMAL store 32.00 as INTEGER and 16.75 as REAL: the ORM reads
// both into Double, and NULL into a non-optional Double is a named error.
import Foundation
import Testing
import StrataORM

private struct Payment: Initializable, Equatable {
    var id = 0
    var amount = 0.0
    var fee: Double?
    var weight: Float = 0
}

private func paymentStorage(_ rows: String) throws -> Storage {
    let storage = try temporaryStorage(
        keyedTable(
            "payments", key: \Payment.id, Column(name: "amount", keyPath: \Payment.amount), Column(name: "fee", keyPath: \Payment.fee),
            Column(name: "weight", keyPath: \Payment.weight)),
        sync: false)
    // As other tools declare money: NUMERIC stores 32.00 as INTEGER 32 and 16.75 as REAL.
    try storage.connection.execute("CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC, fee DECIMAL(10,2), weight NUMERIC)")
    try storage.connection.execute("INSERT INTO payments VALUES \(rows)")
    return storage
}

@Suite struct NumericColumnTests {
    @Test func integerAndRealStorageReadAsDouble() throws {
        let storage = try paymentStorage("(1, 32.00, 32.00, 2), (2, 16.75, 16.75, 0.5), (3, -7, NULL, 0)")
        let classes: [String] = try storage.connection.query("SELECT typeof(amount) FROM payments ORDER BY id")
        #expect(classes == ["integer", "real", "integer"])
        let payments: [Payment] = try storage.getAll(orderBy(\Payment.id))
        #expect(
            payments == [
                Payment(id: 1, amount: 32.0, fee: 32.0, weight: 2),
                Payment(id: 2, amount: 16.75, fee: 16.75, weight: 0.5),
                Payment(id: 3, amount: -7, fee: nil, weight: 0)
            ])
        #expect(try storage.get(id: 1) == payments[0])
        #expect(try storage.select(\Payment.amount, orderBy(\Payment.id)) == [32.0, 16.75, -7])
        #expect(try storage.select(\Payment.fee, orderBy(\Payment.id)) == [32.0, 16.75, nil])
        #expect(try storage.max(\Payment.amount) == 32.0)
        var seen: [Double] = []
        try storage.forEach(Payment.self, where_(\Payment.amount > 0.0)) { seen.append($0.amount) }
        #expect(seen.sorted() == [16.75, 32.0])
        // What the ORM writes comes back the same way: 8.0 is stored as INTEGER 8.
        try storage.replace(Payment(id: 4, amount: 8.0, fee: 0.25, weight: 1))
        let stored: String? = try storage.connection.query("SELECT typeof(amount) FROM payments WHERE id = 4")
        #expect(stored == "integer")
        #expect(try storage.get(id: 4) == Payment(id: 4, amount: 8, fee: 0.25, weight: 1))
    }

    @Test func nullInANonOptionalDoubleThrowsANamedError() throws {
        let storage = try paymentStorage("(1, 32.00, NULL, 1), (2, NULL, 16.75, 1)")
        let expected = ORMError.valueDoesNotConvert(table: "payments", column: "amount", type: "Double")
        let error = #expect(throws: ORMError.self) { let _: [Payment] = try storage.getAll() }
        #expect(error == expected)
        #expect(error?.description.contains("Column 'amount' of table 'payments' holds NULL") == true)
        #expect(error?.description.contains("make the property optional") == true)
        #expect(throws: expected) { let _: Payment? = try storage.get(id: 2) }
        // The row that holds a number reads.
        #expect(try storage.get(id: 1) == Payment(id: 1, amount: 32, fee: nil, weight: 1))
    }
}
