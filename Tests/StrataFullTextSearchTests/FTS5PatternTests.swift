import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

@Suite("FTS5 patterns")
struct FTS5PatternTests {
    @Test func patternsFromText() throws {
        #expect(FTS5Pattern(matchingAllTokensIn: "hello, world")?.rawPattern == #""hello" "world""#)
        #expect(FTS5Pattern(matchingAnyTokenIn: "hello world")?.rawPattern == #""hello" OR "world""#)
        #expect(FTS5Pattern(matchingPhrase: "hello world")?.rawPattern == #""hello" + "world""#)
        #expect(FTS5Pattern(matchingPhrasePrefix: "hello wor")?.rawPattern == #""hello" + "wor"*"#)
        #expect(FTS5Pattern(matchingAllPrefixesIn: "he wo")?.rawPattern == #""he"* "wo"*"#)
        #expect(FTS5Pattern(matchingAnyPrefixIn: "he wo")?.rawPattern == #""he"* OR "wo"*"#)
        #expect(FTS5Pattern(matchingAllTokensIn: "  \"*^:() ") == nil)
        #expect(FTS5Pattern(matchingPhrase: "") == nil)
    }

    @Test func patternsSearch() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table("docs", columns: ["title"])
        for title in ["hello world", "world hello", "hello there", "NEAR AND OR NOT"] {
            try db.run("INSERT INTO docs(title) VALUES (?)", title)
        }
        func hits(_ p: FTS5Pattern?) throws -> [String] {
            try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(p) ORDER BY rowid")
        }
        #expect(try hits(FTS5Pattern(matchingAllTokensIn: "world hello")) == ["hello world", "world hello"])
        #expect(try hits(FTS5Pattern(matchingAnyTokenIn: "there world")) == ["hello world", "world hello", "hello there"])
        #expect(try hits(FTS5Pattern(matchingPhrase: "hello world")) == ["hello world"])
        #expect(try hits(FTS5Pattern(matchingPhrasePrefix: "hello th")) == ["hello there"])
        #expect(try hits(FTS5Pattern(matchingAllPrefixesIn: "wor hel")) == ["hello world", "world hello"])
        #expect(try hits(FTS5Pattern(matchingAnyPrefixIn: "the xyz")) == ["hello there"])
        #expect(try hits(FTS5Pattern(matchingAllTokensIn: "NEAR AND")) == ["NEAR AND OR NOT"])
        // A text without words gives nil, which, interpolated, matches nothing rather than failing.
        let none = FTS5Pattern(matchingAllTokensIn: "*(")
        #expect(none == nil)
        #expect(try hits(none).isEmpty)
        let ranked: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(none) ORDER BY rank")
        #expect(ranked.isEmpty)
        let unwrapped = try #require(FTS5Pattern(matchingPhrase: "world hello"))
        let frag: SQLFragment = "docs MATCH \(unwrapped)"
        #expect(frag.arguments == [.text(#""world" + "hello""#)])
    }

    @Test func rawPatternsAreValidated() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table("docs", columns: ["title", "body"])
        try db.run("INSERT INTO docs VALUES ('swift sqlite', 'fts5')")
        let good = try db.makeFTS5Pattern(rawPattern: "title: swift AND (sqlite OR rust)", forTable: "docs")
        let hits: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(good)")
        #expect(hits == ["swift sqlite"])
        do {
            _ = try db.makeFTS5Pattern(rawPattern: "swift AND (", forTable: "docs")
            Issue.record("expected an error")
        } catch let error as SQLiteError {
            #expect(error.message.contains("Invalid FTS5 pattern"))
            #expect(error.message.contains("\"docs\""))
            #expect(error.message.contains("syntax error"))
        }
        #expect(throws: SQLiteError.self) { try db.makeFTS5Pattern(rawPattern: "nosuch: swift", forTable: "docs") }
    }

    @Test func hostileTextNeverRaisesSyntaxErrors() async throws {
        try await onOwnThread {
            let db = try Connection(storageLocation: .inMemory)
            try db.createFTS5Table("docs", columns: ["title", "body"], options: FTS5Options(prefixes: [2]))
            try db.createFTS5Table("tri", columns: ["title"], options: FTS5Options(tokenizer: .trigram))
            try db.run("INSERT INTO docs VALUES ('near and or not', 'café 日本語 quotes \" here')")
            try db.run("INSERT INTO tri VALUES ('near and or not')")
            let pieces = [
                "\"", "'", "\"\"", "NEAR", "NEAR(", "AND", "OR", "NOT", "*", "^", ":", "(", ")", "+", "-", "{", "}",
                "title:", "body :", "é", "日本", "e\u{301}", "🇫🇷", "👍🏽", "\u{200B}", "\\", "%", "_", ",", ".", "NEAR/3",
                "a", "bc", "x y", " ", "\t", "\n", "0", "12", "ǅ", "ß", "İ", "\u{E000}", "ـ", "١٢"
            ]
            var generator = SystemRandomNumberGenerator()
            var errors: [String] = []
            var built = 0
            for index in 0..<10_000 {
                let text: String
                if index % 2 == 0 {
                    text = (0..<Int.random(in: 1...8, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }
                        .joined(separator: Bool.random(using: &generator) ? " " : "")
                } else {
                    // Random scalars, NUL excluded.
                    let scalars = (0..<Int.random(in: 1...12, using: &generator)).compactMap { _ -> Unicode.Scalar? in
                        Unicode.Scalar(UInt32.random(in: 1...(Bool.random(using: &generator) ? 0x7F : 0x2FFFF), using: &generator))
                    }
                    text = String(String.UnicodeScalarView(scalars))
                }
                let patterns = [
                    FTS5Pattern(matchingAllTokensIn: text), FTS5Pattern(matchingAnyTokenIn: text),
                    FTS5Pattern(matchingPhrase: text), FTS5Pattern(matchingPhrasePrefix: text),
                    FTS5Pattern(matchingAllPrefixesIn: text), FTS5Pattern(matchingAnyPrefixIn: text)
                ]
                for pattern in patterns.compactMap({ $0 }) {
                    built += 1
                    for table in ["docs", "tri"] {
                        do {
                            let _: [Int64] = try db.query(literal: "SELECT rowid FROM \(identifier: table) WHERE \(identifier: table) MATCH \(pattern)")
                        } catch {
                            errors.append("\(text.debugDescription) → \(pattern.rawPattern): \(error)")
                        }
                    }
                }
            }
            #expect(built > 10_000)
            #expect(errors.isEmpty, "\(errors.count) errors, first: \(errors.prefix(3))")
        }
    }
}
