import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import StrataRecords

/// `nearest(…).probing(index, nprobe:)`: the typed query through an IVF index.
@Suite struct ProbingNearestTests {
    @Test func probingEveryListMatchesTheExactQuery() throws {
        try PropertyCheck.run("probing with nprobe = lists equals the exact nearest query", cases: 20) { random in
            let db = try Connection()
            try VectorNote.createTable(db)
            let dimensions = random.pick([1, 3, 8])
            for index in 0..<random.int(1...80) {
                let embedding = random.oneIn(8) ? nil : try FloatVector((0..<dimensions).map { _ in Float(random.int(-5...5)) })
                var note = VectorNote(id: nil, title: "n\(index % 3)", embedding: embedding)
                try note.insert(db)
            }
            guard try db.query("SELECT count(embedding) FROM vector_note") as Int > 0 else { return }
            let metric = random.pick(VectorMetric.allCases)
            let index = try VectorNote.createIVFIndex(
                db, named: "note_ivf", on: \.embedding,
                options: IVFIndexOptions(
                    metric: metric, lists: random.pick([nil, 2, 7]),
                    quantization: random.pick(VectorQuantization.allCases)))
            let target = try FloatVector((0..<dimensions).map { _ in Float(random.int(-5...5)) })
            let k = random.int(0...15)
            let filtered = random.oneIn(2)
            let query = filtered ? VectorNote.where { $0.title != "n0" } : VectorNote.all()
            let exact = try query.nearest(to: target, by: \.embedding, metric: metric, k: k).fetchAll(db)
            let probed = try query.nearest(to: target, by: \.embedding, metric: metric, k: k).probing("note_ivf", nprobe: index.lists, rescoring: 1_000)
                .fetchAll(db)
            try require(probed.map(\.record) == exact.map(\.record), "\(metric) k=\(k): \(probed.map(\.record.id)) vs \(exact.map(\.record.id))")
            try require(probed.map(\.distance) == exact.map(\.distance), "distances differ")
        }
    }

    @Test func anIndexOverAnotherColumnOrMetricIsRefused() throws {
        let db = try Connection()
        try VectorNote.createTable(db)
        var note = VectorNote(id: nil, title: "a", embedding: try FloatVector([1, 0]))
        try note.insert(db)
        try VectorNote.createIVFIndex(db, named: "note_ivf", on: \.embedding, options: IVFIndexOptions(metric: .cosine))
        let q = try FloatVector([1, 0])
        #expect(throws: RecordQueryError.self) { try VectorNote.nearest(to: q, by: \.embedding, metric: .l2, k: 1).probing("note_ivf").fetchAll(db) }
        #expect(throws: VectorIndexError.noSuchIndex("nope")) {
            try VectorNote.nearest(to: q, by: \.embedding, metric: .cosine, k: 1).probing("nope").fetchAll(db)
        }
        #expect(try VectorNote.nearest(to: q, by: \.embedding, metric: .cosine, k: 1).probing("note_ivf").fetchAll(db).map(\.record.title) == ["a"])
    }
}
