import Foundation
import StrataSQift
import Testing
import StrataRecords

// The records API.md section 6 declares; the typed-query tests across tables use them too.
@Record struct Author: Equatable { @PrimaryKey var id: Int64?; var name: String; var country: String }
@Record struct Book: Equatable {
    @PrimaryKey var id: Int64?; var authorId: Int64; var title: String; var year: Int; var price: Double?
}

/// Authors and books on an in-memory database, the rows written through `run(literal:)`.
func makeLibrary() throws -> Connection {
    let db = try connection(withTablesOf: Author.self, Book.self)
    for (name, country) in [("Le Guin", "US"), ("Vian", "FR")] {
        try db.run(literal: "INSERT INTO author(name, country) VALUES (\(name), \(country))")
    }
    let books: [(Int64, String, Int, Double?)] = [
        (1, "The Dispossessed", 1974, 9.5), (2, "L'Écume des jours", 1947, nil),
        (1, "Lavinia", 2008, 14.0)
    ]
    for (authorId, title, year, price) in books {
        try db.run(literal: "INSERT INTO book(authorId, title, year, price) VALUES (\(authorId), \(title), \(year), \(price))")
    }
    return db
}

@Suite struct RecordLiteralTests {
    @Test func fetchAllAndFetchOneLiteral() throws {
        let db = try makeLibrary()
        let y = 1960
        let books: [Book] = try Book.fetchAll(db, literal: "SELECT * FROM book WHERE year > \(y)")
        #expect(books.map(\.title) == ["The Dispossessed", "Lavinia"])
        let id: Int64 = 2
        let one: Book? = try Book.fetchOne(db, literal: "SELECT * FROM book WHERE id = \(id)")
        #expect(one == Book(id: 2, authorId: 2, title: "L'Écume des jours", year: 1947, price: nil))
        #expect(try Book.fetchOne(db, literal: "SELECT * FROM book WHERE id = \(99)") == nil)
        // Columns in another order, or a join's, are read by name.
        let reordered = try Author.fetchAll(
            db,
            literal: """
                SELECT \(identifier: "country"), author.name, author.id FROM author JOIN book ON book.authorId = author.id
                WHERE book.title = \("Lavinia")
                """)
        #expect(reordered == [Author(id: 1, name: "Le Guin", country: "US")])
    }

    @Test func literalValuesStayValues() throws {
        let db = try makeLibrary()
        let hostile = "x' OR '1'='1"
        #expect(try Book.fetchAll(db, literal: "SELECT * FROM book WHERE title = \(hostile)").isEmpty)
        #expect(try Book.fetchCount(db) == 3)
    }

    @Test func aRowThatDoesNotMapThrows() throws {
        let db = try makeLibrary()
        #expect(throws: RecordError.self) {
            _ = try Book.fetchAll(db, literal: "SELECT id, title FROM book")
        }
    }

    @Test func typedPredicatesAreFragments() throws {
        let predicate = Book.columns.year > 2000 && Book.columns.price != nil
        // Typed columns are qualified by their table, so they mean the same inside a join.
        #expect(predicate.sql == #"("book"."year" > ?) AND ("book"."price" IS NOT NULL)"#)
        #expect(predicate.arguments == [.integer(2000)])
        // The same predicate, re-aliased, or unqualified.
        #expect(predicate.fragment.requalifyingColumns(from: "book", to: "b").sql == #"("b"."year" > ?) AND ("b"."price" IS NOT NULL)"#)
        #expect(predicate.fragment.unqualifyingColumns(of: "book").sql == #"("year" > ?) AND ("price" IS NOT NULL)"#)
        // A typed column in hand-written SQL.
        let db = try makeLibrary()
        let titles: [String] = try db.query(
            literal: "SELECT \(Book.columns.title.fragment) FROM book WHERE \(predicate.fragment) ORDER BY \(Book.columns.year.fragment)")
        #expect(titles == ["Lavinia"])
        let query = Book.where { $0.title.in(["Lavinia", "x"]) || !$0.year.between(1900, 1950) }.order(by: \.year).limit(2, offset: 1)
        #expect(
            query.sql
                == #"SELECT "book"."id", "book"."authorId", "book"."title", "book"."year", "book"."price" FROM "book" WHERE ("book"."title" IN (?, ?)) OR (NOT ("book"."year" BETWEEN ? AND ?)) ORDER BY "book"."year" ASC LIMIT ? OFFSET ?"#
        )
        #expect(query.arguments == [.text("Lavinia"), .text("x"), .integer(1900), .integer(1950), .integer(2), .integer(1)])
        #expect(try query.fetchAll(db).map(\.title) == ["Lavinia"])
    }
}
