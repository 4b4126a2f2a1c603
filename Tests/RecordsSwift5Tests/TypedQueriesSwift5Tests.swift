import Foundation
import StrataSQift
import StrataRecords
import Testing

// API.md section 6, "Typed queries across tables", as Swift 5 client code writes it.
extension Author { static let books = hasMany(Book.self, using: \.authorId) }
extension Book { static let author = belongsTo(Author.self, using: \.authorId) }

@Suite struct TypedQueriesSwift5Tests {
    func library() throws -> Connection {
        let db = try Connection()
        try Author.createTable(db)
        try Book.createTable(db)
        try Author.insertAll(
            db,
            [
                Author(id: nil, name: "Vian", country: "FR"), Author(id: nil, name: "Le Guin", country: "US"),
                Author(id: nil, name: "Perec", country: "FR")
            ])
        let books = [
            Book(id: nil, authorId: 1, title: "L'Arrache-cœur", year: 1953, price: nil),
            Book(id: nil, authorId: 1, title: "Trouble dans les andains", year: 2001, price: 7),
            Book(id: nil, authorId: 2, title: "Lavinia", year: 2008, price: 14)
        ]
        let ids: [Int64] = try Book.insertAll(db, books)
        #expect(ids == [1, 2, 3])
        return db
    }

    @Test func joins() throws {
        let db = try library()
        let pairs: [(Book, Author)] = try Book.join(Author.self, on: { book, author in book.authorId == author.id })
            .where { book, author in author.country == "FR" && book.year >= 2000 }
            .order { _, author in author.name }
            .order { book, _ in book.year.descending }
            .limit(10, offset: 0)
            .fetchAll(db)
        #expect(pairs.map { $0.0.title } == ["Trouble dans les andains"])
        let all: [(Author, Book?)] = try Author.leftJoin(Book.self, on: { author, book in book.authorId == author.id })
            .fetchAll(db)
        #expect(all.filter { $0.1 == nil }.map { $0.0.name } == ["Perec"])
        #expect(try Book.order { $0.year.descending }.fetchAll(db).map { $0.year } == [2008, 2001, 1953])
    }

    @Test func selectionsAndAggregates() throws {
        let db = try library()
        let titles: [String] = try Book.where { $0.year > 2000 }.order(by: \.title).select(\.title).fetchAll(db)
        #expect(titles == ["Lavinia", "Trouble dans les andains"])
        let perAuthor: [(Int64, Int)] = try Book.group(by: \.authorId)
            .having { $0.id.count() >= 2 }
            .select { ($0.authorId, $0.id.count()) }
            .fetchAll(db)
        #expect(perAuthor.map { $0.0 } == [1])
        #expect(perAuthor.map { $0.1 } == [2])
        let span: (Int?, Int?)? = try Book.select { ($0.year.min(), $0.year.max()) }.fetchOne(db)
        #expect(span?.0 == 1953)
        #expect(span?.1 == 2008)
        let perCountry: [(String, Int)] = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .group { _, author in author.country }
            .select { book, author in (author.country, book.id.count()) }
            .order { _, author in author.country }
            .fetchAll(db)
        #expect(perCountry.map { $0.0 } == ["FR", "US"])
        #expect(perCountry.map { $0.1 } == [2, 1])
    }

    @Test func subqueriesAndAssociations() throws {
        let db = try library()
        let recent: [Author] = try Author.where { $0.id.in(Book.where { $0.year > 2000 }.select(\.authorId)) }.fetchAll(db)
        #expect(recent.map { $0.name } == ["Vian", "Le Guin"])
        let withBooks: [Author] = try Author.where { author in Book.where { $0.authorId == author.id }.exists() }.fetchAll(db)
        #expect(withBooks.count == 2)
        let shelves: [(Author, [Book])] = try Author.including(all: Author.books).order(by: \.name).fetchAll(db)
        #expect(shelves.map { $0.1.count } == [1, 0, 2])
        let credited: [(Book, Author)] = try Book.including(required: Book.author).fetchAll(db)
        #expect(credited.count == 3)
        let maybe: [(Book, Author?)] = try Book.including(optional: Book.author).fetchAll(db)
        #expect(maybe.allSatisfy { $0.1 != nil })
    }
}
