import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct JoinTests {
    @Test func apiSpellingsOfJoins() throws {
        let db = try makeBigLibrary()
        let query = Book.join(Author.self, on: { book, author in book.authorId == author.id })
            .where { book, author in author.country == "US" && book.year >= 2000 }
            .order { _, author in author.name }
            .order { book, _ in book.year.descending }
            .limit(10, offset: 0)
        let pairs: [(Book, Author)] = try query.fetchAll(db)
        #expect(pairs.map(\.0.title) == ["Lavinia"])
        #expect(pairs.map(\.1.name) == ["Le Guin"])
        #expect(
            query.sql
                == #"SELECT "book"."id", "book"."authorId", "book"."title", "book"."year", "book"."price", "author"."id", "author"."name", "author"."country" FROM "book" JOIN "author" ON "book"."authorId" = "author"."id" WHERE ("author"."country" = ?) AND ("book"."year" >= ?) ORDER BY "author"."name" ASC, "book"."year" DESC LIMIT ?"#
        )
        #expect(query.arguments == [.text("US"), .integer(2000), .integer(10)])
        #expect(try query.fetchCount(db) == 1)
        let first = try Book.join(Author.self, on: { $0.authorId == $1.id }).order { book, _ in book.year }.fetchOne(db)
        #expect(first?.0.title == "L'Écume des jours")
        #expect(first?.1.name == "Vian")
        #expect(try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchCount(db) == 3)
    }

    @Test func leftJoinGivesNilWhereNothingMatched() throws {
        let db = try makeBigLibrary()
        let all: [(Author, Book?)] = try Author.leftJoin(Book.self, on: { author, book in book.authorId == author.id })
            .order { author, _ in author.id }.order { _, book in book.year }
            .fetchAll(db)
        #expect(all.map(\.0.name) == ["Le Guin", "Le Guin", "Vian", "Perec"])
        #expect(all.map { $0.1?.title } == ["The Dispossessed", "Lavinia", "L'Écume des jours", nil])
    }

    @Test func columnsCompareAcrossOptionality() throws {
        let db = try makeBigLibrary()
        // Int64? against Int64, Int64 against Int64?, and ordering comparisons between columns.
        let a = try Author.join(Book.self, on: { $0.id == $1.authorId }).fetchCount(db)
        let b = try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchCount(db)
        let c = try Book.join(Author.self, on: { $0.authorId != $1.id }).fetchCount(db)
        let d = try Book.join(Author.self, on: { $0.authorId < $1.id }).fetchCount(db)
        let e = try Edition.join(Publisher.self, on: { $0.publisherId == $1.id }).fetchCount(db) // both optional
        let counts: [Int] = [a, b, c, d, e]
        #expect(counts == [3, 3, 6, 5, 2])
    }

    @Test func aSelfJoinThroughAnAlias() throws {
        let db = try Connection()
        try Employee.createTable(db)
        try Employee.insertAll(
            db,
            [
                Employee(id: nil, name: "Boss", managerId: nil), Employee(id: nil, name: "Ann", managerId: 1),
                Employee(id: nil, name: "Bob", managerId: 2)
            ])
        let query = Employee.join(Employee.self, as: "manager", on: { employee, manager in employee.managerId == manager.id })
            .order { employee, _ in employee.name }
        #expect(query.sql.contains(#"FROM "employee" JOIN "employee" AS "manager" ON "employee"."managerId" = "manager"."id""#))
        let pairs = try query.fetchAll(db)
        #expect(pairs.map { "\($0.0.name)<\($0.1.name)" } == ["Ann<Boss", "Bob<Ann"])
        // Without an alias, the second occurrence gets one of its own.
        let unnamed = try Employee.leftJoin(Employee.self, on: { $0.managerId == $1.id }).order { e, _ in e.id }.fetchAll(db)
        #expect(unnamed.map { $0.1?.name } == [nil, "Boss", "Ann"])
        // The association does the same.
        let managed = try Employee.including(optional: Employee.manager).order { e, _ in e.id }.fetchAll(db)
        #expect(managed.map { $0.1?.name } == [nil, "Boss", "Ann"])
    }

    @Test func threeTables() throws {
        let db = try makeBigLibrary()
        let rows: [(Book, Edition, Publisher?)] = try Book.join(Edition.self, on: { book, edition in edition.bookId == book.id })
            .leftJoin(Publisher.self, on: { _, edition, publisher in edition.publisherId == publisher.id })
            .where { book, _, _ in book.year > 1950 }
            .order { book, _, _ in book.year }
            .fetchAll(db)
        #expect(rows.map(\.0.title) == ["The Dispossessed", "Lavinia"])
        #expect(rows.map(\.1.pages) == [387, 279])
        #expect(rows.map { $0.2?.name } == ["Ace", nil])
        let inner = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .join(Edition.self, on: { book, _, edition in edition.bookId == book.id })
            .where { _, author, _ in author.country == "FR" }
            .fetchAll(db)
        #expect(inner.map { "\($0.0.title)/\($0.1.name)/\($0.2.pages)" } == ["L'Écume des jours/Vian/250"])
        let pages = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .join(Edition.self, on: { book, _, edition in edition.bookId == book.id })
            .group { _, author, _ in author.name }
            .select { _, author, edition in (author.name, edition.pages.sum()) }
            .order { _, author, _ in author.name }
            .fetchAll(db)
        #expect(pages.map(\.0) == ["Le Guin", "Vian"])
        #expect(pages.map(\.1) == [666, 250])
    }

    @Test func hostileStringsStayBoundInEveryPosition() throws {
        let db = try makeBigLibrary()
        let hostile = "x'); DROP TABLE book; --"
        #expect(try Book.join(Author.self, on: { $0.authorId == $1.id }).where { $1.name == hostile || $0.title.like(hostile) }.fetchAll(db).isEmpty)
        #expect(try Book.group(by: \.authorId).having { $0.title.max() == hostile }.select(\.authorId).fetchAll(db).isEmpty)
        #expect(try Author.where { $0.id.in(Book.where { $0.title == hostile }.select(\.authorId)) }.fetchAll(db).isEmpty)
        #expect(try Author.where { a in Book.where { $0.authorId == a.id && $0.title == hostile }.exists() }.fetchAll(db).isEmpty)
        let stored = try Book.insertAll(db, [Book(id: nil, authorId: 1, title: hostile, year: 1, price: nil)])
        #expect(try Book.join(Author.self, on: { $0.authorId == $1.id }).where { b, _ in b.title == hostile }.fetchOne(db)?.0.id == stored.first)
        #expect(try Book.fetchCount(db) == 4)
    }

    @Test func aJoinOnADatabaseAndInTheAsyncAPI() async throws {
        let fixture = try onDiskDatabase(named: "lib.sqlite")
        let database = fixture.database
        try await database.write { db in
            try Author.createTable(db)
            try Book.createTable(db)
            try Author.insertAll(db, [Author(id: nil, name: "Vian", country: "FR")])
            try Book.insertAll(db, [Book(id: nil, authorId: 1, title: "L'Arrache-cœur", year: 1953, price: nil)])
        }
        let synchronous = try await database.read { try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchAll($0) }
        #expect(synchronous.map(\.1.name) == ["Vian"])
        let counts: [(String, Int)] = try await database.read { db in
            try Book.join(Author.self, on: { $0.authorId == $1.id })
                .group { _, author in author.country }
                .select { book, author in (author.country, book.id.count()) }
                .fetchAll(db)
        }
        #expect(counts.map(\.0) == ["FR"])
        #expect(counts.map(\.1) == [1])
    }
}
