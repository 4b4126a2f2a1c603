import Foundation
import StrataORM
import Testing

/// An FTS5 index whose content is an ORM table: the ORM's writes keep it in sync (triggers on the
/// content table), and searching reads the ORM's rows back.
@Suite struct FTS5ExternalContentTests {
    @Test func ormWritesKeepTheIndexInSync() throws {
        let storage = try peopleStorage()
        let db = storage.connection
        try db.createFTS5Table(
            "people_text", columns: ["name", "nickname"],
            options: FTS5Options(content: .external(table: "people", rowID: "id")))
        func search(_ text: String) throws -> [Int] {
            let pattern = FTS5Pattern(matchingAllTokensIn: text)
            return try db.query(literal: "SELECT rowid FROM people_text WHERE people_text MATCH \(pattern) ORDER BY rowid")
        }
        try storage.insert(Person(id: 0, name: "Ada Lovelace", nickname: "enchantress", age: 36))
        try storage.insert(Person(id: 0, name: "Alan Turing", nickname: nil, age: 41))
        #expect(try search("lovelace") == [1])
        #expect(try search("enchantress") == [1])
        try storage.update(Person(id: 2, name: "Alan M. Turing", nickname: "prof", age: 41))
        #expect(try search("prof") == [2])
        try storage.delete(object: Person(id: 1, name: "", nickname: nil, age: 0))
        #expect(try search("lovelace").isEmpty)
        #expect(try db.query("SELECT count(*) FROM people_text") as Int? == 1)
        try db.run("INSERT INTO people_text(people_text) VALUES ('integrity-check')")
    }
}
