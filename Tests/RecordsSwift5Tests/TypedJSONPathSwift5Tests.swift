import Foundation
import StrataSQift
import StrataRecords
import Testing

// API.md section 7's typed JSON paths and single values, as Swift 5 client code writes them.
struct ShelfMetadata: Codable, Equatable { var tags: [String]; var rating: Double? }

@Record(table: "shelf_book") struct ShelfBook: Equatable {
    @PrimaryKey var id: Int64?
    var title: String
    @JSON var metadata: ShelfMetadata
}

@Record(table: "reading_session") struct ReadingSession: Equatable {
    @PrimaryKey var id: Int64?
    var pages: Int
}

@Suite struct TypedJSONPathSwift5Tests {
    @Test func typedJSONPathSpellings() throws {
        let db = try Connection()
        try ShelfBook.createTable(db)
        try ShelfBook.insertAll(
            db,
            [
                ShelfBook(id: nil, title: "Dune", metadata: ShelfMetadata(tags: ["sci-fi", "classic"], rating: 4.5)),
                ShelfBook(id: nil, title: "Emma", metadata: ShelfMetadata(tags: ["classic"], rating: nil))
            ])
        let sciFi = try ShelfBook.where { $0.metadata.json("$.tags", as: [String].self).contains("sci-fi") }.fetchAll(db)
        #expect(sciFi.map(\.title) == ["Dune"])
        let tagged = try ShelfBook.where { $0.metadata.json("$.tags", as: [String].self).count >= 2 }.fetchAll(db)
        #expect(tagged.map(\.title) == ["Dune"])
        let unrated = try ShelfBook.where { $0.metadata.json("$.rating", as: Double.self) == nil }.fetchAll(db)
        #expect(unrated.map(\.title) == ["Emma"])
        #expect(try ShelfBook.where { $0.metadata.json("$.tags", as: [String].self).isEmpty }.fetchCount(db) == 0)
        let counts: [Int?] = try ShelfBook.select { $0.metadata.json("$.tags", as: [String].self).count }
            .order { $0.metadata.json("$.rating", as: Double.self).descending }.fetchAll(db)
        #expect(counts == [2, 1])
    }

    @Test func fetchValueSpelling() throws {
        let db = try Connection()
        try ReadingSession.createTable(db)
        let empty: Int? = try ReadingSession.select { $0.pages.sum() }.fetchValue(db)
        #expect(empty == nil)
        try ReadingSession.insertAll(db, [ReadingSession(id: nil, pages: 10), ReadingSession(id: nil, pages: 32)])
        let total: Int? = try ReadingSession.select { $0.pages.sum() }.fetchValue(db)
        #expect(total == 42)
    }
}
