import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct InsertAllTests {
    @Test func insertsInOrderAndReturnsRowIDs() throws {
        let db = try makeLibrary()
        let ids: [Int64] = try Book.insertAll(
            db,
            [
                Book(id: nil, authorId: 1, title: "A", year: 1, price: nil),
                Book(id: 10, authorId: 2, title: "B", year: 2, price: 1.5)
            ])
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
