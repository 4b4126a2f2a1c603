import Foundation
import StrataORM

extension Tour {
    /// A model for the ORM: no Codable, only a no-argument initializer.
    struct Person: Initializable {
        var id = 0
        var name = ""
        var nickname: String?
    }

    /// SQLiteORM-Swift's key-path ORM on an in-memory storage.
    func ormTour() throws {
        section("Key-path ORM (SQLiteORM-Swift)")
        let storage = try Storage(
            filename: "",
            Table<Person>(
                name: "people",
                Column(name: "id", keyPath: \Person.id, constraints: primaryKey(), notNull()),
                Column(name: "name", keyPath: \Person.name, constraints: notNull()),
                Column(name: "nickname", keyPath: \Person.nickname)
            )
        )
        show("syncSchema(preserve: true) -> \(try storage.syncSchema(preserve: true))")
        let id = try storage.insert(object: Person(id: 0, name: "O'Brien", nickname: nil))
        try storage.insert(object: Person(id: 0, name: "Lana", nickname: "L"))
        let found: Person? = try storage.get(id: id)
        show("insert -> id \(id); get(id:) -> \(found.map(\.name) ?? "nothing")")
        let named: [Person] = try storage.getAll(where_(\Person.name == "O'Brien"), orderBy(\Person.id))
        show("getAll(where_(\\Person.name == \"O'Brien\")) -> \(named.count) row (the quote is bound, not spliced)")
        show("count(all:) -> \(try storage.count(all: Person.self))")
    }
}
