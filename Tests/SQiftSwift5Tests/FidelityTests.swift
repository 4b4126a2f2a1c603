import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Generic code in SQift's style: Row reads need only `T: Extractable`.
func firstColumn<T: Extractable>(of row: Row) -> T? {
    return row[0]
}

func columnNamed<T: Extractable>(_ name: String, of row: Row) -> T? {
    return row.value(forColumnName: name)
}

/// SQift behaviours that code ported from it relies on (issue 8), written as SQift users do.
@Suite struct SQiftFidelityTests {
    @Test func moduleReexportsStrata() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE t(x)")
        try connection.run("INSERT INTO t VALUES(?)", 42)
        let value: Int? = try connection.query("SELECT x FROM t")
        #expect(value == 42)
    }

    @Test func singleValueQueriesWalkTheRows() throws {
        let db = try makeCars()
        let statement = try db.prepare("SELECT price FROM cars ORDER BY id")
        var prices: [Int] = []
        while let price: Int = try statement.query() {
            prices.append(price)
        }
        #expect(prices == [52_642, 57_127, 9_000])
        let afterTheEnd: Int? = try statement.query() // SQLite starts the statement over
        #expect(afterTheEnd == 52_642)

        let names = try db.prepare("SELECT name, type, price FROM cars ORDER BY id")
        let first: Car? = try names.query()
        let rest: [Car] = try names.query()
        #expect(first?.name == "Audi")
        #expect(rest.map { $0.name } == ["Mercedes", "Skoda"])

        try names.bind()
        let transform: (Row) throws -> String = { row in row[0] }
        let one: String? = try names.query(transform)
        let others: [String] = try names.query(transform)
        #expect(one == "Audi")
        #expect(others == ["Mercedes", "Skoda"])
    }

    @Test func rowReadsNeedOnlyExtractable() throws {
        let db = try makeCars()
        let row = try #require(try db.query("SELECT name, price FROM cars WHERE id = ?", 1))
        let name: String? = firstColumn(of: row)
        let price: Int? = columnNamed("price", of: row)
        #expect(name == "Audi")
        #expect(price == 52_642)
    }

    @Test func expressibleByRowErrorCarriesTheModelType() throws {
        let db = try makeCars()
        do {
            let _: [Car] = try db.query("SELECT name, NULL, price FROM cars")
            Issue.record("expected an error")
        } catch let error as ExpressibleByRowError {
            let type: ExpressibleByRow.Type = error.type
            #expect(type == Car.self)
            #expect(error.errorDescription?.hasPrefix("Failed to initialize Car from Row with columns: ") == true)
        }
    }

    @Test func extractionConvertsOnlyAMatchingStorageClass() throws {
        let db = try Connection(storageLocation: .inMemory)
        let fromReal: String? = try db.query("SELECT 12.34")
        let fromInteger: String? = try db.query("SELECT 7")
        let fromText: Int? = try db.query("SELECT 'abc'")
        let numericText: Int? = try db.query("SELECT '42'")
        let integerAsDouble: Double? = try db.query("SELECT 3")
        let realAsInt: Int? = try db.query("SELECT 3.0")
        let textAsData: Data? = try db.query("SELECT 'ab'")
        let blobAsString: String? = try db.query("SELECT x'6162'")
        let realAsBool: Bool? = try db.query("SELECT 1.0")
        let textAsDate: Date? = try db.query("SELECT '2001-01-01T00:00:00.000'")
        let integerAsDate: Date? = try db.query("SELECT 0")
        #expect(fromReal == nil && fromInteger == nil && fromText == nil && numericText == nil)
        #expect(realAsInt == nil && textAsData == nil && blobAsString == nil)
        // Strata's one deliberate difference: INTEGER storage reads as Double (NUMERIC columns).
        #expect(integerAsDouble == 3.0)
        #expect(realAsBool == nil && integerAsDate == nil)
        #expect(textAsDate == Date(timeIntervalSinceReferenceDate: 0))
    }

    @Test func cachedQueriesFollowSchemaChanges() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 2)")
        let before: [Int] = try db.query("SELECT * FROM t") { row in row["y"] }
        #expect(before == [2])
        try db.execute("DROP TABLE t; CREATE TABLE t(y, x); INSERT INTO t VALUES(20, 10)")
        let after: [Int] = try db.query("SELECT * FROM t") { row in row["y"] }
        #expect(after == [20])
        try db.execute("ALTER TABLE t ADD COLUMN b DEFAULT 7")
        let added: [Int] = try db.query("SELECT * FROM t") { row in row["b"] }
        #expect(added == [7])
    }

    /// SQift's own pool tests reach these through `@testable import`.
    @Test func poolInternals() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db")
        let writer = try Connection(storageLocation: .onDisk(path))
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
        let pool = ConnectionPool(storageLocation: .onDisk(path))
        let connection = try pool.dequeueConnectionForUse()
        #expect(pool.busyConnections.count == 1)
        pool.enqueueConnectionForReuse(connection)
        #expect(pool.availableConnections.count == 1)
        pool.availableConnections = []
        pool.busyConnections = []
        #expect(pool.availableConnections.isEmpty && pool.busyConnections.isEmpty)
        #expect(try writer.check(SQLITE_OK) == SQLITE_OK)
        #expect(writer.handle == writer.handle)
    }
}
