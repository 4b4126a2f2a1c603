import Foundation
import StrataSQift
import StrataRecords
import Testing

// API.md section 6's records and its literal fetches, as Swift 5 client code writes them.
@Record struct Author: Equatable { @PrimaryKey var id: Int64?; var name: String; var country: String }
@Record struct Book: Equatable {
    @PrimaryKey var id: Int64?; var authorId: Int64; var title: String; var year: Int; var price: Double?
}

@Suite struct RecordLiteralSwift5Tests {
    @Test func literalSpellings() throws {
        let db = try Connection()
        try Author.createTable(db)
        try Book.createTable(db)
        let name = "Vian", country = "FR"
        try db.run(literal: "INSERT INTO author(name, country) VALUES (\(name), \(country))")
        var book = Book(id: nil, authorId: 1, title: "L'Arrache-cœur", year: 1953, price: nil)
        try book.insert(db)
        var later = Book(id: nil, authorId: 1, title: "Later", year: 2001, price: 3)
        try later.insert(db)
        let y = 1999
        let id: Int64 = 1
        let books: [Book] = try Book.fetchAll(db, literal: "SELECT * FROM book WHERE year > \(y)") // StrataRecords
        let one: Book? = try Book.fetchOne(db, literal: "SELECT * FROM book WHERE id = \(id)")
        #expect(books == [later])
        #expect(one == book)
    }
}
