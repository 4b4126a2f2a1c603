import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import StrataRecords

@Record(table: "vector_doc")
struct VectorDoc: Equatable, Sendable {
    @PrimaryKey var id: Int64?
    var lang: String
    var embedding: FloatVector
}

@Record(table: "vector_note")
struct VectorNote: Equatable, Sendable {
    @PrimaryKey var id: Int64?
    var title: String
    var embedding: FloatVector?
}

/// Exact k-nearest-neighbour queries on records, checked against sorting every distance by hand.
@Suite struct NearestQueryTests {
    @Test func vectorPropertyIsABlobColumn() throws {
        let db = try Connection()
        try VectorDoc.createTable(db)
        let type: String? = try db.query("SELECT type FROM pragma_table_info('vector_doc') WHERE name = 'embedding'")
        #expect(type == "BLOB")
        var doc = VectorDoc(id: nil, lang: "en", embedding: try FloatVector([1, 2, 3]))
        try doc.insert(db)
        #expect(try VectorDoc.all().fetchAll(db) == [doc])
        let length: Int? = try db.query("SELECT length(embedding) FROM vector_doc")
        #expect(length == 12)
    }

    @Test func topKMatchesSortingAllDistancesWithTiesByRowid() throws {
        try PropertyCheck.run("nearest(to:by:metric:k:) is the sorted prefix of all distances", cases: 30) { random in
            let db = try Connection()
            try VectorDoc.createTable(db)
            let dimensions = random.pick([1, 2, 3, 8, 17, 64])
            let count = random.int(0...120)
            // Few distinct vectors, so equal distances are common and ties must go by rowid.
            let palette = try (0..<random.int(1...6)).map { _ in
                try FloatVector((0..<dimensions).map { _ in Float(random.int(-3...3)) })
            }
            var docs: [VectorDoc] = []
            for _ in 0..<count {
                var doc = VectorDoc(id: nil, lang: random.pick(["en", "fr"]), embedding: random.pick(palette))
                try doc.insert(db)
                docs.append(doc)
            }
            let target = try FloatVector((0..<dimensions).map { _ in Float(random.int(-3...3)) })
            let k = random.int(0...count + 3)
            let metric = random.pick(VectorMetric.allCases)
            let onlyEnglish = random.oneIn(2)
            let query = onlyEnglish ? VectorDoc.where { $0.lang == "en" } : VectorDoc.all()
            let result = try query.nearest(to: target, by: \.embedding, metric: metric, k: k).fetchAll(db)

            let expected = try docs.filter { !onlyEnglish || $0.lang == "en" }
                .map { (doc: $0, distance: try $0.embedding.distance(to: target, metric: metric)) }
                .sorted { ($0.distance, $0.doc.id ?? 0) < ($1.distance, $1.doc.id ?? 0) }
                .prefix(k)
            try require(
                result.map(\.record) == expected.map(\.doc),
                "\(metric) k=\(k): \(result.map(\.record.id)) vs \(expected.map(\.doc.id))")
            try require(result.map(\.distance) == expected.map(\.distance), "distances differ")
        }
    }

    @Test func nullVectorsAreSkippedAndWhereComposes() throws {
        let db = try Connection()
        try VectorNote.createTable(db)
        for (title, vector) in [("a", [0, 0] as [Float]?), ("b", nil), ("c", [3, 4]), ("d", [1, 1]), ("e", nil)] {
            var note = VectorNote(id: nil, title: title, embedding: try vector.map { try FloatVector($0) })
            try note.insert(db)
        }
        let origin = try FloatVector([0, 0])
        let all = try VectorNote.nearest(to: origin, by: \.embedding, k: 10).fetchAll(db)
        #expect(all.map(\.record.title) == ["a", "d", "c"])
        #expect(all.map(\.distance) == [0, Double(Float(2).squareRoot()), 5]) // float32 sums, as sqlite-vec
        let filtered = try VectorNote.nearest(to: origin, by: \.embedding, k: 1).where { $0.title != "a" }.fetchAll(db)
        #expect(filtered.map(\.record.title) == ["d"])
        let nearest = VectorNote.where { $0.title > "a" }.nearest(to: origin, by: \.embedding, metric: .cosine, k: 2)
        #expect(nearest.sql.contains(#"WHERE "vector_note"."title" > ?"#))
        #expect(!nearest.sql.contains("ORDER BY"))
        #expect(try nearest.fetchAll(db).map(\.record.title) == ["c", "d"])
    }

    @Test func wrongDimensionsAndMalformedBlobsAreNamedErrors() throws {
        let db = try Connection()
        try VectorDoc.createTable(db)
        var doc = VectorDoc(id: nil, lang: "en", embedding: try FloatVector([1, 2, 3]))
        try doc.insert(db)
        #expect(throws: VectorError.wrongDimension(expected: 2, actual: 3)) {
            try VectorDoc.nearest(to: try FloatVector([1, 2]), by: \.embedding, k: 3).fetchAll(db)
        }
        try db.execute("UPDATE vector_doc SET embedding = x'0102030405'")
        #expect(throws: VectorError.malformedBlob(bytes: 5, layout: .float32)) {
            try VectorDoc.nearest(to: try FloatVector([1, 2]), by: \.embedding, k: 3).fetchAll(db)
        }
        try db.execute("UPDATE vector_doc SET embedding = x'0000c07f0000803f'")
        #expect(throws: VectorError.nonFinite(index: 0)) {
            try VectorDoc.nearest(to: try FloatVector([1, 2]), by: \.embedding, k: 3).fetchAll(db)
        }
        try db.execute("UPDATE vector_doc SET embedding = 'text'")
        #expect(throws: RecordError.self) {
            try VectorDoc.nearest(to: try FloatVector([1, 2]), by: \.embedding, k: 3).fetchAll(db)
        }
    }

    @Test func queriesNearestCannotRankAreRefused() throws {
        let db = try Connection()
        try VectorDoc.createTable(db)
        let target = try FloatVector([1])
        #expect(throws: RecordQueryError.self) { try VectorDoc.limit(3).nearest(to: target, by: \.embedding, k: 2).fetchAll(db) }
        #expect(throws: RecordQueryError.self) { try VectorDoc.nearest(to: target, by: \.embedding, k: -1).fetchAll(db) }
        #expect(try VectorDoc.nearest(to: target, by: \.embedding, k: 0).fetchAll(db).isEmpty)
        // An ORDER BY on the base query is replaced by distance.
        #expect(try VectorDoc.order(by: \.lang).nearest(to: target, by: \.embedding, k: 2).fetchAll(db).isEmpty)
    }
}
