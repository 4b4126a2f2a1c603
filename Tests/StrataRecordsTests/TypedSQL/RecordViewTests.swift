import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

private typealias SAuthor = TypedSQLShelf.Author
private typealias SBook = TypedSQLShelf.Book
private typealias SAuthorTotal = TypedSQLShelf.AuthorTotal
private typealias SOddTitle = TypedSQLShelf.OddTitle

@Suite struct RecordViewTests {
    @Test func issueSpelling() throws {
        let db = try Connection()
        try SBook.createTable(db)
        for (author, count) in [(1, 4), (2, 1), (3, 5)] as [(Int64, Int)] {
            for index in 0..<count { _ = try SBook(id: nil, authorId: author, title: "b\(index)", year: 2000, price: nil).inserted(db) }
        }
        try SAuthorTotal.createView(db) // CREATE VIEW IF NOT EXISTS, from the typed definition
        try SAuthorTotal.createView(db) // a second time: already there
        let busy = try SAuthorTotal.where { $0.books > 3 }.order(by: \.authorId).fetchAll(db)
        #expect(busy == [SAuthorTotal(authorId: 1, books: 4), SAuthorTotal(authorId: 3, books: 5)])
        #expect(try SAuthorTotal.fetchCount(db) == 3)
        #expect(
            try SAuthorTotal.createViewSQL()
                == #"CREATE VIEW IF NOT EXISTS "author_totals"("authorId", "books") AS SELECT "ts_book"."authorId", count("ts_book"."id") FROM "ts_book" GROUP BY "ts_book"."authorId""#
        )
        // Joined like a table's records.
        try SAuthor.createTable(db)
        _ = try SAuthor(id: 3, name: "Perec", bookCount: 0).inserted(db)
        let pairs = try SAuthor.join(SAuthorTotal.self, on: { author, total in author.id == total.authorId }).fetchAll(db)
        #expect(pairs.count == 1 && pairs[0].1.books == 5)
        try SAuthorTotal.dropView(db)
        #expect(throws: SQLiteError.self) { try SAuthorTotal.fetchAll(db) }
    }

    @Test func writingToTheViewIsRefusedBySQLite() throws {
        // `SAuthorTotal(…).insert(db)` does not compile: a ViewRecord has no persistence calls.
        let db = try Connection()
        try SBook.createTable(db)
        try SAuthorTotal.createView(db)
        #expect(throws: SQLiteError.self) { try db.run(literal: "INSERT INTO author_totals(authorId, books) VALUES (\(1), \(2))") }
    }

    @Test func definitionValuesAreWrittenAsLiterals() throws {
        let db = try Connection()
        try SBook.createTable(db)
        for title in ["it's \"odd\"\0 -- ;", "plain", "it's \"odd\""] {
            _ = try SBook(id: nil, authorId: 1, title: title, year: 1, price: 1).inserted(db)
        }
        try SOddTitle.createView(db)
        #expect(try SOddTitle.order(by: \.title).fetchAll(db).map(\.title) == ["it's \"odd\"", "plain"])
        let sql = try SOddTitle.createViewSQL()
        #expect(!sql.contains("?"))
        #expect(sql.contains("-9223372036854775808") && sql.contains("9223372036854775807"))
    }

    @Test func sqlTextWithItsOwnParametersIsRefused() throws {
        let condition = RecordPredicate(SQLFragment(sql: "\"year\" > ?", arguments: [.integer(1)]))
        let trigger = SBook.afterInsert(named: "raw") { _ in SBook.where { _ in condition }.delete() }
        #expect(throws: SQLFragmentError.self) { try trigger.sql() }
    }

    /// The view's rows against the GROUP BY written by hand, on generated libraries.
    @Test func matchesHandWrittenSQL() throws {
        try PropertyCheck.run("view = hand-written GROUP BY", cases: 30) { random in
            let db = try makeGeneratedLibrary(&random)
            try SAuthorTotal.createView(db, temporary: random.oneIn(2))
            let least = random.int(0...3)
            let typed = try SAuthorTotal.where { $0.books >= least }.order(by: \.authorId).fetchAll(db).map { [$0.authorId, Int64($0.books)] }
            let hand: [[Int64]] = try db.query(
                literal: """
                    SELECT "authorId", count("id") FROM "ts_book" GROUP BY "authorId" HAVING count("id") >= \(least) ORDER BY "authorId"
                    """
            ) { row in [row.value(at: 0) ?? -1, row.value(at: 1) ?? -1] }
            try require(typed == hand, "typed \(typed) != hand-written \(hand)")
        }
    }
}
