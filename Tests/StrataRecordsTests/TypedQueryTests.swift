import Foundation
import Testing
import StrataRecords

@Record struct Publisher: Equatable { @PrimaryKey var id: Int64?; var name: String }
@Record(table: "edition") struct Edition: Equatable {
    @PrimaryKey var id: Int64?; var bookId: Int64; var publisherId: Int64?; var pages: Int
}
@Record struct Employee: Equatable { @PrimaryKey var id: Int64?; var name: String; var managerId: Int64? }

extension Author { static let books = hasMany(Book.self, using: \.authorId) }
extension Book {
    static let author = belongsTo(Author.self, using: \.authorId)
    static let edition = hasOne(Edition.self, using: \.bookId)
}
extension Employee { static let manager = belongsTo(Employee.self, using: \.managerId) }

/// The library of `makeLibrary()`, plus an author without books, publishers and editions.
func makeBigLibrary() throws -> Connection {
    let db = try makeLibrary()
    try db.run(literal: "INSERT INTO author(name, country) VALUES (\("Perec"), \("FR"))")   // id 3, no books
    try Publisher.createTable(db)
    try Edition.createTable(db)
    try Publisher.insertAll(db, [Publisher(id: nil, name: "Ace"), Publisher(id: nil, name: "Gallimard")])
    try Edition.insertAll(db, [Edition(id: nil, bookId: 1, publisherId: 1, pages: 387), Edition(id: nil, bookId: 2, publisherId: 2, pages: 250),
                               Edition(id: nil, bookId: 3, publisherId: nil, pages: 279)])
    return db
}

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
        #expect(query.sql == #"SELECT "book"."id", "book"."authorId", "book"."title", "book"."year", "book"."price", "author"."id", "author"."name", "author"."country" FROM "book" JOIN "author" ON "book"."authorId" = "author"."id" WHERE ("author"."country" = ?) AND ("book"."year" >= ?) ORDER BY "author"."name" ASC, "book"."year" DESC LIMIT ?"#)
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
        let e = try Edition.join(Publisher.self, on: { $0.publisherId == $1.id }).fetchCount(db)   // both optional
        let counts: [Int] = [a, b, c, d, e]
        #expect(counts == [3, 3, 6, 5, 2])
    }

    @Test func aSelfJoinThroughAnAlias() throws {
        let db = try Connection()
        try Employee.createTable(db)
        try Employee.insertAll(db, [Employee(id: nil, name: "Boss", managerId: nil), Employee(id: nil, name: "Ann", managerId: 1),
                                    Employee(id: nil, name: "Bob", managerId: 2)])
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database(storageLocation: .onDisk(directory.appendingPathComponent("lib.sqlite").path))
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
        let sums = try Book.select { ($0.year.sum(), $0.price.sum(), $0.year.average(), $0.price.average(), $0.authorId.count(distinct: true), $0.price.count()) }.fetchOne(db)
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
        #expect(query.sql == #"SELECT "author"."id", "author"."name", "author"."country" FROM "author" WHERE EXISTS (SELECT 1 FROM "book" WHERE ("book"."authorId" = "author"."id") AND ("book"."year" > ?))"#)
        #expect(query.arguments == [.integer(1960)])
        // The reverse direction of optionality, and a subquery in a join.
        let books = try Book.where { $0.authorId.in(Author.where { $0.country == "FR" }.select(\.id)) }.fetchAll(db)
        #expect(books.map(\.title) == ["L'Écume des jours"])
        let joined = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .where { book, _ in book.id.in(Edition.where { $0.pages > 260 }.select(\.bookId)) }.fetchCount(db)
        #expect(joined == 2)
    }
}

@Suite struct AssociationTests {
    @Test func apiSpellingsOfAssociations() throws {
        let db = try makeBigLibrary()
        let shelves: [(Author, [Book])] = try Author.including(all: Author.books).order(by: \.name).fetchAll(db)
        #expect(shelves.map(\.0.name) == ["Le Guin", "Perec", "Vian"])
        #expect(shelves.map { $0.1.map(\.title) } == [["The Dispossessed", "Lavinia"], [], ["L'Écume des jours"]])
        let credited: [(Book, Author)] = try Book.including(required: Book.author).fetchAll(db)
        #expect(credited.map(\.1.name) == ["Le Guin", "Vian", "Le Guin"])
        try Book.insertAll(db, [Book(id: nil, authorId: 42, title: "Orphan", year: 2000, price: nil)])
        let maybe: [(Book, Author?)] = try Book.including(optional: Book.author).fetchAll(db)
        #expect(maybe.map { $0.1?.name } == ["Le Guin", "Vian", "Le Guin", nil])
        #expect(try Book.including(required: Book.author).fetchCount(db) == 3)
        let editions = try Book.including(optional: Book.edition).order { book, _ in book.id }.fetchAll(db)
        #expect(editions.map { $0.1?.pages } == [387, 250, 279, nil])
        let one = try Author.including(all: Author.books).where { $0.country == "FR" }.order { $0.name.descending }.fetchOne(db)
        #expect(one?.0.name == "Vian")
        #expect(one?.1.count == 1)
    }

    @Test func includingAllRunsTwoStatementsForAHundredParents() throws {
        let db = try Connection()
        try Author.createTable(db)
        try Book.createTable(db)
        let ids = try Author.insertAll(db, (0..<100).map { Author(id: nil, name: "A\($0)", country: $0 % 2 == 0 ? "FR" : "US") })
        try Book.insertAll(db, ids.flatMap { id in (0..<3).map { Book(id: nil, authorId: id, title: "B\(id)-\($0)", year: 2000 + $0, price: nil) } })
        let statements = StatementLog()
        db.trace { statements.append($0) }
        let shelves = try Author.including(all: Author.books).where { $0.country == "FR" }.limit(40, offset: 5).fetchAll(db)
        db.trace(nil)
        #expect(statements.count == 2)
        #expect(shelves.count == 40)
        #expect(shelves.allSatisfy { author, books in books.count == 3 && books.allSatisfy { $0.authorId == author.id } })
        #expect(shelves.first?.0.name == "A10")
        statements.clear()
        db.trace { statements.append($0) }
        let all = try Author.including(all: Author.books).fetchAll(db)
        db.trace(nil)
        #expect(statements.count == 2)
        #expect(all.count == 100)
        #expect(all.reduce(0) { $0 + $1.1.count } == 300)
    }
}

/// Statements seen by a trace hook.
final class StatementLog: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var statements: [String] = []
    func append(_ statement: String) { lock.withLock { statements.append(statement) } }
    func clear() { lock.withLock { statements.removeAll() } }
    var count: Int { lock.withLock { statements.count } }
    var all: [String] { lock.withLock { statements } }
}

@Suite struct InsertAllTests {
    @Test func insertsInOrderAndReturnsRowIDs() throws {
        let db = try makeLibrary()
        let ids: [Int64] = try Book.insertAll(db, [Book(id: nil, authorId: 1, title: "A", year: 1, price: nil),
                                                   Book(id: 10, authorId: 2, title: "B", year: 2, price: 1.5)])
        #expect(ids == [4, 10])
        #expect(try Book.fetchOne(db, id: 10)?.title == "B")
        #expect(try Book.insertAll(db, []).isEmpty)
    }

    @Test func rollsBackWholeOnAFailingRow() throws {
        let db = try makeLibrary()
        let rows = [Book(id: nil, authorId: 1, title: "A", year: 1, price: nil), Book(id: 1, authorId: 2, title: "dup", year: 2, price: nil)]
        #expect(throws: SQLiteError.self) { try Book.insertAll(db, rows) }
        #expect(try Book.fetchCount(db) == 3)
        #expect(!db.isInTransaction)
        // Inside an open transaction: a savepoint, so the outer transaction's work stays.
        try db.transaction {
            try db.run(literal: "INSERT INTO author(name, country) VALUES (\("Kept"), \("DE"))")
            #expect(throws: SQLiteError.self) { try Book.insertAll(db, rows) }
            #expect(db.isInTransaction)
        }
        #expect(try Author.where { $0.name == "Kept" }.fetchCount(db) == 1)
        #expect(try Book.fetchCount(db) == 3)
    }

    @Test func oneStatementReused() throws {
        let db = try Connection()
        try Book.createTable(db)
        let log = StatementLog()
        db.trace { log.append($0) }
        try Book.insertAll(db, (0..<50).map { Book(id: nil, authorId: 1, title: "t\($0)", year: $0, price: nil) })
        db.trace(nil)
        #expect(log.count == 50)
        #expect(Set(log.all.map { $0.prefix(11) }) == ["INSERT INTO"])
    }
}

/// Property names that are also names the generated columns use (`qualifier`, `record`,
/// `columns`, `fragment`): the generated code must still compile and run.
@Record struct Oddity: Equatable { @PrimaryKey var id: Int64?; var qualifier: String; var record: String; var columns: Int; var fragment: Int? }

@Suite struct GeneratedNameTests {
    @Test func propertiesNamedLikeGeneratedMembers() throws {
        let db = try Connection()
        try Oddity.createTable(db)
        try Oddity.insertAll(db, [Oddity(id: nil, qualifier: "q", record: "r", columns: 3, fragment: nil)])
        let found = try Oddity.where { $0.qualifier == "q" && $0.columns > 2 }.join(Oddity.self, on: { $0.id == $1.id }).fetchAll(db)
        #expect(found.map(\.1.record) == ["r"])
    }
}

@Suite struct TypedQueryObservationTests {
    /// An observation of a join learns both tables: a commit to either refetches it, a commit to a
    /// third table does not.
    @Test func aJoinIsRefetchedAfterACommitToEitherTable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("join-observed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database(storageLocation: .onDisk(directory.appendingPathComponent("db.sqlite").path))
        try await database.write { db in
            try Author.createTable(db)
            try Book.createTable(db)
            try Publisher.createTable(db)
            try Author.insertAll(db, [Author(id: nil, name: "Vian", country: "FR")])
        }
        let fetches = Delivered()
        let delivered = Delivered()
        let token = database.observe({ db -> Int in
            fetches.append(fetches.values.count + 1)
            return try Book.join(Author.self, on: { $0.authorId == $1.id }).where { _, author in author.country == "FR" }.fetchCount(db)
        }, onChange: { result in
            if case .success(let count) = result { delivered.append(count) }
        })
        defer { token.cancel() }
        await delivered.waitForLast(0)
        _ = try await database.write { try Book.insertAll($0, [Book(id: nil, authorId: 1, title: "Vercoquin", year: 1947, price: nil)]) }
        await delivered.waitForLast(1)
        try await database.write { try $0.run(literal: "UPDATE author SET country = \("BE")") }
        await delivered.waitForLast(0)
        let before = fetches.values.count
        _ = try await database.write { try Publisher.insertAll($0, [Publisher(id: nil, name: "Pauvert")]) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(fetches.values.count == before)
        #expect(delivered.values == [0, 1, 0])
    }
}

@Suite struct TypedQueryErrorTests {
    @Test func aMissingColumnNamesTheRecordAndTheColumn() throws {
        let db = try Connection()
        try Author.createTable(db)
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER, title TEXT, year INTEGER)")   // no price
        try db.execute("INSERT INTO author(name, country) VALUES ('Vian', 'FR')")
        for run in [{ _ = try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchAll(db) },
                    { _ = try Book.where { $0.year > 1 }.fetchAll(db) },
                    { _ = try Book.select { $0.price.max() }.fetchAll(db) },
                    { _ = try Author.including(all: Author.books).fetchAll(db) }] {
            do {
                try run()
                Issue.record("expected an error")
            } catch let error as SQLiteError {
                #expect(error.message.contains("price"))
                #expect(error.message.contains("Book"))
            }
        }
    }
}
