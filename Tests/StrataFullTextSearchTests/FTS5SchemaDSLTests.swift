import Foundation
import StrataSQift
import Strata
import Testing

@Suite("FTS5 tables in the schema DSL")
struct FTS5SchemaDSLTests {
    private static let externalOptions = FTS5Options(
        tokenizer: .porter(.unicode61()), content: .external(table: "book", rowID: "id"),
        prefixes: [2])

    private static let schema = Schema(identifier: "library") { schema in
        schema.version(1) { v1 in
            v1.createTable("book") { book in
                book.primaryKey("id")
                book.column("title", type: .Text)
            }
            v1.createFTS5Table("book_fts", columns: ["title"], options: externalOptions)
            v1.createFTS5Table("notes", columns: ["body", "tag"], options: FTS5Options(unindexedColumns: ["tag"]))
        }
        schema.version(2) { v2 in
            v2.dropTable("book_fts")
            v2.dropTable("notes")
        }
    }

    private func matches(_ db: Connection, _ pattern: String) throws -> [String] {
        try db.query("SELECT title FROM book WHERE id IN (SELECT rowid FROM book_fts WHERE book_fts MATCH ?) ORDER BY id", pattern)
    }

    private func objectNames(_ db: Connection) throws -> Set<String> {
        Set(try db.query("SELECT name FROM sqlite_master") as [String])
    }

    @Test func createsDropsAndRecreatesWhenMigratingDown() throws {
        let db = try Connection(storageLocation: .inMemory)
        try Self.schema.migrate(db, toVersion: 1)
        let createdSQL: [String] = try db.query("SELECT sql FROM sqlite_master WHERE name IN ('book_fts', 'notes') ORDER BY name")
        try db.run("INSERT INTO book(title) VALUES (?)", "Running with scissors")
        #expect(try matches(db, "run") == ["Running with scissors"])
        #expect(try db.readSchema().virtualTables.map(\.name) == ["book_fts", "notes"])
        #expect(Self.schema.versionNumbered(1)?.virtualTables.map(\.columnNames) == [["title"], ["body", "tag"]])

        try Self.schema.migrate(db) // version 2 drops both, and the sync triggers with them
        #expect(try objectNames(db) == ["book"])
        try db.run("INSERT INTO book(title) VALUES (?)", "Jumping jacks") // no trigger left to fail

        try Self.schema.migrate(db, toVersion: 1) // down: recreated with columns and options, refilled
        let recreatedSQL: [String] = try db.query("SELECT sql FROM sqlite_master WHERE name IN ('book_fts', 'notes') ORDER BY name")
        #expect(recreatedSQL == createdSQL)
        #expect(try matches(db, "jump") == ["Jumping jacks"])
        #expect(try matches(db, "ju*") == ["Jumping jacks"])
        try db.run("UPDATE book SET title = ? WHERE title = ?", "Walking", "Running with scissors")
        #expect(try matches(db, "walk") == ["Walking"])

        try Self.schema.migrate(db, toVersion: 0) // down: the creation undone
        #expect(try objectNames(db).isEmpty)
        #expect(try db.query("PRAGMA user_version") as Int? == 0)
    }

    @Test func declaringTwiceOrDroppingUndeclaredIsRefused() throws {
        let db = try Connection(storageLocation: .inMemory)
        let twice = Schema { schema in
            schema.version(1) { v1 in
                v1.createTable("docs") { $0.column("a", type: .Text) }
                v1.createFTS5Table("docs", columns: ["a"])
            }
        }
        #expect(throws: SchemaMigrationError.self) { try twice.migrate(db) }
        let noColumns = Schema { schema in schema.version(1) { $0.createFTS5Table("docs", columns: []) } }
        #expect(throws: SchemaMigrationError.self) { try noColumns.migrate(db) }
        #expect(try objectNames(db).isEmpty)
    }
}
