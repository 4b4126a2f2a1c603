import Foundation
import StrataTestSupport
import Testing
import StrataORM

struct BookV1: Initializable {
    var id = 0
    var title = ""
    var legacy = ""
}

struct BookV2: Initializable {
    var id = 0
    var title = ""
}

/// A row of an FTS5 index, mapped like any table.
struct BookSearch: Initializable {
    var title = ""
}

@Suite("syncSchema beside virtual tables")
struct SyncSchemaVirtualTableTests {
    private func bookTableV1() -> Table<BookV1> {
        Table<BookV1>(
            name: "book",
            Column(name: "id", keyPath: \BookV1.id, constraints: primaryKey(), notNull()),
            Column(name: "title", keyPath: \BookV1.title, constraints: notNull()),
            Column(name: "legacy", keyPath: \BookV1.legacy, constraints: notNull()))
    }

    private func bookTableV2() -> Table<BookV2> {
        Table<BookV2>(
            name: "book",
            Column(name: "id", keyPath: \BookV2.id, constraints: primaryKey(), notNull()),
            Column(name: "title", keyPath: \BookV2.title, constraints: notNull()))
    }

    private func hits(_ connection: Connection, _ pattern: String) throws -> [Int] {
        try connection.query("SELECT rowid FROM book_fts WHERE book_fts MATCH ? ORDER BY rowid", pattern)
    }

    @Test func rebuildsTheContentTableAndLeavesTheIndexAndItsShadowTablesAlone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("books.sqlite")
        do {
            let storage = try Storage(filename: path, bookTableV1())
            try storage.syncSchema(preserve: true)
            try storage.connection.createFTS5Table(
                "book_fts", columns: ["title"],
                options: FTS5Options(content: .external(table: "book", rowID: "id")))
            try storage.insert(BookV1(id: 0, title: "Swift in depth", legacy: "a"))
            try storage.insert(BookV1(id: 0, title: "SQLite internals", legacy: "b"))
        }
        let storage = try Storage(filename: path, bookTableV2())
        let shadowsBefore: [String] = try storage.connection.query(
            "SELECT sql FROM sqlite_master WHERE name LIKE 'book_fts%' AND type = 'table' ORDER BY name")
        let results = try storage.syncSchema(preserve: true)
        #expect(results == ["book": .oldColumnsRemoved])
        let shadowsAfter: [String] = try storage.connection.query(
            "SELECT sql FROM sqlite_master WHERE name LIKE 'book_fts%' AND type = 'table' ORDER BY name")
        #expect(shadowsAfter == shadowsBefore)
        #expect(shadowsAfter.count == 5) // the index and its four shadow tables (no _content: external)
        // The rebuild kept the ids and the sync triggers, so the index still matches the table.
        #expect(try hits(storage.connection, "sqlite") == [2])
        try storage.insert(BookV2(id: 0, title: "More SQLite"))
        #expect(try hits(storage.connection, "sqlite") == [2, 3])
        // FTS5's own check, against the content table too (rank 1); it throws when they differ.
        try storage.connection.execute("INSERT INTO book_fts(book_fts, rank) VALUES ('integrity-check', 1)")
        #expect(try storage.connection.integrityCheck() == "ok")
        #expect(try storage.syncSchema(preserve: true) == ["book": .alredyInSync])
    }

    @Test func aMappedVirtualTableIsNeverDroppedOrRebuilt() throws {
        let storage = try Storage(filename: ":memory:", Table<BookSearch>(name: "docs", Column(name: "title", keyPath: \BookSearch.title)))
        try storage.connection.createFTS5Table("docs", columns: ["title", "body"])
        try storage.connection.run("INSERT INTO docs(title, body) VALUES ('kept', 'x')")
        #expect(try storage.syncSchema(preserve: false) == ["docs": .alredyInSync])
        let missing = try Storage(filename: ":memory:", Table<BookSearch>(name: "docs", Column(name: "title", keyPath: \BookSearch.title)))
        try missing.connection.createFTS5Table("docs", columns: ["body"])
        #expect(throws: ORMError.self) { try missing.syncSchema(preserve: true) }
        let kept: Int? = try storage.connection.query("SELECT count(*) FROM docs WHERE docs MATCH 'kept'")
        #expect(kept == 1)
    }
}
