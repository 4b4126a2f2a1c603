import Foundation
import StrataSQift
import StrataRecords
import Testing

// API.md section 7 "Records are the schema", as Swift 5 client code writes it. The records live in
// a namespace: this target already has top-level `Author` and `Book`.
enum Section7Swift5 {
    struct Metadata: Codable, Equatable { var tags: [String]; var rating: Double? }

    @Record struct Author: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String }
    @Record struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(Author.self, onDelete: .cascade) var authorId: Int64 // FOREIGN KEY to author's key, indexed
        @Indexed var title: String
        @Check("year > 0") var year: Int // CHECK written as SQL
        @JSON var metadata: Section7Swift5.Metadata // qualified: the generated extension is at file scope
    }

    @Record struct Review: Equatable {
        @PrimaryKey var id: Int64?
        @References(Book.self, onDelete: .setNull, onUpdate: .cascade) var bookId: Int64?
        @References(Author.self, onDelete: .restrict) var authorId: Int64?
        @References(Author.self, onDelete: .noAction, onUpdate: .setDefault) var editorId: Int64?
    }

    @Suite struct Tests {
        @Test func constraintSpellings() throws {
            let db = try Connection()
            try db.execute("PRAGMA foreign_keys = ON")
            try Author.createTable(db); try Book.createTable(db) // with the constraints above
            try Review.createTable(db)
            var vian = Author(id: nil, name: "Vian")
            try vian.insert(db)
            var book = Book(
                id: nil, authorId: vian.id ?? 0, title: "L'Écume des jours", year: 1947,
                metadata: Metadata(tags: ["novel"], rating: 4.5))
            try book.insert(db)
            #expect(try Book.fetchAll(db) == [book])

            #expect(throws: SQLiteError.self) { try Author(id: nil, name: "Vian").inserted(db) } // UNIQUE
            #expect(throws: SQLiteError.self) { // CHECK
                try Book(id: nil, authorId: vian.id ?? 0, title: "x", year: 0, metadata: Metadata(tags: [], rating: nil)).inserted(db)
            }
            #expect(throws: SQLiteError.self) { // FOREIGN KEY
                try Book(id: nil, authorId: 99, title: "x", year: 1, metadata: Metadata(tags: [], rating: nil)).inserted(db)
            }
            let indexes: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'book' ORDER BY name")
            #expect(indexes == ["book_authorId_idx", "book_title_idx"])

            try vian.delete(db) // ON DELETE CASCADE
            #expect(try Book.fetchCount(db) == 0)

            try Book.checkSchema(db) // throws RecordSchemaError.mismatch([String]) naming every difference
            try Author.checkSchema(db)
        }

        @Test func checkSchemaNamesTheDifferences() throws {
            let db = try Connection()
            try db.execute("CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
            try db.execute(
                "CREATE TABLE book (id INTEGER PRIMARY KEY, authorID INTEGER NOT NULL, title TEXT NOT NULL, year INTEGER NOT NULL, metadata TEXT NOT NULL)")
            try Author.checkSchema(db)
            do {
                try Book.checkSchema(db)
                Issue.record("checkSchema passed a table that differs")
            } catch RecordSchemaError.mismatch(let differences) {
                #expect(differences.count == 4)
                #expect(differences.first == #"column "authorId" of table "book" is spelled "authorID" in the database (the names differ in case)"#)
            }
        }
    }
}
