import Foundation
import StrataSQift
import Strata
import Testing

// API.md section 6's full-text search and JSONBinding lines, as Swift 5 client code writes them.
@Suite struct SearchJSONSwift5Tests {
    @Test func fullTextSearchSpellings() throws {
        let db = try Connection()
        try db.createFTS5Table("docs", columns: ["title", "body"]) // options: FTS5Options = FTS5Options()
        try db.createFTS5Table("docs2", columns: ["body"], options: FTS5Options(tokenizer: .porter(.unicode61())))
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")
        try db.run("INSERT INTO book(title) VALUES ('Dune')")
        try db.createFTS5Table(
            "book_fts", columns: ["title"],
            options: FTS5Options(content: .external(table: "book", rowID: "id")))
        try db.run("INSERT INTO book(title) VALUES ('Dune Messiah')")
        let tokenizers: [FTS5Tokenizer] = [
            .unicode61(), .ascii, .porter(.ascii), .trigram, .custom(name: "unicode61"),
            .custom(name: "unicode61", arguments: ["remove_diacritics", "2"])
        ]
        for (index, tokenizer) in tokenizers.enumerated() {
            try db.createFTS5Table("t\(index)", columns: ["body"], options: FTS5Options(tokenizer: tokenizer))
        }
        try db.run("INSERT INTO docs(title, body) VALUES ('Sand', 'dune worms and spice')")
        let userText = "dune \"spice\" *("
        let p = FTS5Pattern(matchingAllTokensIn: userText) // FTS5Pattern?; nil when the text has no token
        #expect(FTS5Pattern(matchingAnyTokenIn: userText) != nil)
        #expect(FTS5Pattern(matchingPhrase: userText) != nil)
        let hits: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(p) ORDER BY rank")
        #expect(hits == ["Sand"])
        let books: [String] = try db.query(literal: "SELECT title FROM book_fts WHERE book_fts MATCH \(FTS5Pattern(matchingAnyTokenIn: "dune")) ORDER BY rowid")
        #expect(books == ["Dune", "Dune Messiah"])
        try db.registerFTS5Tokenizer(named: "dashes") { (text: String, emit: (String, Range<Int>) -> Void) in
            var start = 0
            for (offset, byte) in text.utf8.enumerated() where byte == UInt8(ascii: "-") {
                if offset > start { emit(String(decoding: Array(text.utf8)[start..<offset], as: UTF8.self), start..<offset) }
                start = offset + 1
            }
            if text.utf8.count > start { emit(String(decoding: Array(text.utf8)[start...], as: UTF8.self), start..<text.utf8.count) }
        }
        try db.createFTS5Table("parts", columns: ["code"], options: FTS5Options(tokenizer: .custom(name: "dashes")))
        try db.run("INSERT INTO parts(code) VALUES ('AB-12-X')")
        let marked: String? = try db.query("SELECT highlight(parts, 0, '[', ']') FROM parts WHERE parts MATCH '\"12\"'")
        #expect(marked == "AB-[12]-X")
    }

    @Test func jsonBindingSpellings() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(j)")
        try db.run("INSERT INTO t(j) VALUES (?)", JSONBinding(["a", "b"]))
        let back: JSONBinding<[String]>? = try db.query("SELECT j FROM t") // back?.value == ["a", "b"]
        #expect(back?.value == ["a", "b"])
    }
}
