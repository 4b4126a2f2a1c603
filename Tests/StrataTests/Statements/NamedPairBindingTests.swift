import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct NamedPairBindingTests {
    @Test func bindsPairsAndLeavesOthersNull() throws {
        let connection = try makeCarsConnection()
        let insert = try connection.prepare("INSERT INTO cars(id, name, price) VALUES(:id, :name, :price)")
        try insert.bind(named: (":id", 10), (":name", "Lada"), (":price", 1_000)).run()
        try insert.bind(named: (":price", 2_000), (":id", 11), (":name", "Trabant")).run()
        try insert.bind(named: (":id", 12), (":name", "Ghost")).run()
        let rows: [String] = try connection.query("SELECT name || ':' || ifnull(price, 'NULL') FROM cars WHERE id >= 10 ORDER BY id")
        #expect(rows == ["Lada:1000", "Trabant:2000", "Ghost:NULL"])
        let unknown = sqliteError { try insert.bind(named: (":id", 13), (":cost", 1)).run() }
        #expect(unknown?.code == SQLITE_MISUSE)
        #expect(unknown?.message == "Bind could not find index for key: ':cost'")
        #expect(try connection.query("SELECT count(*) FROM cars WHERE id = 13") == 0)
    }
}
