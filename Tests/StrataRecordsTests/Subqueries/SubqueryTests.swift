import Foundation
import Testing
import StrataRecords

@Suite struct SubqueryTests {
    @Test func apiSpellingsOfSubqueries() throws {
        let db = try makeBigLibrary()
        let recent: [Author] = try Author.where { $0.id.in(Book.where { $0.year > 2000 }.select(\.authorId)) }.fetchAll(db)
        #expect(recent.map(\.name) == ["Le Guin"])
        let withBooks: [Author] = try Author.where { author in Book.where { $0.authorId == author.id }.exists() }.fetchAll(db)
        #expect(withBooks.map(\.name) == ["Le Guin", "Vian"])
        let without = try Author.where { author in !Book.where { $0.authorId == author.id }.exists() }.fetchAll(db)
        #expect(without.map(\.name) == ["Perec"])
        let query = Author.where { author in Book.where { $0.authorId == author.id && $0.year > 1960 }.exists() }
        #expect(
            query.sql
                == #"SELECT "author"."id", "author"."name", "author"."country" FROM "author" WHERE EXISTS (SELECT 1 FROM "book" WHERE ("book"."authorId" = "author"."id") AND ("book"."year" > ?))"#
        )
        #expect(query.arguments == [.integer(1960)])
        // The reverse direction of optionality, and a subquery in a join.
        let books = try Book.where { $0.authorId.in(Author.where { $0.country == "FR" }.select(\.id)) }.fetchAll(db)
        #expect(books.map(\.title) == ["L'Écume des jours"])
        let joined = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .where { book, _ in book.id.in(Edition.where { $0.pages > 260 }.select(\.bookId)) }.fetchCount(db)
        #expect(joined == 2)
    }
}
