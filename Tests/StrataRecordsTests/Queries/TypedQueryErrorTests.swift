import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct TypedQueryErrorTests {
    @Test func aMissingColumnNamesTheRecordAndTheColumn() throws {
        let db = try Connection()
        try Author.createTable(db)
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER, title TEXT, year INTEGER)") // no price
        try db.execute("INSERT INTO author(name, country) VALUES ('Vian', 'FR')")
        for run in [
            { _ = try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchAll(db) },
            { _ = try Book.where { $0.year > 1 }.fetchAll(db) },
            { _ = try Book.select { $0.price.max() }.fetchAll(db) },
            { _ = try Author.including(all: Author.books).fetchAll(db) }
        ] {
            do {
                try run()
                Issue.record("expected an error")
            } catch let error as SQLiteError {
                #expect(error.message.contains("price"))
                #expect(error.message.contains("Book"))
            }
        }
    }
}
