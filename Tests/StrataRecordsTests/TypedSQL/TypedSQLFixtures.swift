import Foundation
import Testing
import StrataRecords
import StrataTestSupport

/// The records of issue 68's spellings: authors counting their books, threaded comments, users
/// with a unique email, an audit table for triggers, and a view of books per author.
enum TypedSQLShelf {
    @Record(table: "ts_author") struct Author: Equatable { @PrimaryKey var id: Int64?; var name: String; var bookCount: Int }
    @Record(table: "ts_book") struct Book: Equatable {
        @PrimaryKey var id: Int64?; var authorId: Int64; var title: String; var year: Int; var price: Double?
    }
    @Record(table: "comment") struct Comment: Equatable { @PrimaryKey var id: Int64?; var parentId: Int64?; var body: String }
    @Record(table: "user") struct User: Equatable {
        @PrimaryKey var id: Int64?; @Unique var email: String; var name: String; var score: Int64
    }
    @Record(table: "audit") struct AuditEntry: Equatable {
        @PrimaryKey var id: Int64?; var bookId: Int64; var action: String; var title: String
    }
    @Record(view: "author_totals") struct AuthorTotal: Equatable { var authorId: Int64; var books: Int }
    /// A view whose definition holds values of every storage class (written as literals).
    @Record(view: "odd \"titles\"") struct OddTitle: Equatable { var title: String }
}

extension TypedSQLShelf.AuthorTotal {
    static let definition = TypedSQLShelf.Book.group(by: \.authorId).select { ($0.authorId, $0.id.count()) }
}

extension TypedSQLShelf.OddTitle {
    static let definition = TypedSQLShelf.Book
        .where { $0.title != "it's \"odd\"\0 -- ;" && $0.year > Int(Int64.min) && $0.year < Int(Int64.max) && $0.price != -0.5 }
        .select(\.title)
}

/// Rows of a table as text, in rowid order, for comparing two databases.
func tableDump(_ db: Connection, _ table: String) throws -> [[String]] {
    try db.query(literal: "SELECT * FROM \(identifier: table) ORDER BY rowid") { row in
        (0..<row.columnCount).map { index in row.value(at: index).map { "\(type(of: $0)):\($0)" } ?? "NULL" }
    }
}

/// A generated text that SQLite stores and returns as written: quotes, NUL, keywords, marks.
func hardText(_ random: inout SeededRandom) -> String {
    Gen.text(&random, maxPieces: 5, nul: true)
}
