import Foundation
import Testing
import StrataRecords

// Expressions of the kind API.md and the README write, longer than most: the builder's overloads
// (operators on columns against values and against columns, optional or not, aggregates, packs)
// must keep each one quick to type-check. Built with
// `-Xswiftc -Xfrontend -Xswiftc -warn-long-expression-type-checking=150`, none is reported.
@Suite struct TypeCheckingTests {
    @Test func longPredicatesAndSelectionsCompileAndRun() throws {
        let db = try makeBigLibrary()
        let minimumYear = 1900, title = "Lavinia", maximumPrice = 20.0
        let books = try Book.where {
            $0.year >= minimumYear && $0.year <= 2100 && ($0.title == title || $0.title.like("L%") || $0.price == nil)
                && $0.price != 99.5 && !$0.id.in([100, 200, 300]) && $0.year.between(1900, 2100) && ($0.price < maximumPrice || $0.price.isNull)
        }.order { $0.year.descending }.order { $0.title }.limit(10, offset: 0).fetchAll(db)
        #expect(books.map(\.title) == ["Lavinia"]) // `price != 99.5` is NULL, so false, for a NULL price
        let pairs = try Book.join(Author.self, on: { book, author in book.authorId == author.id && author.name != "" && book.year > 0 })
            .where { book, author in (author.country == "FR" || author.country == "US") && book.year >= 1900 && book.price != 1.5 && author.id != nil }
            .order { _, author in author.name.descending }
            .order { book, _ in book.year }
            .fetchAll(db)
        #expect(pairs.count == 2)
        let stats = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .group { book, author in (author.country, book.authorId) }
            .having { book, _ in book.id.count() >= 1 && book.year.max() > 1900 }
            .select { book, author in (author.country, book.authorId, book.id.count(), book.price.sum(), book.year.average(), book.year.min(), book.title.max())
            }
            .order { _, author in author.country }
            .fetchAll(db)
        #expect(stats.count == 2)
        let nested = try Author.where { author in
            author.id.in(Book.where { $0.year > 1900 && $0.price != nil }.select(\.authorId))
                && Book.where { $0.authorId == author.id && $0.year < 3000 }.exists()
                && !Book.where { $0.authorId == author.id && $0.title == "none" }.exists()
        }.fetchAll(db)
        #expect(nested.map(\.name) == ["Le Guin"])
        let threeWay = try Book.join(Edition.self, on: { $1.bookId == $0.id })
            .leftJoin(Publisher.self, on: { _, edition, publisher in edition.publisherId == publisher.id && publisher.name != "x" })
            .where { book, edition, publisher in book.year > 1900 && edition.pages > 100 && (publisher.name == "Ace" || publisher.id == nil) }
            .order { _, edition, _ in edition.pages.descending }
            .fetchAll(db)
        #expect(threeWay.map(\.1.pages) == [387, 279])
    }
}
