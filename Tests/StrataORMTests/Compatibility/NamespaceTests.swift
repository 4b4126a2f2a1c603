// Code importing Foundation, Strata and StrataORM together (Foundation has its own `Expression`):
// SQift-style calls and the standard library's functions still resolve without ambiguity.
import Foundation
import Strata
import StrataORM
import Testing

@Suite struct NamespaceTests {
    @Test func sqiftStyleCallsCompileBesideTheORM() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 1, "Audi", 52_642)
        try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)").bind(2, "Mercedes", 57_127).run()
        let count: Int? = try connection.query("SELECT count(*) FROM cars")
        #expect(count == 2)
        let names: [String] = try connection.query("SELECT name FROM cars ORDER BY id")
        #expect(names == ["Audi", "Mercedes"])
        let row = try #require(try connection.query("SELECT name, price FROM cars WHERE id = ?", 1) as Row?)
        let price: Int? = row[1]
        #expect(price == 52_642)
        #expect(abs(-3) == 3)
        #expect(max(1, 2) == 2 && min(1, 2) == 1)
        #expect([1, 2, 3].count == 3)
        let total = 1 + 2 * 3
        #expect(total == 7)
        #expect("a" + "b" == "ab")
        let syntaxError = #expect(throws: SQLiteError.self) { try connection.execute("SELEC 1") }
        #expect(syntaxError?.code == 1)
        // `Error` is SQLiteORM's here, as in upstream code; Swift's stays reachable.
        let ormError: Error = .typeIsNotMapped(type: "X")
        #expect(ormError == ORMError.typeIsNotMapped(type: "X"))
        let swiftError: any Swift.Error = ormError
        #expect((swiftError as? ORMError) == ormError)
    }
}
