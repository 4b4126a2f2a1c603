import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

private typealias SAuthor = TypedSQLShelf.Author
private typealias SBook = TypedSQLShelf.Book
private typealias SAuditEntry = TypedSQLShelf.AuditEntry
private typealias SAuthorTotal = TypedSQLShelf.AuthorTotal

/// The book table, changed so that `RecordSchema` must rebuild it (a new UNIQUE title).
enum SurvivalShelf {
    @Record(table: "ts_book") struct Book: Equatable {
        @PrimaryKey var id: Int64?; var authorId: Int64; @Unique var title: String; var year: Int; var price: Double?
    }
}

/// Views and triggers built from typed queries are schema like any other: they survive
/// `RecordSchema.migrate`'s rebuild, the kernel's table rebuild (the DSL's), and dump/restore.
@Suite struct TypedSchemaSurvivalTests {
    /// A literal of every awkward kind in a trigger body: quotes, NUL, a keyword.
    private static let action = "it's \"new\"\0; END; --"

    private func makeDB() throws -> Connection {
        let db = try connection(withTablesOf: SAuthor.self, SBook.self, SAuditEntry.self)
        return try populate(db)
    }

    /// The author, the typed view and trigger, and one book, over the tables.
    private func populate(_ db: Connection) throws -> Connection {
        _ = try SAuthor(id: nil, name: "Le Guin", bookCount: 0).inserted(db)
        try SAuthorTotal.createView(db)
        try SBook.afterInsert(named: "count_books") { new in
            SAuthor.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
            SAuditEntry.insert {
                $0.bookId.set(to: new.id); $0.action.set(to: Self.action); $0.title = new.title
            }
        }.create(db)
        _ = try SBook(id: nil, authorId: 1, title: "Lavinia", year: 2008, price: nil).inserted(db)
        return db
    }

    private func expectSurvived(_ db: Connection) throws {
        let names: [String] = try db.query("SELECT name FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY name")
        #expect(names == ["author_totals", "count_books"])
        _ = try SBook(id: nil, authorId: 1, title: "Tehanu", year: 1990, price: 2).inserted(db)
        #expect(try SAuthor.fetchOne(db, id: 1)?.bookCount == 2)
        #expect(try SAuditEntry.fetchAll(db).map(\.action) == [Self.action, Self.action])
        #expect(try SAuthorTotal.fetchAll(db) == [SAuthorTotal(authorId: 1, books: 2)])
    }

    @Test func recordSchemaMigrateRebuild() throws {
        let db = try makeDB()
        let schema = RecordSchema(SurvivalShelf.Book.self)
        #expect(try !schema.plan(for: db).isEmpty)
        try schema.migrate(db)
        #expect(try schema.plan(for: db).isEmpty)
        try expectSurvived(db)
    }

    @Test func kernelTableRebuild() throws {
        let db = try makeDB()
        try db.rebuildTable(
            named: "ts_book",
            definition: #""id" INTEGER PRIMARY KEY, "authorId" INTEGER NOT NULL, "title" TEXT NOT NULL, "year" INTEGER NOT NULL, "price" REAL, "note" TEXT"#,
            copying: ["id", "authorId", "title", "year", "price"].map { (column: $0, expression: "\"\($0)\"") })
        try expectSurvived(db)
    }

    @Test func schemaDSLRebuild() throws {
        let schema = Schema(identifier: "typed-sql") { schema in
            schema.version(1) { v1 in
                v1.createTable("ts_author") { t in
                    t.primaryKey("id")
                    t.column("name", type: .Text, constraints: ["NOT NULL"])
                    t.column("bookCount", type: .Integer, constraints: ["NOT NULL"])
                }
                v1.createTable("ts_book") { t in
                    t.primaryKey("id")
                    t.column("authorId", type: .Integer, constraints: ["NOT NULL"])
                    t.column("title", type: .Text, constraints: ["NOT NULL"])
                    t.column("year", type: .Integer, constraints: ["NOT NULL"])
                    t.column("price", type: .Real)
                    t.column("note", type: .Text)
                }
                v1.createTable("audit") { t in
                    t.primaryKey("id")
                    t.column("bookId", type: .Integer, constraints: ["NOT NULL"])
                    t.column("action", type: .Text, constraints: ["NOT NULL"])
                    t.column("title", type: .Text, constraints: ["NOT NULL"])
                }
            }
            schema.version(2) { v2 in v2.alterTable("ts_book") { t in t.dropColumn("note") } } // the twelve steps
        }
        let db = try Connection()
        try schema.migrate(db, toVersion: 1)
        _ = try populate(db)
        try schema.migrate(db, toVersion: 2)
        try expectSurvived(db)
    }

    @Test func dumpAndRestore() throws {
        let db = try makeDB()
        var text = ""
        try db.dump(to: &text)
        let copy = try Connection()
        try copy.restore(fromDump: text)
        #expect(try SAuditEntry.fetchAll(copy).map(\.action) == [Self.action])
        try expectSurvived(copy)
    }
}
