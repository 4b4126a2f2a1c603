import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata

struct DecodedCar: DecodableRow, Equatable {
    let id: Int64
    let name: String
    let price: UInt?
    let rating: Double?
    let released: Date?
    let tags: ArrayBinding<String>?
}

@Suite struct DecodableRowTests {
    @Test(arguments: DatabaseKind.allCases) func decodesByColumnNameInAnyOrder(kind: DatabaseKind) throws {
        let temporary = try makeDatabase(kind)
        let date = Date(timeIntervalSince1970: 1_000_000_000)
        try temporary.database.executeWrite { db in
            try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, rating REAL, released TEXT, tags BLOB)")
            try db.run("INSERT INTO cars VALUES(?, ?, ?, ?, ?, ?)", 1, "Audi", 52_642, 4.5, date, ArrayBinding(elements: ["fast"]))
            try db.run("INSERT INTO cars(id, name) VALUES(?, ?)", 2, "Kia")
        }
        try temporary.database.executeRead { db in
            let cars: [DecodedCar] = try db.query("SELECT tags, released, rating, price, name, id FROM cars ORDER BY id")
            #expect(
                cars == [
                    DecodedCar(id: 1, name: "Audi", price: 52_642, rating: 4.5, released: date, tags: ["fast"]),
                    DecodedCar(id: 2, name: "Kia", price: nil, rating: nil, released: nil, tags: nil)
                ])
            let one: DecodedCar? = try db.query("SELECT * FROM cars WHERE id = ?", 2)
            #expect(one?.name == "Kia")
        }
    }

    @Test func reportsMissingNullAndMismatchedColumns() throws {
        let db = try Connection()
        #expect(throws: DecodingError.self) { let _: DecodedCar? = try db.query("SELECT 1 AS id") }
        #expect(throws: DecodingError.self) { let _: DecodedCar? = try db.query("SELECT 1 AS id, NULL AS name") }
        #expect(throws: DecodingError.self) { let _: DecodedCar? = try db.query("SELECT 'x' AS id, 'n' AS name") }
        do {
            let _: DecodedCar? = try db.query("SELECT 1 AS id")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "name")
            #expect(context.debugDescription.contains("No column named 'name'"))
        }
    }
}
