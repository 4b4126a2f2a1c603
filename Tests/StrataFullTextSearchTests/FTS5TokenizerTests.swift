import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Splits on ASCII spaces and dashes; every non-ASCII scalar is a token of its own (a crude CJK
/// tokenizer), lowercased. Ranges are UTF-8 byte offsets.
private func splitTokens(_ text: String, _ emit: (String, Range<Int>) -> Void) {
    var offset = 0
    var start: Int?
    func flush(at end: Int) {
        if let begin = start, end > begin {
            let bytes = Array(text.utf8)[begin..<end]
            emit(String(decoding: bytes, as: UTF8.self).lowercased(), begin..<end)
        }
        start = nil
    }
    for scalar in text.unicodeScalars {
        let width = String(scalar).utf8.count
        if scalar == " " || scalar == "-" {
            flush(at: offset)
        } else if scalar.value >= 0x3000 {
            flush(at: offset)
            emit(String(scalar), offset..<offset + width)
        } else if start == nil {
            start = offset
        }
        offset += width
    }
    flush(at: offset)
}

private final class Marker: Sendable {}

private struct TokenizerFailure: Error {}

@Suite("FTS5 tokenizers written in Swift")
struct FTS5TokenizerTests {
    @Test func swiftTokenizerSearchesAndHighlightsMultiByteText() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "dashes") { (text: String, emit: (String, Range<Int>) -> Void) in
            splitTokens(text, emit)
        }
        try db.createFTS5Table("parts", columns: ["code"], options: FTS5Options(tokenizer: .custom(name: "dashes")))
        try db.run("INSERT INTO parts(code) VALUES (?)", "Café-au-lait 日本語 x")
        try db.run("INSERT INTO parts(code) VALUES (?)", "ÉTÉ-plain")

        func highlight(_ text: String) throws -> [String] {
            let pattern = FTS5Pattern(matchingAnyTokenIn: text)
            return try db.query(literal: "SELECT highlight(parts, 0, '[', ']') FROM parts WHERE parts MATCH \(pattern) ORDER BY rowid")
        }
        #expect(try highlight("café") == ["[Café]-au-lait 日本語 x"])
        #expect(try highlight("LAIT") == ["Café-au-[lait] 日本語 x"])
        #expect(try highlight("日") == ["Café-au-lait [日]本語 x"])
        #expect(try highlight("本 x") == ["Café-au-lait 日[本]語 [x]"])
        #expect(try highlight("été") == ["[ÉTÉ]-plain"])
        let phrase: [String] = try db.query(literal: "SELECT code FROM parts WHERE parts MATCH \(FTS5Pattern(matchingPhrase: "日本"))")
        #expect(phrase == ["Café-au-lait 日本語 x"])
        let snippets: [String] = try db.query("SELECT snippet(parts, 0, '<', '>', '…', 2) FROM parts WHERE parts MATCH '\"語\"'")
        #expect(snippets == ["…<語> x"])
    }

    @Test func throwingTokenizerFailsTheStatement() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "picky") { text, emit in
            if text.contains("boom") { throw TokenizerFailure() }
            if text.contains("busy") { throw SQLiteError(code: 5, message: "busy") }
            splitTokens(text, emit)
        }
        try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "picky")))
        try db.run("INSERT INTO docs(body) VALUES ('fine words')")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO docs(body) VALUES ('it goes boom')") }
        let busy = sqliteError { try db.run("INSERT INTO docs(body) VALUES ('busy now')") }
        #expect(busy?.code == 5)
        #expect(throws: SQLiteError.self) {
            let _: [String] = try db.query("SELECT body FROM docs WHERE docs MATCH 'boom'")
        }
        let count: Int64? = try db.query("SELECT count(*) FROM docs WHERE docs MATCH 'fine'")
        #expect(count == 1)
        let rows: Int64? = try db.query("SELECT count(*) FROM docs")
        #expect(rows == 1)
    }

    @Test func rangeOutsideTheTextFailsTheStatement() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.registerFTS5Tokenizer(named: "bad") { text, emit in emit(text, 0..<(text.utf8.count + 5)) }
        try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "bad")))
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO docs(body) VALUES ('x')") }
    }

    @Test func closureIsReleasedWhenTheConnectionCloses() throws {
        weak var weakMarker: Marker?
        do {
            let marker = Marker()
            weakMarker = marker
            let db = try Connection(storageLocation: .inMemory)
            try db.registerFTS5Tokenizer(named: "held") { text, emit in
                _ = marker
                splitTokens(text, emit)
            }
            try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "held")))
            try db.run("INSERT INTO docs(body) VALUES ('a b')")
            let hits: Int64? = try db.query("SELECT count(*) FROM docs WHERE docs MATCH 'b'")
            #expect(hits == 1)
            // Registering again under the same name keeps both closures alive until close.
            try db.registerFTS5Tokenizer(named: "held") { text, emit in splitTokens(text, emit) }
        }
        #expect(weakMarker == nil)
    }

    @Test func unknownCustomTokenizerIsAnError() throws {
        let db = try Connection(storageLocation: .inMemory)
        let error = sqliteError {
            try db.createFTS5Table("docs", columns: ["body"], options: FTS5Options(tokenizer: .custom(name: "missing", arguments: ["a b", "it's"])))
        }
        #expect(error?.message.contains("missing") == true)
    }
}
