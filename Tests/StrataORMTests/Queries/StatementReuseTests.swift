import Foundation
import Testing
import StrataORM

@Suite struct StatementReuseTests {
    @Test func cachedStatementsSurviveASchemaChangeThatReordersColumns() throws {
        let storage = try sampleStorage()
        let before: [Person] = try storage.getAll(orderBy(\Person.id))
        let bob: Person? = try storage.get(id: 2)
        #expect(bob?.name == "Bob")
        // Recreate the table behind the storage's back with its columns in another order.
        try storage.connection.execute(
            """
            CREATE TABLE people_new (age INTEGER NOT NULL, nickname TEXT, name TEXT NOT NULL, id INTEGER PRIMARY KEY NOT NULL);
            INSERT INTO people_new (age, nickname, name, id) SELECT age, nickname, name, id FROM people;
            DROP TABLE people;
            ALTER TABLE people_new RENAME TO people;
            """)
        // The cached statements are re-prepared by SQLite; they name their columns, so each
        // value still lands in its own property.
        let after: [Person] = try storage.getAll(orderBy(\Person.id))
        #expect(after == before)
        #expect(try storage.get(id: 2) as Person? == bob)
        var updated = try #require(bob)
        updated.age = 41
        try storage.update(updated)
        let id = try storage.insert(Person(id: 0, name: "Eve", nickname: "E", age: 20))
        #expect(try storage.get(id: id) as Person? == Person(id: Int(id), name: "Eve", nickname: "E", age: 20))
        let again: Person? = try storage.get(id: 2)
        #expect(again?.age == 41)
    }
}
