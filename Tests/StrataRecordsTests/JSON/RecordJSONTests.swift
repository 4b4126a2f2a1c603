import Foundation
import StrataSQift
import Testing
import StrataRecords

@Record struct Article: Equatable {
    @PrimaryKey var id: Int64?; var title: String
    @JSON var tags: [String] // any Codable property, stored as JSON text SQLite's json functions read
    @JSON var meta: [String: Int]?
}

struct Shelf: Codable, Equatable {
    struct Slot: Codable, Equatable { var position: Int; var label: String?; var sizes: [Double] }
    var name: String
    var slots: [Slot]
    var owners: [String: [Int]]
}

@Record struct Cabinet: Equatable {
    @PrimaryKey var id: Int64?
    @JSON var shelf: Shelf
    @JSON var spare: Shelf?
}

@Suite struct RecordJSONTests {
    func articles() throws -> Connection {
        try connection(holding: [
            Article(id: nil, title: "Swift on servers", tags: ["swift", "server"], meta: ["pages": 120, "year": 2024]),
            Article(id: nil, title: "SQLite inside", tags: ["sqlite"], meta: ["pages": 80]),
            Article(id: nil, title: "Untagged", tags: [], meta: nil)
        ])
    }

    @Test func storedAsJSONTextThatSQLiteReads() throws {
        let db = try articles()
        #expect(try db.query("SELECT tags FROM article WHERE id = 1") as String? == #"["swift","server"]"#)
        #expect(try db.query("SELECT meta FROM article WHERE id = 1") as String? == #"{"pages":120,"year":2024}"#)
        #expect(try db.query("SELECT json_extract(meta, '$.pages') FROM article WHERE id = 2") as Int? == 80)
        #expect(try db.query("SELECT meta IS NULL FROM article WHERE id = 3") as Bool? == true)
        let all = try Article.order(by: \.id).fetchAll(db)
        #expect(all.map(\.tags) == [["swift", "server"], ["sqlite"], []])
        #expect(all.map(\.meta) == [["pages": 120, "year": 2024], ["pages": 80], nil])
        var edited = all[2]
        edited.meta = ["pages": 3]
        edited.tags.append("new")
        try edited.update(db)
        #expect(try Article.fetchOne(db, id: 3) == edited)
    }

    @Test func nestedCodableValuesRoundTrip() throws {
        let db = try Connection()
        try Cabinet.createTable(db)
        let shelf = Shelf(
            name: "top ✓ 日本", slots: [.init(position: 1, label: nil, sizes: [1.5, 2]), .init(position: 2, label: "é", sizes: [])],
            owners: ["ann": [1, 2], "bob": []])
        var cabinet = Cabinet(id: nil, shelf: shelf, spare: nil)
        try cabinet.insert(db)
        #expect(try Cabinet.fetchOne(db, id: cabinet.id ?? 0) == cabinet)
        cabinet.spare = shelf
        try cabinet.save(db)
        #expect(try Cabinet.fetchAll(db) == [cabinet])
        // JSON in a blob reads too.
        try db.execute("UPDATE cabinet SET shelf = CAST(shelf AS BLOB)")
        #expect(try Cabinet.fetchAll(db) == [cabinet])
    }

    @Test func invalidJSONNamesTheRecordAndTheProperty() throws {
        let db = try articles()
        try db.execute(#"UPDATE article SET tags = '{"not": "an array"}' WHERE id = 2"#)
        do {
            _ = try Article.fetchAll(db)
            Issue.record("expected an error")
        } catch let error as RecordError {
            guard case .invalidJSON(let column, let record, _) = error else { Issue.record("\(error)"); return }
            #expect(column == "tags")
            #expect(record == "Article")
            #expect(error.description.contains("tags") && error.description.contains("Article"))
        }
        try db.execute("UPDATE article SET tags = 'not json' WHERE id = 2")
        #expect(throws: RecordError.self) { _ = try Article.fetchOne(db, id: 2) }
        // A number (stored as text by the column's TEXT affinity) is JSON, but not an array.
        try db.execute("UPDATE article SET tags = 42 WHERE id = 2")
        #expect(throws: RecordError.invalidJSON(column: "tags", record: "Article", reason: "expected Array<Any>")) {
            _ = try Article.fetchOne(db, id: 2)
        }
    }

    @Test func typedJSONQueries() throws {
        let db = try articles()
        let long = try Article.where { $0.meta.json("$.pages", as: Int.self) > 100 }.fetchAll(db)
        #expect(long.map(\.title) == ["Swift on servers"])
        let tagged = try Article.where { $0.tags.contains("swift") }.fetchAll(db)
        #expect(tagged.map(\.title) == ["Swift on servers"])
        #expect(try Article.where { $0.tags.contains("x' OR 1=1 --") }.fetchCount(db) == 0)
        #expect(try Article.where { !$0.tags.contains("sqlite") }.fetchCount(db) == 2)
        // JSON columns in select and order.
        let picked: [(String, [String], [String: Int]?)] = try Article.select { ($0.title, $0.tags, $0.meta) }
            .order { $0.meta.json("$.pages", as: Int.self).descending }.fetchAll(db)
        #expect(picked.map(\.0) == ["Swift on servers", "SQLite inside", "Untagged"])
        #expect(picked.map(\.1) == [["swift", "server"], ["sqlite"], []])
        #expect(picked.map(\.2) == [["pages": 120, "year": 2024], ["pages": 80], nil])
        let pages: [Int?] = try Article.select { $0.meta.json("$.pages", as: Int.self) }.order(by: \.id).fetchAll(db)
        #expect(pages == [120, 80, nil])
        #expect(try Article.where { $0.tags == ["sqlite"] }.fetchCount(db) == 1)
        #expect(try Article.where { $0.meta == nil }.fetchCount(db) == 1)
    }

    @Test func observationRegionsCoverJSONColumns() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try await database.write { try Article.createTable($0) }
        let delivered = Delivered()
        let token = database.observe(
            { try Article.where { $0.tags.contains("swift") }.fetchCount($0) },
            onChange: { result in
                if case .success(let count) = result { delivered.append(count) }
            })
        defer { token.cancel() }
        await delivered.waitForLast(0)
        _ = try await database.write { try Article(id: nil, title: "t", tags: ["swift"], meta: nil).inserted($0) }
        await delivered.waitForLast(1)
        try await database.write { try $0.run(literal: "UPDATE article SET tags = \(#"["objc"]"#)") }
        await delivered.waitForLast(0)
    }
}
