import Foundation
import StrataSQift
import StrataRecords
import Testing

// API.md section 6's JSON spellings, and typed search, as Swift 5 client code writes them.
@Record struct Article: Equatable {
    @PrimaryKey var id: Int64?; var title: String
    @JSON var tags: [String] // any Codable property, stored as JSON text SQLite's json functions read
    @JSON var meta: [String: Int]?
}

@Record(table: "docs") struct Doc: Equatable { @PrimaryKey @Column("rowid") var id: Int64?; var title: String; var body: String }

@Suite struct JSONAndSearchSwift5Tests {
    @Test func jsonSpellings() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(j TEXT)")
        try db.run("INSERT INTO t(j) VALUES (?)", JSONBinding(["a", "b"]))
        let back: JSONBinding<[String]>? = try db.query("SELECT j FROM t")
        #expect(back?.value == ["a", "b"])
        try Article.createTable(db)
        var article = Article(id: nil, title: "Packs", tags: ["swift"], meta: ["pages": 120])
        try article.insert(db)
        #expect(try Article.where { $0.meta.json("$.pages", as: Int.self) > 100 && $0.tags.contains("swift") }.fetchAll(db) == [article])
    }

    @Test func searchSpellings() throws {
        let db = try Connection()
        try Doc.createFTS5Table(db, options: FTS5Options(tokenizer: .porter(.unicode61())))
        try Doc.insertAll(db, [Doc(id: nil, title: "Dune", body: "Spice must flow"), Doc(id: nil, title: "Flowers", body: "Roses")])
        let hits = try Doc.matching(FTS5Pattern(matchingAllTokensIn: "flowing")).orderByRank().fetchAll(db)
        #expect(hits.map { $0.title } == ["Dune"])
        let marked = try Doc.matching(FTS5Pattern(matchingAllTokensIn: "roses")).select { _ in Doc.highlight(\.body, open: "*", close: "*") }.fetchAll(db)
        #expect(marked == ["*Roses*"])
    }
}
