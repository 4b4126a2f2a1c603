#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// `strata schema` on a database with an FTS5 index over a table.
@Suite struct SchemaVirtualTableTests {
    @Test func schemaListsTheFTS5TableButNotItsShadowTables() throws {
        let sandbox = try Sandbox()
        let connection = try Connection(storageLocation: .onDisk(sandbox.path("books.db")))
        try connection.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL, isbn TEXT)")
        try connection.createFTS5Table(
            "book_fts", columns: ["title", "isbn"],
            options: FTS5Options(content: .external(table: "book", rowID: "id"), unindexedColumns: ["isbn"]))
        try connection.createFTS5Table("notes", columns: ["body"])
        let result = try sandbox.strata("schema", "books.db")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            Array(lines.prefix(10)) == [
                "TABLE book",
                "  id     INTEGER  PRIMARY KEY",
                "  title  TEXT     NOT NULL",
                "  isbn   TEXT",
                "VIRTUAL TABLE book_fts USING fts5",
                "  title  (no type)",
                "  isbn   (no type)",
                "VIRTUAL TABLE notes USING fts5",
                "  body  (no type)",
                ""
            ])
        #expect(lines.contains("TRIGGER book_fts_ai ON book"))
        for suffix in ["data", "idx", "content", "docsize", "config"] {
            #expect(!result.stdout.contains("notes_\(suffix)"))
            #expect(!result.stdout.contains("book_fts_\(suffix)"))
        }
    }
}
#endif
