// Counters on records: `update(db) { $0.visits += 1 }` runs one UPDATE computed by SQLite from
// the stored value, on a real database file.
import Foundation
import StrataSQift
import StrataRecords
import StrataTestSupport
import Testing

enum CounterShelf {
    @Record(table: "bookmark") struct Bookmark: Equatable {
        @PrimaryKey var id: Int64?
        var url: String
        @Default(0) var visits: Int
        var rating: Double?
    }
}

@Suite struct RecordCounterTests {
    typealias Bookmark = CounterShelf.Bookmark

    func bookmarks(in directory: TemporaryDirectory) throws -> Connection {
        let db = try Connection(storageLocation: .onDisk(directory.path("bookmarks.sqlite")))
        try Bookmark.createTable(db)
        try Bookmark.insertAll(
            db,
            [
                Bookmark(id: nil, url: "https://swift.org", visits: 0, rating: nil),
                Bookmark(id: nil, url: "https://sqlite.org", visits: 5, rating: 4.5),
                Bookmark(id: nil, url: "https://example.com", visits: 1, rating: nil)
            ])
        return db
    }

    @Test func aCounterGoesUpInOneUpdateAndReturnsTheRowsChanged() throws {
        let directory = try TemporaryDirectory()
        let db = try bookmarks(in: directory)
        #expect(try Bookmark.where { $0.url == "https://swift.org" }.update(db) { $0.visits += 1 } == 1)
        #expect(try Bookmark.where { $0.url == "https://swift.org" }.update(db) { $0.visits += 1 } == 1)
        #expect(try Bookmark.where { $0.visits >= 1 }.update(db) { $0.visits -= 1 } == 3)
        #expect(try Bookmark.all().order(by: \.id).fetchAll(db).map(\.visits) == [1, 4, 0])
        // Several columns at once, an optional one too (NULL stays NULL, as in SQL).
        let changed = try Bookmark.where { $0.id == 2 }.update(db) {
            $0.visits += 10
            $0.rating += 0.5
        }
        #expect(changed == 1)
        #expect(try Bookmark.fetchOne(db, id: 2) == Bookmark(id: 2, url: "https://sqlite.org", visits: 14, rating: 5.0))
        #expect(try Bookmark.where { $0.id == 1 }.update(db) { $0.rating += 1 } == 1)
        #expect(try Bookmark.fetchOne(db, id: 1)?.rating == nil)
        // Nothing matched: nothing changed.
        #expect(try Bookmark.where { $0.url == "nowhere" }.update(db) { $0.visits += 1 } == 0)
        // Every row, from the record type.
        #expect(try Bookmark.update(db) { $0.visits.set(to: 0) } == 3)
        #expect(try Bookmark.all().fetchAll(db).map(\.visits) == [0, 0, 0])
    }

    @Test func theValueIsBoundAndTheStatementIsOneUpdate() throws {
        let statement = Bookmark.where { $0.id == 7 }.update { $0.visits += 1 }
        #expect(statement.sql == #"UPDATE "bookmark" SET "visits" = "bookmark"."visits" + ? WHERE "bookmark"."id" = ?"#)
        #expect(statement.arguments == [.integer(1), .integer(7)])
    }

    @Test func anUpdateThatAssignsNothingOrIsLimitedIsRefused() throws {
        let directory = try TemporaryDirectory()
        let db = try bookmarks(in: directory)
        #expect(throws: RecordQueryError.self) { try Bookmark.where { $0.id == 1 }.update(db) { _ in } }
        #expect(throws: RecordQueryError.self) { try Bookmark.limit(1).update(db) { $0.visits += 1 } }
        #expect(try Bookmark.all().order(by: \.id).fetchAll(db).map(\.visits) == [0, 5, 1])
    }
}
