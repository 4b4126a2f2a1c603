import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

private typealias SAuthor = TypedSQLShelf.Author
private typealias SBook = TypedSQLShelf.Book

/// Generated authors and books: names and titles with quotes, NUL and keywords, years at the
/// Int64 limits.
func makeGeneratedLibrary(_ random: inout SeededRandom) throws -> Connection {
    let db = try connection(withTablesOf: SAuthor.self, SBook.self)
    let authors = random.int(0...8)
    for _ in 0..<authors { _ = try SAuthor(id: nil, name: hardText(&random), bookCount: 0).inserted(db) }
    for _ in 0..<random.int(0...30) {
        let year = random.oneIn(5) ? Int(Gen.int64(&random)) : random.int(1900...2030)
        let price: Double? = random.oneIn(3) ? nil : Double(random.int(0...100)) / 4
        _ = try SBook(id: nil, authorId: Int64(random.int(1...max(1, authors + 1))), title: hardText(&random), year: year, price: price).inserted(db)
    }
    return db
}

@Suite struct CommonTableExpressionTests {
    @Test func issueSpelling() throws {
        let db = try connection(withTablesOf: SAuthor.self, SBook.self)
        for name in ["Le Guin", "Vian", "Perec"] { _ = try SAuthor(id: nil, name: name, bookCount: 0).inserted(db) }
        for (author, year) in [(1, 1974), (2, 1947), (1, 2008), (3, 2001)] as [(Int64, Int)] {
            _ = try SBook(id: nil, authorId: author, title: "t", year: year, price: nil).inserted(db)
        }
        let recentAuthors = CTE("recent_authors", SBook.where { $0.year > 2000 }.select(\.authorId))
        let authors: [SAuthor] = try SAuthor.with(recentAuthors)
            .where { $0.id.in(recentAuthors) }
            .fetchAll(db)
        #expect(authors.map(\.name) == ["Le Guin", "Perec"])
        let query = SAuthor.with(recentAuthors).where { $0.id.in(recentAuthors) }
        #expect(query.sql.hasPrefix(#"WITH "recent_authors" AS (SELECT "ts_book"."authorId" FROM "ts_book" WHERE "ts_book"."year" > ?) SELECT"#))
        #expect(query.arguments == [.integer(2000)])
        // Counting and nesting keep the WITH clause.
        #expect(try query.fetchCount(db) == 2)
        let names = try query.order(by: \.name, .descending).select(\.name).fetchAll(db)
        #expect(names == ["Perec", "Le Guin"])
    }

    @Test func recordCTEReadsAsRecords() throws {
        let db = try Connection()
        try SBook.createTable(db)
        for year in [1990, 2005, 2010] { _ = try SBook(id: nil, authorId: 1, title: "y\(year)", year: year, price: year == 2005 ? 1 : nil).inserted(db) }
        let recent = CTE("recent_books", SBook.where { $0.year > 2000 })
        let priced = try SBook.from(recent).where { $0.price != nil }.fetchAll(db)
        #expect(priced.map(\.title) == ["y2005"])
        #expect(try SBook.from(recent).fetchCount(db) == 2)
        // A subquery over the named query, inside another query's condition.
        let inRecent = try SBook.where { $0.id.in(SBook.from(recent).select(\.id)) }.order(by: \.id).fetchAll(db)
        #expect(inRecent.map(\.year) == [2005, 2010])
    }

    @Test func aSelectionReadAsRecords() throws {
        let db = try Connection()
        try SBook.createTable(db)
        for author in [1, 1, 2] as [Int64] { _ = try SBook(id: nil, authorId: author, title: "t", year: 2000, price: nil).inserted(db) }
        let totals = CTE("totals", as: TypedSQLShelf.AuthorTotal.self, SBook.group(by: \.authorId).select { ($0.authorId, $0.id.count()) })
        let busy = try TypedSQLShelf.AuthorTotal.from(totals).where { $0.books > 1 }.fetchAll(db)
        #expect(busy == [TypedSQLShelf.AuthorTotal(authorId: 1, books: 2)])
        // A query of another shape: SQLite's error, thrown.
        let wrong = CTE("wrong", as: TypedSQLShelf.AuthorTotal.self, SBook.select(\.title))
        #expect(throws: SQLiteError.self) { try TypedSQLShelf.AuthorTotal.from(wrong).fetchAll(db) }
    }

    @Test func aNamedQueryNotDeclaredWithWithIsSQLitesError() throws {
        let db = try Connection()
        try SAuthor.createTable(db)
        let missing = CTE("nowhere", SAuthor.select(\.id))
        #expect(throws: SQLiteError.self) { try SAuthor.where { $0.id.in(missing) }.fetchAll(db) }
    }

    /// The typed CTE against the statement written by hand, on generated libraries.
    @Test func matchesHandWrittenSQL() throws {
        try PropertyCheck.run("CTE = hand-written WITH", cases: 40) { random in
            let db = try makeGeneratedLibrary(&random)
            let threshold = random.oneIn(4) ? Int(Gen.int64(&random)) : random.int(1900...2030)
            let title = hardText(&random)
            let cte = CTE("picked \"authors\"", SBook.where { $0.year > threshold || $0.title == title }.select(\.authorId))
            let typed = try SAuthor.with(cte).where { $0.id.in(cte) }.order(by: \.id).fetchAll(db).map(\.id)
            let hand: [Int64] = try db.query(
                literal: """
                    WITH "picked ""authors""\" AS (SELECT "authorId" FROM "ts_book" WHERE "year" > \(threshold) OR "title" = \(title))
                    SELECT "id" FROM "ts_author" WHERE "id" IN (SELECT * FROM "picked ""authors""\") ORDER BY "id"
                    """)
            try require(typed == hand.map { Optional($0) }, "typed \(typed) != hand-written \(hand)")
        }
    }
}
