import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// `strata_vec_top_k` and `strata_vec_ivf_search`: table-valued searches from SQL, checked
/// against ranking every row by hand with the scalar distance functions.
@Suite struct VectorSearchFunctionTests {
    @Test func topKFromSQLEqualsOrderingByDistance() throws {
        try PropertyCheck.run("strata_vec_top_k equals ORDER BY distance LIMIT k", cases: 25) { random in
            let db = try Connection()
            try db.addVectorFunctions()
            let table = random.pick(["doc", "select", "o'brien\u{301}", "a \"b\""])
            let column = random.pick(["embedding", "order", "e\u{301}"])
            try db.run(literal: "CREATE TABLE \(identifier: table)(id INTEGER PRIMARY KEY, \(identifier: column) BLOB)")
            let dimensions = random.pick([1, 3, 8])
            let palette = try (0..<random.int(1...5)).map { _ in try FloatVector((0..<dimensions).map { _ in Float(random.int(-3...3)) }) }
            for _ in 0..<random.int(0...80) {
                let vector: FloatVector? = random.oneIn(8) ? nil : random.pick(palette)
                try db.run(literal: "INSERT INTO \(identifier: table)(\(identifier: column)) VALUES (\(vector))")
            }
            let target = try FloatVector((0..<dimensions).map { _ in Float(random.int(-3...3)) })
            let k = random.int(0...20)
            let metric = random.pick(VectorMetric.allCases)
            let found: [Row] = try db.query(
                literal: "SELECT rowid, distance FROM strata_vec_top_k(\(table), \(column), \(target), \(Int64(k)), \(metric.rawValue))")
            let distance: SQLFragment =
                switch metric {
                case .l2: "strata_vec_distance_l2(\(identifier: column), \(target))"
                case .cosine: "strata_vec_distance_cosine(\(identifier: column), \(target))"
                case .innerProduct: "-strata_vec_inner_product(\(identifier: column), \(target))"
                }
            let expected: [Row] = try db.query(
                literal: "SELECT rowid, \(distance) AS d FROM \(identifier: table) WHERE \(identifier: column) IS NOT NULL ORDER BY d, rowid LIMIT \(Int64(k))")
            try require(found.map { $0[0] as Int64 } == expected.map { $0[0] as Int64 }, "\(metric) k=\(k): rowids differ")
            try require(found.map { $0[1] as Double } == expected.map { $0[1] as Double }, "\(metric) k=\(k): distances differ")
            // Joined back to the table, as SQL users will.
            let joined: [Int64] = try db.query(
                literal: """
                    SELECT t.id FROM strata_vec_top_k(\(table), \(column), \(target), \(Int64(k)), \(metric.rawValue)) AS s
                    JOIN \(identifier: table) AS t ON t.rowid = s.rowid ORDER BY s.distance, s.rowid
                    """)
            try require(joined == expected.map { $0[0] as Int64 }, "join back differs")
        }
    }

    @Test func ivfSearchFromSQLAndBadArguments() throws {
        let db = try Connection()
        try db.addVectorFunctions()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        for row in 0..<40 {
            try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([Float(row % 7), Float(row / 7)])))")
        }
        let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 4))
        let q = try FloatVector([2, 3])
        let viaSQL: [Int64] = try db.query(literal: "SELECT rowid FROM strata_vec_ivf_search('doc_ivf', \(q), 5, \(Int64(index.lists)))")
        let viaSwift = try db.nearestRows(in: "doc", column: "embedding", to: q, k: 5).map(\.rowID)
        #expect(viaSQL == viaSwift)
        #expect(
            try db.searchIVFIndex("doc_ivf", nearest: q, k: 5, nprobe: 1).map(\.rowID)
                == db.query(literal: "SELECT rowid FROM strata_vec_ivf_search('doc_ivf', \(q), 5, 1)"))
        // Bad arguments fail the statement with a message naming them; nothing crashes.
        for (sql, fragment) in [
            ("SELECT * FROM strata_vec_top_k('doc', 'embedding', x'00', 3, 'l2')", "float32"),
            ("SELECT * FROM strata_vec_top_k('doc', 'embedding', 'text', 3, 'l2')", "query vector"),
            ("SELECT * FROM strata_vec_top_k('doc', 'embedding', x'0000803f', 3, 'l2')", "dimension"),
            ("SELECT * FROM strata_vec_top_k('doc', 'embedding', x'0000803f0000803f', -1, 'l2')", "k must be"),
            ("SELECT * FROM strata_vec_top_k('doc', 'embedding', x'0000803f0000803f', 3, 'manhattan')", "metric"),
            ("SELECT * FROM strata_vec_top_k('nope', 'embedding', x'0000803f0000803f', 3, 'l2')", "no such table"),
            ("SELECT * FROM strata_vec_ivf_search('nope', x'0000803f0000803f', 3, 2)", "No IVF index"),
            ("SELECT * FROM strata_vec_ivf_search('doc_ivf', x'0000803f0000803f', 3, 0)", "nprobe")
        ] {
            let error = try #require(sqliteError { let _: [Row] = try db.query(literal: SQLFragment(sql: sql)) }, "\(sql) did not fail")
            #expect(error.message.contains(fragment), "\(sql): \(error.message)")
        }
    }
}
