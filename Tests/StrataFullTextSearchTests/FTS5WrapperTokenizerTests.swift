import Foundation
import StrataSQift
import Strata
import Testing

private struct RewriteFailure: Error {}

@Suite("FTS5 wrapping tokenizers")
struct FTS5WrapperTokenizerTests {
    @Test func synonymsAndStopWordsKeepTheWrappedRanges() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "synonyms", wrapping: .unicode61(removeDiacritics: .always)) { token, emit in
            if token == "the" { return }
            emit(token)
            if token == "car" { emit("automobile") }
        }
        try db.createFTS5Table("ads", columns: ["text"], options: FTS5Options(tokenizer: .custom(name: "synonyms")))
        try db.run("INSERT INTO ads(text) VALUES (?)", "The Café car, the 日本 one")
        try db.run("INSERT INTO ads(text) VALUES (?)", "An automobile")
        func highlights(_ text: String) throws -> [String] {
            try db.query(literal: "SELECT highlight(ads, 0, '[', ']') FROM ads WHERE ads MATCH \(FTS5Pattern(matchingAnyTokenIn: text)) ORDER BY rowid")
        }
        #expect(try highlights("automobile") == ["The Café [car], the 日本 one", "An [automobile]"])
        #expect(try highlights("cafe") == ["The [Café] car, the 日本 one"])
        #expect(try highlights("日本") == ["The Café car, the [日本] one"])
        #expect(try highlights("the").isEmpty)
        // A query's synonyms are alternatives: "car" finds the automobile too.
        #expect(try highlights("car") == ["The Café [car], the 日本 one", "An [automobile]"])
    }

    @Test func wrapsPorterAndPassesTableArguments() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "upper", wrapping: .porter(.unicode61())) { token, emit in emit(token.uppercased()) }
        try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "upper")))
        try db.run("INSERT INTO docs(body) VALUES ('running dogs')")
        let hits: Int64? = try db.query("SELECT count(*) FROM docs WHERE docs MATCH 'run AND dog'")
        #expect(hits == 1)

        try db.registerFTS5Tokenizer(named: "plain", wrapping: .custom(name: "unicode61")) { token, emit in emit(token) }
        try db.createFTS5Table("kept", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "plain", arguments: ["remove_diacritics", "0"])))
        try db.run("INSERT INTO kept(body) VALUES ('café')")
        let folded: Int64? = try db.query("SELECT count(*) FROM kept WHERE kept MATCH 'cafe'")
        #expect(folded == 0)
    }

    @Test func unknownWrappedTokenizerAndThrowingRewriterFail() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "orphan", wrapping: .custom(name: "nonexistent")) { token, emit in emit(token) }
        #expect(throws: SQLiteError.self) {
            try db.createFTS5Table("x", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "orphan")))
        }
        try db.registerFTS5Tokenizer(named: "angry", wrapping: .ascii) { token, emit in
            if token == "boom" { throw RewriteFailure() }
            emit(token)
        }
        try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "angry")))
        try db.run("INSERT INTO docs(body) VALUES ('calm')")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO docs(body) VALUES ('big boom')") }
        let count: Int64? = try db.query("SELECT count(*) FROM docs WHERE docs MATCH 'calm'")
        #expect(count == 1)
    }
}
