import Foundation
import Testing
import StrataRecords

@Suite struct SelectionTests {
    @Test func apiSpellingsOfSelectionsAndAggregates() throws {
        let db = try makeBigLibrary()
        let titles: [String] = try Book.where { $0.year > 2000 }.order(by: \.title).select(\.title).fetchAll(db)
        #expect(titles == ["Lavinia"])
        try Book.insertAll(db, [Book(id: nil, authorId: 2, title: "L'Herbe rouge", year: 1950, price: 3.5)])
        let perAuthor: [(Int64, Int)] = try Book.group(by: \.authorId)
            .having { $0.id.count() >= 2 }
            .select { ($0.authorId, $0.id.count()) }
            .fetchAll(db)
        #expect(perAuthor.map(\.0) == [1, 2])
        #expect(perAuthor.map(\.1) == [2, 2])
        let span: (Int?, Int?)? = try Book.select { ($0.year.min(), $0.year.max()) }.fetchOne(db)
        #expect(span?.0 == 1947)
        #expect(span?.1 == 2008)
        let perCountry: [(String, Int)] = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .group { _, author in author.country }
            .select { book, author in (author.country, book.id.count()) }
            .order { _, author in author.country }
            .fetchAll(db)
        #expect(perCountry.map(\.0) == ["FR", "US"])
        #expect(perCountry.map(\.1) == [2, 2])
    }

    @Test func aggregateTypes() throws {
        let db = try makeBigLibrary()
        let sums = try Book.select {
            ($0.year.sum(), $0.price.sum(), $0.year.average(), $0.price.average(), $0.authorId.count(distinct: true), $0.price.count())
        }.fetchOne(db)
        let (years, prices, averageYear, averagePrice, authors, priced) = try #require(sums)
        #expect(years == 1974 + 1947 + 2008)
        #expect(prices == 23.5)
        #expect(averageYear == Double(1974 + 1947 + 2008) / 3)
        #expect(averagePrice == 11.75)
        #expect(authors == 2)
        #expect(priced == 2)
        // Over no rows: sum, average, min and max are nil; count is 0.
        let none = try Book.where { $0.year > 3000 }.select { ($0.year.sum(), $0.price.average(), $0.title.min(), $0.price.max(), $0.id.count()) }.fetchOne(db)
        #expect(none?.0 == nil)
        #expect(none?.1 == nil)
        #expect(none?.2 == nil)
        #expect(none?.3 == nil)
        #expect(none?.4 == 0)
        // An optional column's min reads as the wrapped type, optional once.
        let cheapest: Double?? = try Book.select { $0.price.min() }.fetchOne(db)
        #expect(cheapest == .some(9.5))
        // One expression selects as itself, not a one-tuple.
        let newest: [Int?] = try Book.select { $0.year.max() }.fetchAll(db)
        #expect(newest == [2008])
        #expect(try Book.group(by: \.authorId).select(\.authorId).fetchCount(db) == 2)
    }

    @Test func selectionSQLAndOrderAfterSelect() throws {
        let db = try makeBigLibrary()
        let selection = Book.where { $0.year > 1950 }.select { ($0.title, $0.year) }.order { $0.year.descending }.limit(1)
        #expect(selection.sql == #"SELECT "book"."title", "book"."year" FROM "book" WHERE "book"."year" > ? ORDER BY "book"."year" DESC LIMIT ?"#)
        let rows = try selection.fetchAll(db)
        #expect(rows.map(\.0) == ["Lavinia"])
        #expect(try Book.select(\.title).order(by: \.title, .descending).fetchOne(db) == "The Dispossessed")
        #expect(try Book.order { $0.year.descending }.fetchAll(db).map(\.year) == [2008, 1974, 1947])
    }

    @Test func aValueThatDoesNotConvertNamesTheColumn() throws {
        let db = try makeBigLibrary()
        try db.execute("UPDATE book SET year = 'soon' WHERE id = 1")
        do {
            _ = try Book.select(\.year).fetchAll(db)
            Issue.record("expected an error")
        } catch let error as RecordError {
            #expect(error == .valueMismatch(column: "year", record: "Book", expected: "Int", storageClass: "TEXT"))
            #expect(error.description.contains("Book"))
        }
        do {
            _ = try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchAll(db)
            Issue.record("expected an error")
        } catch let error as RecordError {
            #expect(error == .valueMismatch(column: "year", record: "Book", expected: "Int", storageClass: "TEXT"))
        }
    }
}
