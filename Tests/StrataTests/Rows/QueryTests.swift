import Foundation
import StrataSQift
import Testing
import Strata
import StrataTestSupport
@testable import StrataCore

@Suite struct QueryTests {
    @Test func readmeSingleValues() throws {
        let db = try makeCarsConnection()
        let synchronous: Int? = try db.query("PRAGMA synchronous")
        #expect(synchronous == 2)
        // avg() is REAL, and a REAL does not convert to an integer type (SQift's rule).
        let minPrice: UInt? = try db.query("SELECT avg(price) FROM cars WHERE price > ?", 40_000)
        #expect(minPrice == nil)
        let averagePrice: Double? = try db.query("SELECT avg(price) FROM cars WHERE price > ?", 40_000)
        #expect(averagePrice == 54_884.5)
        let none: String? = try db.query("SELECT name FROM cars WHERE id = ?", 99)
        #expect(none == nil)
    }

    @Test func readmeRowsByIndexAndName() throws {
        let db = try makeCarsConnection()
        if let row = try db.query("SELECT name, type, price FROM cars WHERE type = ? LIMIT 1", "Sedan") {
            let name: String = row[0]
            let type: String = row[1]
            let price: UInt = row[2]
            #expect(name == "Audi" && type == "Sedan" && price == 52_642)
            let byName: String = row["name"]
            let typeByName: String = row["type"]
            let priceByName: UInt = row["price"]
            #expect(byName == "Audi" && typeByName == "Sedan" && priceByName == 52_642)
            let missing: String? = row["nope"]
            #expect(missing == nil)
            let outOfRange: String? = row[7]
            #expect(outOfRange == nil)
        } else {
            Issue.record("expected a row")
        }
    }

    @Test func readmeModels() throws {
        let db = try makeCarsConnection()
        let car: Car? = try db.query("SELECT name, type, price FROM cars WHERE type = ? LIMIT 1", "Sedan")
        #expect(car == Car(name: "Audi", type: "Sedan", price: 52_642))
        let names: [String] = try db.query("SELECT name FROM cars")
        #expect(names == ["Audi", "Mercedes", "Skoda", "Volvo"])
        let cars: [Car] = try db.query("SELECT name, type, price FROM cars WHERE price > ?", [20_000])
        #expect(cars.map(\.name) == ["Audi", "Mercedes", "Volvo"])
        let sql = "SELECT name, price FROM cars WHERE price > ?"
        let prices: [String: UInt] = try db.query(sql, 20_000) { ($0[0], $0[1]) }
        #expect(prices == ["Audi": 52_642, "Mercedes": 57_127, "Volvo": 29_000])
    }

    @Test func modelErrorsAreThrownNotTrapped() throws {
        let db = try makeCarsConnection()
        try db.run("INSERT INTO cars(name, type, price) VALUES('Ghost', NULL, 1)")
        let error = try #require(throws: ExpressibleByRowError.self, "expected an error") {
            let _: [Car] = try db.query("SELECT name, type, price FROM cars")
        }
        #expect(ObjectIdentifier(error.type) == ObjectIdentifier(Car.self))
        #expect(error.columns.count == 3)
        #expect(error.errorDescription?.hasPrefix("Failed to initialize Car from Row with columns: [") == true)
        #expect(error.failureReason?.hasPrefix("Car could not be initialized from Row") == true)
        #expect(error.description.hasPrefix("ExpressibleByRowError: Failed to initialize Car"))
        #expect(error.description.contains("{ index: 1 name: \"type\", type: \"null\", value: NULL }"))
    }

    @Test func everyOverloadInEveryForm() throws {
        let db = try makeCarsConnection()
        let sql = "SELECT name, type, price FROM cars WHERE price > ? ORDER BY id"
        let named = "SELECT name, type, price FROM cars WHERE price > :min ORDER BY id"
        // Extractable T?
        #expect(try db.query(sql, 20_000) as String? == "Audi")
        #expect(try db.query(sql, [20_000]) as String? == "Audi")
        #expect(try db.query(named, [":min": 20_000]) as String? == "Audi")
        // Row?
        #expect(try db.query(sql, [50_000])?.description == "['Audi', 'Sedan', 52642]")
        #expect(try db.query(named, [":min": 50_000]).map { $0["price"] as Int } == 52_642)
        // ExpressibleByRow T?
        #expect(try db.query(sql, [50_000]) as Car? == Car(name: "Audi", type: "Sedan", price: 52_642))
        #expect(try db.query(named, [":min": 50_000]) as Car? == Car(name: "Audi", type: "Sedan", price: 52_642))
        // body T?
        #expect(try db.query(sql, 50_000) { $0[2] as Int } == 52_642)
        #expect(try db.query(sql, [50_000]) { $0[2] as Int } == 52_642)
        #expect(try db.query(named, [":min": 50_000]) { $0[2] as Int } == 52_642)
        // Extractable [T]
        #expect(try db.query(sql, [50_000]) as [String] == ["Audi", "Mercedes"])
        #expect(try db.query(named, [":min": 50_000]) as [String] == ["Audi", "Mercedes"])
        // ExpressibleByRow [T]
        #expect((try db.query(sql, 50_000) as [Car]).count == 2)
        #expect((try db.query(named, [":min": 50_000]) as [Car]).count == 2)
        // body [T]
        #expect(try db.query(sql, 50_000) { $0[0] as String } == ["Audi", "Mercedes"])
        #expect(try db.query(named, [":min": 50_000]) { $0[0] as String } == ["Audi", "Mercedes"])
        // dictionaries
        let byName: [String: Int] = try db.query(named, [":min": 50_000]) { ($0[0], $0[2]) }
        #expect(byName == ["Audi": 52_642, "Mercedes": 57_127])
        let running: [String: Int] = try db.query(sql, 0) { (soFar: [String: Int], row: Row) in
            (row[0], soFar.count)
        }
        #expect(running == ["Audi": 0, "Mercedes": 1, "Skoda": 2, "Volvo": 3])
        let runningNamed: [String: Int] = try db.query(named, [":min": 0]) { (soFar: [String: Int], row: Row) in
            (row[0], soFar.count)
        }
        #expect(runningNamed == running)
        let runningArray: [String: Int] = try db.query(sql, [0]) { (soFar: [String: Int], row: Row) in
            (row[0], soFar.count)
        }
        #expect(runningArray == running)
    }

    @Test func statementQueryOverloads() throws {
        let db = try makeCarsConnection()
        let statement = try db.prepare("SELECT name, type, price FROM cars WHERE price > ? ORDER BY id", 9_000)
        // SQift's stepping: single-row forms step once without reset; array forms read to the end.
        #expect(try statement.query() as String? == "Audi")
        #expect(try statement.query() as [String] == ["Mercedes", "Volvo"])
        try statement.bind(9_000)
        #expect(try statement.query() as Car? == Car(name: "Audi", type: "Sedan", price: 52_642))
        #expect((try statement.query() as [Car]).count == 2)
        try statement.bind(9_000)
        #expect(try statement.query { $0[0] as String } == "Audi")
        #expect(try statement.query { $0[0] as String } == ["Mercedes", "Volvo"])
        try statement.bind(9_000)
        let dictionary: [String: Int] = try statement.query { ($0[0], $0[2]) }
        #expect(dictionary.count == 3)
        try statement.bind(9_000)
        let running: [String: Int] = try statement.query { (soFar: [String: Int], row: Row) in (row[0], soFar.count) }
        #expect(running == ["Audi": 0, "Mercedes": 1, "Volvo": 2])
        try statement.bind(9_000)
        let row = try #require(try statement.query())
        #expect(row.columnCount == 3)
        try statement.bind(1_000_000)
        #expect(try statement.query() as Row? == nil)
    }

    @Test func arraysStopAtFirstNull() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(v); INSERT INTO t VALUES(1), (2), (NULL), (4)")
        let values: [Int] = try db.query("SELECT v FROM t ORDER BY rowid")
        #expect(values == [1, 2])
    }

    @Test func rowMembers() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(name TEXT, n INTEGER, r REAL, b BLOB, z)")
        try db.run("INSERT INTO t VALUES(?, ?, ?, ?, ?)", "Lana", 2, 1.5, Data([1, 2]), nil)
        let row = try #require(try db.query("SELECT * FROM t"))
        #expect(row.columnCount == 5)
        #expect(row.columns.map(\.name) == ["name", "n", "r", "b", "z"])
        #expect(row.columns.map(\.dataType) == [.text, .integer, .float, .blob, .null])
        #expect(row.columns[0].description == "{ index: 0 name: \"name\", type: \"text\", value: Lana }")
        #expect(row.value(at: 0) as? String == "Lana")
        #expect(row.value(at: 1) as? Int64 == 2)
        #expect(row.value(at: 2) as? Double == 1.5)
        #expect(row.value(at: 3) as? Data == Data([1, 2]))
        #expect(row.value(at: 4) == nil)
        #expect(row.value(at: 1) as Int? == 2)
        #expect(row.value(forColumnName: "r") as Double? == 1.5)
        #expect(row.values.count == 5)
        #expect(Array(row).count == 5)
        let lana = try #require(try db.query("SELECT 'Lana', 2, NULL"))
        #expect(lana.description == "['Lana', 2, NULL]")
    }

    @Test func duplicateColumnNamesResolveToTheFirst() throws {
        let db = try Connection()
        let row = try #require(try db.query("SELECT 1 AS a, 2 AS b, 3 AS a"))
        #expect(row["a"] as Int? == 1)
        #expect(row["b"] as Int? == 2)
        #expect(row["a"] as Int? == 1)
    }

    @Test func nameLookupInAnyOrder() throws {
        let db = try Connection()
        let rows: [[Int]] = try db.query("SELECT 1 AS a, 2 AS b, 3 AS c UNION ALL SELECT 4, 5, 6") { row in
            [row["c"], row["a"], row["b"], row["b"], row["a"], row["c"]]
        }
        #expect(rows == [[3, 1, 2, 2, 1, 3], [6, 4, 5, 5, 4, 6]])
    }
}
