// Joins of any arity: one JoinQuery type over parameter packs. Four and five tables, left joins
// anywhere in the chain, self-joins aliased apart, and every clause over every table's columns,
// each checked against the same query written by hand and run by SQLite.
import Foundation
import StrataSQift
import Testing
import StrataRecords

/// The `book` table under another spelling: SQLite folds ASCII case, so it is the same table.
@Record(table: "BOOK") struct ShoutedBook: Equatable {
    @PrimaryKey var id: Int64?; var authorId: Int64; var title: String; var year: Int; var price: Double?
}

@Suite struct JoinArityTests {
    /// Joining `book` with `BOOK` is a self-join: the second gets an alias, or every column of
    /// the ON clause would be ambiguous.
    @Test func aTableSpelledInAnotherCaseIsAliasedAsItself() throws {
        let db = try makeBigLibrary()
        let pairs = try Book.join(ShoutedBook.self, on: { $0.authorId == $1.authorId && $0.id != $1.id })
            .order { book, other in book.id }
            .fetchAll(db)
        #expect(pairs.map { [$0.0.title, $0.1.title] } == [["The Dispossessed", "Lavinia"], ["Lavinia", "The Dispossessed"]])
        #expect(Book.join(ShoutedBook.self, on: { $0.id == $1.id }).sql.contains(#"AS "BOOK_2""#))
    }

    /// Book, its author, its edition (left) and that edition's publisher (left), as SQLite reads
    /// the hand-written join.
    @Test func fourRecordsReadAsTheHandWrittenJoin() throws {
        let db = try makeBigLibrary()
        let rows: [(Book, Author, Edition?, Publisher?)] = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .leftJoin(Edition.self, on: { book, _, edition in edition.bookId == book.id })
            .leftJoin(Publisher.self, on: { _, _, edition, publisher in publisher.id == edition.publisherId })
            .order { book, _, _, _ in book.id }
            .fetchAll(db)
        let expected: [(String, String, Int?, String?)] = try db.query(
            """
            SELECT b.title, a.name, e.pages, p.name FROM book b JOIN author a ON b.authorId = a.id
            LEFT JOIN edition e ON e.bookId = b.id LEFT JOIN publisher p ON p.id = e.publisherId ORDER BY b.id
            """
        ) { ($0[0], $0[1], $0[2], $0[3]) }
        #expect(rows.count == expected.count && rows.count == 3)
        for (row, want) in zip(rows, expected) {
            #expect(row.0.title == want.0)
            #expect(row.1.name == want.1)
            #expect(row.2?.pages == want.2)
            #expect(row.3?.name == want.3)
        }
        // Lavinia's edition has no publisher: the fourth member is nil, the third is not.
        #expect(rows[2].2 != nil && rows[2].3 == nil)
    }

    /// `where`, `order`, `select`, `group`, `having`, `fetchCount`, `fetchOne` and `exists` all
    /// take one set of columns per table.
    @Test func everyClauseSeesEveryTable() throws {
        let db = try makeBigLibrary()
        let four = Book.join(Author.self, on: { $0.authorId == $1.id })
            .join(Edition.self, on: { book, _, edition in edition.bookId == book.id })
            .leftJoin(Publisher.self, on: { _, _, edition, publisher in publisher.id == edition.publisherId })
        let filtered = four.where { _, author, edition, _ in author.country == "US" && edition.pages > 300 }
        #expect(try filtered.fetchCount(db) == 1)
        let one = try filtered.fetchOne(db)
        #expect(one?.0.title == "The Dispossessed" && one?.3?.name == "Ace")

        // A left-joined record's non-optional column reads NULL where nothing matched, so the
        // selection takes the inner-joined edition's.
        let selected: [(String, Int)] = try four.select { book, _, edition, _ in (book.title, edition.pages) }
            .order { book, _, _, _ in book.title }
            .fetchAll(db)
        #expect(selected.map(\.0) == ["L'Écume des jours", "Lavinia", "The Dispossessed"])
        #expect(selected.map(\.1) == [250, 279, 387])

        let grouped =
            four
            .group { _, author, _, _ in author.country }
            .having { _, _, edition, _ in edition.pages.count() >= 2 }
        let pagesByCountry: [(String, Int?)] =
            try grouped
            .select { _, author, edition, _ in (author.country, edition.pages.sum()) }
            .fetchAll(db)
        let expected: [(String, Int?)] = try db.query(
            """
            SELECT a.country, sum(e.pages) FROM book b JOIN author a ON b.authorId = a.id JOIN edition e ON e.bookId = b.id
            GROUP BY a.country HAVING count(e.pages) >= 2
            """
        ) { ($0[0], $0[1]) }
        #expect(pagesByCountry.map(\.0) == expected.map(\.0) && pagesByCountry.map(\.1) == expected.map(\.1))

        let withAnEdition = try Author.where { author in
            Book.join(Edition.self, on: { $0.id == $1.bookId })
                .join(Publisher.self, on: { _, edition, publisher in edition.publisherId == publisher.id })
                .where { book, _, publisher in book.authorId == author.id && publisher.name == "Gallimard" }
                .exists()
        }.fetchAll(db)
        #expect(withAnEdition.map(\.name) == ["Vian"])
    }

    /// The same record four times: each occurrence gets its own alias and reads its own row.
    @Test func aRecordJoinedWithItselfFourTimesStaysApart() throws {
        let db = try Connection()
        try Employee.createTable(db)
        var previous: Int64?
        for name in ["ceo", "vp", "lead", "dev"] {
            previous = try Employee(id: nil, name: name, managerId: previous).inserted(db).id
        }
        let chain = Employee.join(Employee.self, on: { $0.managerId == $1.id })
            .join(Employee.self, on: { _, manager, grand in manager.managerId == grand.id })
            .join(Employee.self, on: { _, _, grand, top in grand.managerId == top.id })
        let rows = try chain.fetchAll(db)
        #expect(rows.count == 1)
        #expect(rows.first.map { [$0.0.name, $0.1.name, $0.2.name, $0.3.name] } == ["dev", "lead", "vp", "ceo"])
        // Four distinct qualifiers in the SQL: the table's own name, then three invented aliases.
        let sql = chain.sql
        for alias in ["\"employee_2\"", "\"employee_3\"", "\"employee_4\""] {
            #expect(sql.contains("AS \(alias)"), "\(sql)")
        }
    }

    /// Five tables, with a left join that matches nothing in the middle of the chain.
    @Test func fiveRecordsWithAMissingMiddle() throws {
        let db = try makeBigLibrary()
        let rows = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .leftJoin(Edition.self, on: { book, _, edition in edition.bookId == book.id && edition.pages > 1000 })
            .leftJoin(Publisher.self, on: { _, _, edition, publisher in publisher.id == edition.publisherId })
            .join(Author.self, on: { book, _, _, _, same in same.id == book.authorId })
            .order { book, _, _, _, _ in book.id }
            .fetchAll(db)
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.2 == nil && $0.3 == nil && $0.1 == $0.4 })
    }
}
