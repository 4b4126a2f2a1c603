// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The VectorSearch article's Swift blocks, word for word between `DOC:begin VectorSearch N`
// markers, run in order on one connection and checked after each.
import Foundation
import StrataRecords
import Testing

// DOC:begin VectorSearch 4
@Record(table: "passage") struct Passage { @PrimaryKey var id: Int64?; var lang: String; var embedding: FloatVector }
// DOC:end
// DOC:begin VectorSearch 8
@Record(table: "article") struct Article { @PrimaryKey var id: Int64?; var body: String; var embedding: FloatVector }
@Record(table: "article_text") struct ArticleText { @PrimaryKey @Column("rowid") var id: Int64?; var body: String }
// DOC:end

extension READMEExamples {
    @Test func vectorSearchArticleExamplesRun() async throws {
        try await inNewFolder {
            try vectorSearch()
            try await parallelVectorSearch()
        }
        #expect(printed.take() == [])
    }

    /// The parallel scan, on a Database over the file the examples above wrote.
    func parallelVectorSearch() async throws {
        let database = try Database(path: "vectors.sqlite")
        let embedding = try FloatVector([0.12, -0.5, 0.33])
        // DOC:begin VectorSearch 5
        let hits = try await Passage.nearest(to: embedding, by: \.embedding, k: 10).fetchAll(database)
        // DOC:end
        let serial = try await database.read { try Passage.nearest(to: embedding, by: \.embedding, k: 10).fetchAll($0) }
        #expect(hits.map(\.record.id) == serial.map(\.record.id) && hits.count == 3)
    }

    func vectorSearch() throws {
        let db = try Connection(path: "vectors.sqlite")
        // DOC:begin VectorSearch 1
        let embedding = try FloatVector([0.12, -0.5, 0.33])
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT, embedding BLOB)")
        try db.run(literal: "INSERT INTO doc(body, embedding) VALUES (\("spice"), \(embedding))")
        let stored: FloatVector? = try db.query("SELECT embedding FROM doc")
        let decoded = try FloatVector(blob: embedding.blob, dimensions: 3)   // a BLOB from elsewhere, checked
        // DOC:end
        #expect(stored == embedding)
        #expect(decoded == embedding)
        // DOC:begin VectorSearch 2
        let small = Int8Vector(quantizing: embedding)     // 1 byte per dimension + 4 for the scale
        let bits = BitVector(quantizing: embedding)       // 1 bit per dimension
        let approximate = small.dequantized               // back to float32, each component within scale / 2
        // DOC:end
        #expect(small.blob.count == 7)
        #expect(bits.bytes == [0b101])
        #expect(zip(approximate.values, embedding.values).allSatisfy { abs($0 - $1) <= small.scale / 2 })
        try db.run(literal: "INSERT INTO doc(body, embedding) VALUES ('salt', \(try FloatVector([-0.12, 0.5, -0.33])))")
        // DOC:begin VectorSearch 3
        try db.addVectorFunctions()
        let ranked: [String] = try db.query(literal: """
            SELECT body FROM doc ORDER BY strata_vec_distance_cosine(embedding, \(embedding)) LIMIT 10
            """)
        // DOC:end
        #expect(ranked == ["spice", "salt"])
        // DOC:begin VectorSearch 4
        try Passage.createTable(db)
        // DOC:end
        for (lang, values) in [("en", [0.1, -0.4, 0.3] as [Float]), ("fr", [0.12, -0.5, 0.33]), ("en", [-1, 0, 0])] {
            var passage = Passage(id: nil, lang: lang, embedding: try FloatVector(values))
            try passage.insert(db)
        }
        // DOC:begin VectorSearch 4
        let hits = try Passage.where { $0.lang == "en" }
            .nearest(to: embedding, by: \.embedding, metric: .cosine, k: 10)
            .fetchAll(db)                                  // [(record: Passage, distance: Double)]
        // DOC:end
        #expect(hits.map(\.record.id) == [1, 3])
        #expect(hits[0].distance < 0.01 && hits[1].distance > 1)
        // DOC:begin VectorSearch 6
        try db.createIVFIndex("doc_flat", on: "doc", column: "embedding", options: IVFIndexOptions(metric: .cosine, lists: 1))
        let exact = try db.searchIVFIndex("doc_flat", nearest: embedding, k: 10, nprobe: 1)   // [(rowID:, distance:)]
        // DOC:end
        let scanned: [Int64] = try db.query(literal: "SELECT rowid FROM doc ORDER BY strata_vec_distance_cosine(embedding, \(embedding)), rowid")
        #expect(exact.map(\.rowID) == scanned && scanned.count == 2)
        // DOC:begin VectorSearch 7
        try Passage.createIVFIndex(db, named: "passage_ivf", on: \.embedding, options: IVFIndexOptions(metric: .cosine, lists: 2))
        let probed = try Passage.where { $0.lang == "en" }
            .nearest(to: embedding, by: \.embedding, metric: .cosine, k: 10)
            .probing("passage_ivf", nprobe: 1)
            .fetchAll(db)
        // DOC:end
        #expect(probed.count <= 2 && probed.allSatisfy { hit in hits.contains { $0.record.id == hit.record.id } })
        let everyList = try Passage.where { $0.lang == "en" }.nearest(to: embedding, by: \.embedding, metric: .cosine, k: 10)
            .probing("passage_ivf", nprobe: 2).fetchAll(db)
        #expect(everyList.map(\.record.id) == hits.map(\.record.id))
        // DOC:begin VectorSearch 8
        try Article.createTable(db)
        try ArticleText.createFTS5Table(db, options: FTS5Options(content: .external(table: "article", rowID: "id")))
        // DOC:end
        for (body, values) in [("the spice trade", [-1, 0, 0] as [Float]), ("salt roads", [0.12, -0.5, 0.3]), ("trade winds", [0, 1, 0])] {
            var article = Article(id: nil, body: body, embedding: try FloatVector(values))
            try article.insert(db)
        }
        // DOC:begin VectorSearch 8

        let results = try Article.hybridSearch(matching: FTS5Pattern(matchingAllTokensIn: "spice trade"), in: ArticleText.self,
                                               nearest: embedding, by: \.embedding, metric: .cosine, k: 10)
            .fetchAll(db)                                  // [HybridMatch<Article>], best first
        // DOC:end
        // The only text match (1) is second by vector, so it beats the nearest vector (2).
        #expect(results.map(\.record.id) == [1, 2, 3])
        #expect(results[0].textRank == 1 && results[0].vectorRank == 2 && results[1].textRank == nil && results[1].vectorRank == 1)
    }
}
