import Foundation
import StrataSQift
import Testing
import StrataRecords

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
        let db = try connection(withTablesOf: Author.self, Book.self)
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
