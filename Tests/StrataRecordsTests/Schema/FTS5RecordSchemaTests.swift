// `RecordSchema` and FTS5 records: an `FTS5Record` is planned, migrated and frozen as the FTS5
// virtual table its `createTable` makes (triggers and the fill from its content table
// included), so a frozen v2 migration still searches; what cannot be planned is refused by name.
import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing
@testable import StrataRecords

enum SearchShelf {
    @Record(table: "folder") struct Folder: Equatable {
        @PrimaryKey var id: Int64?
        var name: String
    }

    @Record(table: "bookmark") struct Bookmark: Equatable {
        @PrimaryKey var id: Int64?
        @References(Folder.self) var folderId: Int64
        var title: String
        var url: String
    }

    /// The index over `bookmark`, kept in sync by triggers.
    @Record(table: "bookmark_fts") struct BookmarkText: FTS5Record, Equatable {
        static let fts5Options = FTS5Options(content: .external(table: "bookmark", rowID: "id"))
        @PrimaryKey @Column("rowid") var id: Int64?
        var title: String
        var url: String
    }

    /// Text kept in the index itself, FTS5's default options.
    @Record(table: "note_fts") struct NoteText: FTS5Record, Equatable {
        @PrimaryKey @Column("rowid") var id: Int64?
        var body: String
    }

    /// A synced table keyed by text, and its keyed index.
    @Record(table: "tag") struct Tag: Equatable {
        @PrimaryKey var id: String
        var label: String
    }

    @Record(table: "tag_fts") struct TagText: FTS5Record, Equatable {
        static let fts5Options = FTS5Options(content: .externalByKey(table: "tag", key: "id"))
        @PrimaryKey @Column("rowid") var id: Int64?
        var label: String
    }

    /// An FTS5 record's shape that does not say it is one.
    @Record(table: "stray_fts") struct StrayText: Equatable {
        @PrimaryKey @Column("rowid") var id: Int64?
        var body: String
    }
}

@Suite struct FTS5RecordSchemaTests {
    typealias Folder = SearchShelf.Folder
    typealias Bookmark = SearchShelf.Bookmark
    typealias BookmarkText = SearchShelf.BookmarkText

    static let v1 = RecordSchema(Folder.self, Bookmark.self)
    static let v2 = RecordSchema(Folder.self, BookmarkText.self, Bookmark.self)

    /// The issue's app: v1 froze folders and bookmarks; v2 adds search. The frozen v2, applied
    /// by `DatabaseMigrator` to a fresh file, creates the FTS5 table, fills it from the rows v1
    /// left, and keeps it in sync.
    @Test func aFrozenV2MigrationSearches() throws {
        let planning = try Connection()
        let frozenV1 = try #require(FrozenMigrationTests.frozenSQL(try Self.v1.plan(for: planning).frozenMigration("v1")))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", sql: frozenV1)
        try migrator.migrate(planning)

        let plan = try Self.v2.plan(for: planning)
        #expect(plan.steps.map(\.kind) == [.createTable])
        #expect(plan.steps.map(\.table) == ["bookmark_fts"])
        #expect(plan.sql.first?.hasPrefix(#"CREATE VIRTUAL TABLE "bookmark_fts" USING "fts5"("#) == true)
        #expect(!plan.sql.contains { $0.contains(#"CREATE TABLE "bookmark_fts""#) })
        #expect(plan.sql.filter { $0.hasPrefix("CREATE TRIGGER") }.count == 3)
        let frozenV2 = try #require(FrozenMigrationTests.frozenSQL(plan.frozenMigration("v2")))

        let directory = try TemporaryDirectory()
        let db = try Connection(storageLocation: .onDisk(directory.path("bookmarks.sqlite")))
        var appMigrator = DatabaseMigrator()
        appMigrator.registerMigration("v1", sql: frozenV1)
        #expect(try appMigrator.migrate(db) == ["v1"])
        var folder = Folder(id: nil, name: "Languages")
        try folder.insert(db)
        let folderId = try #require(folder.id)
        try Bookmark.insertAll(db, [Bookmark(id: nil, folderId: folderId, title: "The Swift language", url: "https://swift.org")])

        appMigrator.registerMigration("v2", sql: frozenV2)
        #expect(try appMigrator.migrate(db) == ["v2"])
        let virtualSQL: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'bookmark_fts'")
        #expect(virtualSQL?.hasPrefix("CREATE VIRTUAL TABLE") == true)
        // The row v1 left is found; rows written after v2 are, through the triggers.
        try Bookmark.insertAll(db, [Bookmark(id: nil, folderId: folderId, title: "SQLite full-text search", url: "https://sqlite.org/fts5.html")])
        #expect(try BookmarkText.matching(FTS5Pattern(matchingAllTokensIn: "swift")).fetchAll(db).map(\.title) == ["The Swift language"])
        let hits = try BookmarkText.matching(FTS5Pattern(matchingAllTokensIn: "search")).orderByRank().fetchAll(db)
        #expect(hits.map(\.url) == ["https://sqlite.org/fts5.html"])
        let matched: Int? = try db.query("SELECT count(*) FROM bookmark_fts WHERE bookmark_fts MATCH ?", "sqlite")
        #expect(matched == 1)
        try Bookmark.where { $0.url == "https://swift.org" }.deleteAll(db)
        #expect(try BookmarkText.matching(FTS5Pattern(matchingAllTokensIn: "swift")).fetchCount(db) == 0)
        // The database now matches the records: nothing more to plan.
        #expect(try Self.v2.plan(for: db).isEmpty)
    }

    @Test func migrateCreatesTheDeclaredFTS5TableAndThenPlansNothing() throws {
        let db = try Connection()
        let schema = RecordSchema(SearchShelf.NoteText.self)
        try schema.migrate(db)
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'note_fts'")
        #expect(sql == #"CREATE VIRTUAL TABLE "note_fts" USING "fts5"("body")"#)
        try SearchShelf.NoteText.insertAll(db, [SearchShelf.NoteText(id: nil, body: "spice must flow"), SearchShelf.NoteText(id: nil, body: "water")])
        #expect(try SearchShelf.NoteText.matching(FTS5Pattern(matchingAllTokensIn: "spice")).fetchAll(db).map(\.id) == [1])
        #expect(try schema.plan(for: db).isEmpty)
        #expect(try schema.plan(for: db).frozenMigration("v2").hasPrefix("// Nothing to freeze"))
        // `createTable` and `createFTS5Table(db)` of an FTS5Record make the same table.
        let other = try Connection()
        try Bookmark.createTable(other)
        try BookmarkText.createTable(other)
        let created: String? = try other.query("SELECT sql FROM sqlite_master WHERE name = 'bookmark_fts'")
        #expect(created == #"CREATE VIRTUAL TABLE "bookmark_fts" USING "fts5"("title", "url", content = 'bookmark', content_rowid = 'id')"#)
        #expect(try RecordSchema(Folder.self, Bookmark.self, BookmarkText.self).plan(for: other).steps.map(\.table) == ["folder"])
        let third = try Connection()
        try Bookmark.createTable(third)
        try BookmarkText.createFTS5Table(third)
        let viaFTS5: String? = try third.query("SELECT sql FROM sqlite_master WHERE name = 'bookmark_fts'")
        #expect(viaFTS5 == created)
        // Generic code over `Record` makes the FTS5 table too.
        func create<R: Record>(_: R.Type, in db: Connection) throws { try R.createTable(db, ifNotExists: true) }
        let fourth = try Connection()
        try create(Bookmark.self, in: fourth)
        try create(BookmarkText.self, in: fourth)
        try create(BookmarkText.self, in: fourth)
        let generic: String? = try fourth.query("SELECT sql FROM sqlite_master WHERE name = 'bookmark_fts'")
        #expect(generic == created)
    }

    /// A keyed index (over a table keyed by text) is planned with its key map, view and
    /// triggers, and searches after a frozen migration.
    @Test func aKeyedIndexIsPlannedWithItsKeyMap() throws {
        let schema = RecordSchema(SearchShelf.Tag.self, SearchShelf.TagText.self)
        let frozen = try #require(FrozenMigrationTests.frozenSQL(try schema.plan(for: try Connection()).frozenMigration("v1")))
        let directory = try TemporaryDirectory()
        let db = try Connection(storageLocation: .onDisk(directory.path("tags.sqlite")))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", sql: frozen)
        try migrator.migrate(db)
        try SearchShelf.Tag.insertAll(db, [SearchShelf.Tag(id: "a", label: "red apples"), SearchShelf.Tag(id: "b", label: "green pears")])
        #expect(try SearchShelf.TagText.matching(FTS5Pattern(matchingAllTokensIn: "pears")).fetchAll(db).map(\.label) == ["green pears"])
        #expect(try schema.plan(for: db).isEmpty)
    }

    /// A changed FTS5 declaration is refused by name, never rebuilt by guesswork; so is a plain
    /// table where the record declares FTS5, and a rowid-keyed record that declares nothing.
    @Test func whatCannotBePlannedIsRefusedByName() throws {
        let db = try Connection()
        try Self.v1.migrate(db)
        try db.createFTS5Table(
            "bookmark_fts", columns: ["title", "url"],
            options: FTS5Options(tokenizer: .porter(.unicode61()), content: .external(table: "bookmark", rowID: "id")))
        let before: [String] = try db.query("SELECT name FROM sqlite_master ORDER BY name")
        do {
            _ = try Self.v2.plan(for: db)
            Issue.record("a changed FTS5 table should be refused")
        } catch let RecordSchemaError.cannotPlan(record, table, reason) {
            #expect(record == "BookmarkText")
            #expect(table == "bookmark_fts")
            #expect(reason.contains("differs") && reason.contains("porter"))
        }
        #expect(throws: RecordSchemaError.self) { try Self.v2.migrate(db) }
        #expect(try db.query("SELECT name FROM sqlite_master ORDER BY name") as [String] == before)

        let plain = try Connection()
        try plain.execute(#"CREATE TABLE "bookmark_fts"("rowid" INTEGER PRIMARY KEY, "title" TEXT, "url" TEXT)"#)
        #expect(throws: RecordSchemaError.self) { try RecordSchema(BookmarkText.self).plan(for: plain) }

        do {
            _ = try RecordSchema(SearchShelf.StrayText.self).plan(for: try Connection())
            Issue.record("a rowid-keyed record that is no FTS5Record should be refused")
        } catch let error as RecordSchemaError {
            guard case .cannotPlan(_, let table, let reason) = error else { throw error }
            #expect(table == "stray_fts")
            #expect(reason.contains("FTS5Record"))
            #expect(error.localizedDescription.contains("stray_fts"))
        }
    }
}
