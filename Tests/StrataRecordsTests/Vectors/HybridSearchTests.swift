import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import StrataRecords

@Record(table: "hybrid_doc")
struct HybridDoc: Equatable, Sendable {
    @PrimaryKey var id: Int64?
    var lang: String
    var body: String
    var embedding: FloatVector?
}

/// An external-content FTS5 index of `hybrid_doc`: its rowid is the document's `id`.
@Record(table: "hybrid_doc_text")
struct HybridDocText: Equatable, Sendable {
    @PrimaryKey @Column("rowid") var id: Int64?
    var body: String
}

/// A synced-style table: a TEXT key, indexed through a key map (`externalByKey`).
@Record(table: "hybrid_keyed_doc")
struct HybridKeyedDoc: Equatable, Sendable {
    @PrimaryKey var id: String
    var lang: String
    var body: String
    var embedding: FloatVector?
}

@Record(table: "hybrid_keyed_doc_text")
struct HybridKeyedDocText: Equatable, Sendable {
    @PrimaryKey @Column("rowid") var id: Int64?
    var body: String
}

/// Hybrid search (FTS5 match + exact vector search, fused by reciprocal rank), checked against the
/// same fusion written by hand in SQL: a `FULL OUTER JOIN` of two ranked lists.
@Suite struct HybridSearchTests {
    func corpus(_ docs: [(String, String, [Float]?)]) throws -> Connection {
        let db = try Connection()
        try HybridDoc.createTable(db)
        try HybridDocText.createFTS5Table(db, options: FTS5Options(content: .external(table: "hybrid_doc", rowID: "id")))
        for (lang, body, vector) in docs {
            var doc = HybridDoc(id: nil, lang: lang, body: body, embedding: try vector.map { try FloatVector($0) })
            try doc.insert(db)
        }
        try db.execute("INSERT INTO hybrid_doc_text(hybrid_doc_text) VALUES ('rebuild')")
        return db
    }

    @Test func fusesTextAndVectorRanks() throws {
        let db = try corpus([
            ("en", "spice spice spice", [10, 0]), // 1: best text match, far vector
            ("en", "spice trade", [1, 0]), // 2: in both lists
            ("en", "quiet harbour", [0, 0]), // 3: nearest vector, no text
            ("fr", "spice", [0, 0.5]), // 4: filtered out below
            ("en", "spice", nil) // 5: text only, no vector
        ])
        let pattern = FTS5Pattern(matchingAllTokensIn: "spice")
        let hits = try HybridDoc.where { $0.lang == "en" }
            .hybridSearch(matching: pattern, in: HybridDocText.self, nearest: try FloatVector([0, 0]), by: \.embedding, k: 10)
            .fetchAll(db)
        // Text ranks (bm25, ties by rowid): 1, 5, 2; vector ranks: 3, 2, 1 (5 has no vector).
        let byID = Dictionary(uniqueKeysWithValues: hits.map { ($0.record.id ?? -1, $0) })
        #expect(Set(byID.keys) == [1, 2, 3, 5])
        // Rows in both lists first (1: 1/61 + 1/63, 2: 1/63 + 1/62), then 3 (1/61) before 5 (1/62).
        #expect(hits.map(\.record.id) == [1, 2, 3, 5])
        #expect(byID[1]?.textRank == 1 && byID[1]?.vectorRank == 3 && byID[2]?.textRank == 3)
        #expect(byID[2]?.vectorRank == 2 && byID[2]?.distance == 1)
        #expect(byID[5]?.vectorRank == nil && byID[5]?.distance == nil && byID[5]?.record.body == "spice")
        #expect(byID[3]?.textRank == nil && byID[3]?.vectorRank == 1)
        for hit in hits {
            let expected = (hit.textRank.map { 1 / Double(60 + $0) } ?? 0) + (hit.vectorRank.map { 1 / Double(60 + $0) } ?? 0)
            #expect(hit.score == expected)
        }
        #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >))
        // k cuts the fused list; a nil pattern (no token) leaves the vector list alone.
        let top = try HybridDoc.where { $0.lang == "en" }
            .hybridSearch(matching: pattern, in: HybridDocText.self, nearest: try FloatVector([0, 0]), by: \.embedding, k: 1).fetchAll(db)
        #expect(top.map(\.record.id) == [1])
        // With one candidate per list, only the heads meet: 1 (text) and 3 (vector) tie; rowid decides.
        let heads = try HybridDoc.where { $0.lang == "en" }
            .hybridSearch(matching: pattern, in: HybridDocText.self, nearest: try FloatVector([0, 0]), by: \.embedding, k: 5, candidates: 1)
            .fetchAll(db)
        #expect(heads.map(\.record.id) == [1, 3])
        #expect(heads[0].score == heads[1].score)
        let vectorOnly = try HybridDoc.hybridSearch(
            matching: FTS5Pattern(matchingAllTokensIn: " ?! "), in: HybridDocText.self,
            nearest: try FloatVector([0, 0]), by: \.embedding, k: 2
        ).fetchAll(db)
        #expect(vectorOnly.map(\.record.id) == [3, 4]) // equal distance 0 and 0.5: 3 first
        #expect(vectorOnly.allSatisfy { $0.textRank == nil })
        // Conditions added after the search narrow both lists.
        let french = try HybridDoc.hybridSearch(matching: pattern, in: HybridDocText.self, nearest: try FloatVector([0, 0]), by: \.embedding, k: 5)
            .where { $0.lang == "fr" }.fetchAll(db)
        #expect(french.map(\.record.id) == [4])
        #expect(french.first?.textRank == 1 && french.first?.vectorRank == 1)
    }

    @Test func refusesWhatItCannotAnswer() throws {
        let db = try corpus([("en", "spice", [1, 2])])
        let pattern = FTS5Pattern(matchingAllTokensIn: "spice")
        let q = try FloatVector([0, 0])
        #expect(try HybridDoc.hybridSearch(matching: pattern, in: HybridDocText.self, nearest: q, by: \.embedding, k: 0).fetchAll(db).isEmpty)
        #expect(throws: RecordQueryError.self) {
            try HybridDoc.hybridSearch(matching: pattern, in: HybridDocText.self, nearest: q, by: \.embedding, k: -1).fetchAll(db)
        }
        #expect(throws: RecordQueryError.self) {
            try HybridDoc.hybridSearch(
                matching: pattern, in: HybridDocText.self, nearest: q, by: \.embedding, k: 3,
                fusion: .reciprocalRank(textWeight: .nan)
            ).fetchAll(db)
        }
        #expect(throws: RecordQueryError.self) {
            try HybridDoc.all().limit(2, offset: 0).hybridSearch(matching: pattern, in: HybridDocText.self, nearest: q, by: \.embedding, k: 3).fetchAll(db)
        }
        #expect(throws: VectorError.self) {
            try HybridDoc.hybridSearch(matching: pattern, in: HybridDocText.self, nearest: try FloatVector([0, 0, 0]), by: \.embedding, k: 3).fetchAll(db)
        }
        // Not an FTS5 table: SQLite's error, nothing else.
        #expect(throws: SQLiteError.self) {
            try HybridDoc.all().hybridSearch(matching: pattern, inTable: "hybrid_doc", nearest: q, by: \.embedding, k: 3).fetchAll(db)
        }
    }

    @Test func matchesTheFusionWrittenByHandInSQL() throws {
        let vocabulary = ["spice", "harbour", "quiet", "trade", "select", "café", "e\u{301}te\u{301}", "o'brien", "\"x\""]
        try PropertyCheck.run("hybridSearch equals a FULL OUTER JOIN of the two ranked lists", cases: 40) { random in
            let dimensions = random.pick([1, 2, 3, 5])
            let palette = try (0..<random.int(1...5)).map { _ in
                try FloatVector((0..<dimensions).map { _ in Float(random.int(-2...2)) })
            }
            var docs: [(String, String, [Float]?)] = []
            for _ in 0..<random.int(0...60) {
                let words = (0..<random.int(0...5)).map { _ in random.pick(vocabulary) }
                let noise = random.oneIn(4) ? " " + Gen.text(&random, maxPieces: 3, nul: false) : ""
                let vector = random.oneIn(6) ? nil : random.pick(palette).values
                docs.append((random.pick(["en", "fr"]), words.joined(separator: " ") + noise, vector))
            }
            let db = try corpus(docs)
            try db.addVectorFunctions()
            let target = try FloatVector((0..<dimensions).map { _ in Float(random.int(-2...2)) })
            let metric = random.pick(VectorMetric.allCases)
            let k = random.int(1...12)
            let candidates = random.pick([nil, 1, 3, 20])
            let fusion = HybridFusion.reciprocalRank(
                k: random.pick([60, 0, 1, 10]), textWeight: random.pick([1, 0.5, 2]),
                vectorWeight: random.pick([1, 0.3, 3]))
            let words = (0..<random.int(1...2)).map { _ in random.pick(vocabulary) }.joined(separator: " ")
            let any = random.oneIn(2)
            let pattern = any ? FTS5Pattern(matchingAnyTokenIn: words) : FTS5Pattern(matchingAllTokensIn: words)
            let onlyEnglish = random.oneIn(2)
            let query = onlyEnglish ? HybridDoc.where { $0.lang == "en" } : HybridDoc.all()
            let hits = try query.hybridSearch(
                matching: pattern, in: HybridDocText.self, nearest: target, by: \.embedding,
                metric: metric, k: k, candidates: candidates, fusion: fusion
            ).fetchAll(db)

            let distance =
                switch metric {
                case .l2: "strata_vec_distance_l2(embedding, ?1)"
                case .cosine: "strata_vec_distance_cosine(embedding, ?1)"
                case .innerProduct: "(-strata_vec_inner_product(embedding, ?1))"
                }
            let filter = onlyEnglish ? "lang = 'en'" : "1"
            let sql = """
                WITH vec AS (SELECT id, row_number() OVER (ORDER BY d, id) AS r
                             FROM (SELECT id, \(distance) AS d FROM hybrid_doc WHERE \(filter) AND embedding IS NOT NULL)
                             ORDER BY d, id LIMIT ?3),
                     txt AS (SELECT rowid AS id, row_number() OVER (ORDER BY rank, rowid) AS r FROM hybrid_doc_text
                             WHERE hybrid_doc_text MATCH ?2 AND rowid IN (SELECT id FROM hybrid_doc WHERE \(filter))
                             ORDER BY rank, rowid LIMIT ?3)
                SELECT coalesce(txt.id, vec.id) AS id,
                       coalesce(?5 / (?4 + txt.r), 0.0) + coalesce(?6 / (?4 + vec.r), 0.0) AS score
                FROM txt FULL OUTER JOIN vec ON vec.id = txt.id
                ORDER BY score DESC, id LIMIT ?7
                """
            let arguments: [BindingValue] = [
                target.bindingValue, pattern.map { .text($0.description) } ?? .null,
                .integer(Int64(candidates ?? k)), .integer(Int64(fusion.k)),
                .real(fusion.textWeight), .real(fusion.vectorWeight), .integer(Int64(k))
            ]
            let rows: [Row] = try db.query(literal: SQLFragment(sql: sql, arguments: arguments))
            let expectedIDs: [Int64] = rows.map { $0[0] }
            let expectedScores: [Double] = rows.map { $0[1] }
            try require(
                hits.map { $0.record.id ?? -1 } == expectedIDs,
                "\(metric) k=\(k) \(fusion) pattern \(pattern?.description ?? "nil"): \(hits.map(\.record.id)) vs \(expectedIDs)")
            try require(hits.map(\.score) == expectedScores, "scores \(hits.map(\.score)) vs \(expectedScores)")
            // Each hit's record is the stored row, and a distance is reported exactly when it ranked by vector.
            for hit in hits {
                let stored = try HybridDoc.fetchOne(db, id: hit.record.id ?? -1)
                try require(stored == hit.record, "record \(String(describing: hit.record.id)) differs from the stored row")
                try require((hit.distance == nil) == (hit.vectorRank == nil), "distance without a vector rank")
            }
        }
    }

    @Test func aTextKeyedTableThroughItsKeyMapRanksAsAnIntegerKeyedOne() throws {
        let vocabulary = ["spice", "harbour", "trade", "select", "café", "o'brien"]
        try PropertyCheck.run("hybridSearch over a keyed index equals it over rowids", cases: 25) { random in
            let db = try corpus([])
            try HybridKeyedDoc.createTable(db)
            try HybridKeyedDocText.createFTS5Table(db, options: FTS5Options(content: .externalByKey(table: "hybrid_keyed_doc", key: "id")))
            // Rowids from 1000 and map ids from 1: only the map joins them right. The same empty
            // row in both tables, so both indexes count the same documents (BM25 depends on it).
            try db.execute("INSERT INTO hybrid_doc(id, lang, body, embedding) VALUES (1000, 'xx', '', NULL)")
            try db.execute("INSERT INTO hybrid_keyed_doc(rowid, id, lang, body, embedding) VALUES (1000, 'doc-1000', 'xx', '', NULL)")
            var live: [Int64] = []
            for step in 0..<random.int(0...50) {
                if !live.isEmpty && random.oneIn(5) {
                    let id = random.pick(live)
                    live.removeAll { $0 == id }
                    try db.run("DELETE FROM hybrid_doc WHERE id = ?", id)
                    try db.run("DELETE FROM hybrid_keyed_doc WHERE id = ?", "doc-\(id)")
                    continue
                }
                let body = (0..<random.int(0...4)).map { _ in random.pick(vocabulary) }.joined(separator: " ")
                let vector = random.oneIn(6) ? nil : try FloatVector([Float(random.int(-2...2)), Float(random.int(-2...2))])
                let lang = random.pick(["en", "fr"])
                var doc = HybridDoc(id: nil, lang: lang, body: body, embedding: vector)
                try doc.insert(db)
                let id = try #require(doc.id)
                live.append(id)
                var keyed = HybridKeyedDoc(id: "doc-\(id)", lang: lang, body: body, embedding: vector)
                try keyed.insert(db)
                if random.oneIn(10) { try db.execute("VACUUM") }
                _ = step
            }
            let pattern = FTS5Pattern(matchingAnyTokenIn: (0..<2).map { _ in random.pick(vocabulary) }.joined(separator: " "))
            let target = try FloatVector([Float(random.int(-2...2)), Float(random.int(-2...2))])
            let k = random.int(1...10), candidates = random.pick([nil, 2, 30])
            let english = random.oneIn(2)
            let plain = try (english ? HybridDoc.where { $0.lang == "en" } : HybridDoc.all())
                .hybridSearch(matching: pattern, in: HybridDocText.self, nearest: target, by: \.embedding, k: k, candidates: candidates)
                .fetchAll(db)
            let keyed = try (english ? HybridKeyedDoc.where { $0.lang == "en" } : HybridKeyedDoc.all())
                .hybridSearch(matching: pattern, in: HybridKeyedDocText.self, nearest: target, by: \.embedding, k: k, candidates: candidates)
                .fetchAll(db)
            try require(
                keyed.map(\.record.id) == plain.map { "doc-\($0.record.id ?? -1)" },
                "\(keyed.map(\.record.id)) vs \(plain.map(\.record.id))")
            try require(keyed.map(\.score) == plain.map(\.score) && keyed.map(\.textRank) == plain.map(\.textRank), "scores or ranks differ")
        }
    }

    /// A review's probe: a keyed index over a UNIQUE TEXT column that is not the primary key was
    /// joined on the primary key, so no text match ever counted.
    @Test func aKeyedIndexOverAnotherColumnJoinsOnThatColumn() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE uuid_doc(id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL, body TEXT, embedding BLOB)")
        for (index, body) in ["spice trade", "salt roads", "quiet harbour"].enumerated() {
            try db.run(literal: "INSERT INTO uuid_doc(uuid, body, embedding) VALUES (\("u-\(index)"), \(body), \(try FloatVector([Float(index), 0])))")
        }
        try db.createFTS5Table("uuid_doc_text", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "uuid_doc", key: "uuid")))
        let hits = try UUIDDoc.all().hybridSearch(
            matching: FTS5Pattern(matchingAllTokensIn: "harbour"), inTable: "uuid_doc_text",
            nearest: try FloatVector([0, 0]), by: \.embedding, k: 3
        ).fetchAll(db)
        #expect(hits.first { $0.record.uuid == "u-2" }?.textRank == 1)
        #expect(hits.filter { $0.textRank != nil }.map(\.record.uuid) == ["u-2"])
    }
}

@Record(table: "uuid_doc")
struct UUIDDoc: Equatable, Sendable {
    @PrimaryKey var id: Int64?
    var uuid: String
    var body: String
    var embedding: FloatVector
}
