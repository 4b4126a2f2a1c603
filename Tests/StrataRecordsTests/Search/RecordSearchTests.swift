import Foundation
import StrataSQift
import Testing
import StrataRecords

/// A record over an FTS5 table with its own content.
@Record(table: "note") struct Note: Equatable { @PrimaryKey @Column("rowid") var id: Int64?; var title: String; var body: String }
/// A record over an external-content index of `book`.
@Record(table: "book_text") struct BookText: Equatable { @PrimaryKey @Column("rowid") var id: Int64?; var title: String }

@Suite struct RecordSearchTests {
    func notes() throws -> Connection {
        let db = try Connection()
        try Note.createFTS5Table(db)
        try Note.insertAll(
            db,
            [
                Note(id: nil, title: "Dune", body: "The spice must flow on Arrakis"),
                Note(id: nil, title: "Spice trade", body: "Spice, spice and more spice"),
                Note(id: nil, title: "Été à Kyoto 日本", body: "Le café était très fort")
            ])
        return db
    }

    @Test func matchRankAndWeights() throws {
        let db = try notes()
        let spice = FTS5Pattern(matchingAllTokensIn: "spice")
        let ranked = try Note.matching(spice).orderByRank().fetchAll(db)
        #expect(ranked.map(\.title) == ["Spice trade", "Dune"])
        #expect(ranked.first?.id == 2)
        // Title weighted far above body: the note with "Spice" in its title first either way;
        // body weighted far above title still ranks the many-spice body first.
        let byTitle = try Note.matching(spice).order { _ in Note.bm25(100, 1) }.fetchAll(db)
        #expect(byTitle.first?.title == "Spice trade")
        #expect(try Note.matching(FTS5Pattern(matchingAllTokensIn: "arrakis flow")).fetchAll(db).map(\.title) == ["Dune"])
        // A nil pattern (text without a token) matches nothing; hostile text is only ever tokens.
        #expect(try Note.matching(FTS5Pattern(matchingAllTokensIn: "  ¿?!  ")).fetchCount(db) == 0)
        #expect(try Note.matching(FTS5Pattern(matchingAnyTokenIn: #"spice" OR "x' NEAR( -- "#)).fetchCount(db) == 2)
        // A column filter.
        #expect(try Note.where { $0.title.match(spice) }.fetchAll(db).map(\.title) == ["Spice trade"])
        let query = Note.matching(spice).orderByRank()
        #expect(query.sql == #"SELECT "note"."rowid", "note"."title", "note"."body" FROM "note" WHERE "note" MATCH ? ORDER BY "note"."rank" ASC"#)
    }

    /// unicode61 folds diacritics by default: "cafe" finds "café", and the highlight marks the
    /// original text.
    @Test func highlightAndSnippetAsSelectedValues() throws {
        let db = try notes()
        let rows = try Note.matching(FTS5Pattern(matchingAllTokensIn: "kyoto cafe"))
            .select { ($0.id, Note.highlight(\.title, open: "[", close: "]"), Note.snippet(\.body, open: "<", close: ">", ellipsis: "…", tokens: 3)) }
            .fetchAll(db)
        #expect(rows.count == 1)
        #expect(rows.first?.1 == "Été à [Kyoto] 日本")
        #expect(rows.first?.2.map { $0.contains("<café>") } == true)
    }

    @Test func highlightsMultiByteText() throws {
        let db = try notes()
        let rows = try Note.matching(FTS5Pattern(matchingAnyTokenIn: "kyoto café"))
            .select { ($0.id, Note.highlight(\.title, open: "[", close: "]"), Note.snippet(\.body, open: "<", close: ">", ellipsis: "…", tokens: 2)) }
            .fetchAll(db)
        #expect(rows.map(\.0) == [3])
        #expect(rows.first?.1 == "Été à [Kyoto] 日本")
        #expect(rows.first?.2 == "Le <café>…")
    }

    @Test func anExternalContentIndexJoinedBackToItsTable() throws {
        let db = try makeLibrary()
        try BookText.createFTS5Table(db, options: FTS5Options(content: .external(table: "book", rowID: "id")))
        let pattern = FTS5Pattern(matchingAllPrefixesIn: "lav")
        let found = try Book.join(BookText.self, on: { book, text in book.id == text.id })
            .where { _, text in text.title.match(pattern) }
            .fetchAll(db)
        #expect(found.map(\.0.title) == ["Lavinia"])
        // Kept in sync by triggers when records change.
        var lavinia = try #require(found.first?.0)
        lavinia.title = "Voices"
        try lavinia.update(db)
        #expect(try BookText.matching(pattern).fetchCount(db) == 0)
        #expect(try BookText.matching(FTS5Pattern(matchingAllTokensIn: "voices")).fetchAll(db).map(\.id) == [lavinia.id])
        try Book.insertAll(db, [Book(id: nil, authorId: 1, title: "Lavender fields", year: 2020, price: nil)])
        #expect(try BookText.matching(pattern).fetchAll(db).map(\.title) == ["Lavender fields"])
        _ = try lavinia.delete(db)
        #expect(try BookText.matching(FTS5Pattern(matchingAllTokensIn: "voices")).fetchCount(db) == 0)
    }
}
