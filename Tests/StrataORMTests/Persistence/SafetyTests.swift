import Foundation
import Testing
import StrataORM

@Suite struct SafetyTests {
    static let hostileValues = [
        "O'Brien", "'; DROP TABLE people; --", "\"quoted\"", "semi;colon;", "Zoë 🚀 日本語", "back\\slash", "",
        "Robert'); DELETE FROM people WHERE ('1'='1"
    ]

    @Test(arguments: hostileValues)
    func valuesRoundTripThroughInsertUpdateGetAndWhere(value: String) throws {
        let storage = try peopleStorage()
        let id = try storage.insert(Person(id: 0, name: value, nickname: value, age: 1))
        let fetched: Person? = try storage.get(id: id)
        #expect(fetched == Person(id: Int(id), name: value, nickname: value, age: 1))

        let matches: [Person] = try storage.getAll(where_(\Person.name == value))
        #expect(matches.map(\.id) == [Int(id)])

        var updated = try #require(fetched)
        updated.name = value + value
        try storage.update(updated)
        let again: Person? = try storage.get(id: id)
        #expect(again?.name == value + value)
        #expect(try storage.count(all: Person.self, where_(\Person.name == value + value)) == 1)

        try storage.update(all: Person.self, set(assign(\Person.nickname, value + "!")), where_(\Person.name == value + value))
        let nicknames: [String?] = try storage.select(\Person.nickname, where_(\Person.id == Int(id)))
        #expect(nicknames == [value + "!"])
        #expect(try storage.tableExists(with: "people"))
    }

    @Test func likeAndInBindTheirValues() throws {
        let storage = try peopleStorage()
        for name in ["O'Brien", "O'Neil", "Smith"] {
            try storage.insert(Person(id: 0, name: name, nickname: nil, age: 1))
        }
        let apostrophes: [Person] = try storage.getAll(where_(like(\Person.name, "O'%")), orderBy(\Person.name))
        #expect(apostrophes.map(\.name) == ["O'Brien", "O'Neil"])
        let chosen: [Person] = try storage.getAll(where_((\Person.name).in(["Smith", "'; --"])))
        #expect(chosen.map(\.name) == ["Smith"])
        let others: [Person] = try storage.getAll(where_(notIn(\Person.name, ["Smith"])), orderBy(\Person.name).desc())
        #expect(others.map(\.name) == ["O'Neil", "O'Brien"])
    }

    @Test func tableAndColumnNamesWithQuotesWork() throws {
        let table = Table<Person>(
            name: "we\"ird 'table'; --",
            Column(name: "i\"d", keyPath: \Person.id, constraints: primaryKey(), notNull()),
            Column(name: "na'me", keyPath: \Person.name, constraints: notNull()),
            Column(name: "nick name", keyPath: \Person.nickname),
            Column(name: "select", keyPath: \Person.age, constraints: notNull()))
        let storage = try Storage(filename: "", table)
        #expect(try storage.syncSchema(preserve: true) == ["we\"ird 'table'; --": .newTableCreated])
        #expect(try storage.syncSchema(preserve: true) == ["we\"ird 'table'; --": .alredyInSync])
        let id = try storage.insert(Person(id: 0, name: "x", nickname: "y", age: 3))
        var person = try #require(try storage.get(id: id) as Person?)
        person.age = 4
        try storage.update(person)
        let ages: [Int] = try storage.select(\Person.age, where_(\Person.name == "x"))
        #expect(ages == [4])
        try storage.delete(person)
        #expect(try storage.count(all: Person.self) == 0)
        #expect(try storage.tableExists(with: "we\"ird 'table'; --"))
        #expect(try !storage.tableExists(with: "we"))
    }
}
