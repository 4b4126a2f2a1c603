import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// The chunked IVF lists: `among` matches as SQL's `IN` does, damaged chunks are named as such
/// (never read as sound, never grown by an update), quantized candidates of rows gone without
/// their trigger give way to the next row, and churn is compacted into full chunks (each found by
/// a review of the chunked lists).
@Suite struct IVFChunkedListTests {
    static func docs(count: Int = 20, quantization: VectorQuantization = .none) throws -> Connection {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, u TEXT UNIQUE, embedding BLOB)")
        for row in 1...count {
            try db.run(literal: "INSERT INTO doc(id, u, embedding) VALUES (\(Int64(row)), \("u\(row)"), \(try FloatVector([Float(row), 0])))")
        }
        try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1, quantization: quantization))
        return db
    }

    func search(_ db: Connection, among: SQLFragment? = nil, k: Int = 3, rescoring: Int = 8) throws -> [Int64] {
        try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([0, 0]), k: k, nprobe: 1, rescoring: rescoring, among: among).map(\.rowID)
    }

    @Test func amongMatchesAsSQLsInDoesForFiledAndPendingRows() throws {
        let db = try Self.docs()
        for (select, expected) in [
            ("SELECT ' 5'", [5]), ("SELECT '5 '", [5]), ("SELECT '0x10'", []), ("SELECT 5.0", [5]),
            ("SELECT NULL UNION ALL SELECT 6", [6]), ("SELECT 7 UNION ALL SELECT 7", [7])
        ] as [(String, [Int64])] {
            let sql: [Int64] = try db.query(SQL("SELECT rowid FROM doc WHERE rowid IN (\(select)) ORDER BY rowid"))
            #expect(sql == expected, "\(select): SQLite itself")
            #expect(try search(db, among: SQLFragment(sql: select)) == expected, "\(select), filed")
        }
        try db.run(literal: "UPDATE doc SET embedding = \(try FloatVector([5, 0])) WHERE id = 5") // pending now
        #expect(try search(db, among: "SELECT ' 5'") == [5])
    }

    @Test func aChunkStoredAsTextIsAMalformedBlobNotAStaleRow() throws {
        let db = try Self.docs(count: 300)
        try db.run(literal: "UPDATE doc SET embedding = \(try FloatVector([1, 1])) WHERE id = 3")
        try db.execute("UPDATE doc_ivf_entries SET codes = CAST(codes AS TEXT) WHERE rowid = (SELECT min(rowid) FROM doc_ivf_entries)")
        #expect(throws: VectorError.self) { try db.updateIVFIndex("doc_ivf") }
        #expect(throws: VectorError.self) { try search(db) }
        #expect(try db.query("SELECT count(*) FROM doc_ivf_pending") as Int == 1, "the failed update changed nothing")
    }

    @Test func anUpdateDoesNotGrowADamagedChunk() throws {
        let db = try Self.docs(count: 10)
        try db.execute("UPDATE doc_ivf_entries SET codes = substr(codes, 1, length(codes) - 1)")
        let before: Data = try #require(try db.query("SELECT codes FROM doc_ivf_entries"))
        try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (11, \(try FloatVector([11, 0])))")
        #expect(throws: VectorError.self) { try db.updateIVFIndex("doc_ivf") }
        #expect(try db.query("SELECT codes FROM doc_ivf_entries") as Data? == before)
    }

    @Test func aQuantizedCandidateGoneWithoutItsTriggerGivesWayToTheNextRow() throws {
        for quantization in [VectorQuantization.int8, .bit] {
            let db = try Self.docs(quantization: quantization)
            // Removes row 1 through the UNIQUE column, without its delete trigger; adds row 21.
            try db.run(literal: "INSERT OR REPLACE INTO doc(u, embedding) VALUES ('u1', \(try FloatVector([100, 0])))")
            #expect(try search(db, k: 1, rescoring: 1) == [2], "\(quantization), pending")
            try db.updateIVFIndex("doc_ivf")
            #expect(try search(db, k: 1, rescoring: 1) == [2], "\(quantization), updated")
        }
    }

    @Test func churnIsCompactedIntoFullChunks() throws {
        var random = SeededRandom(seed: 0xC0)
        let db = try Self.docs(count: 1_000)
        try db.addVectorFunctions()
        for _ in 0..<3 {
            // Rows taken out of every chunk leave them part full; new rows go to the last one.
            try db.execute("DELETE FROM doc WHERE id IN (SELECT id FROM doc ORDER BY random() LIMIT 200)")
            for _ in 0..<150 {
                try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([Float(random.int(0...2_000)), 1])))")
            }
            try db.updateIVFIndex("doc_ivf")
            let rows: Int = try db.query("SELECT count(*) FROM doc")
            #expect(try db.query("SELECT sum(length(\"rows\")) / 8 FROM doc_ivf_entries") as Int == rows)
            #expect(try db.query("SELECT count(*) FROM doc_ivf_entries") as Int == (rows + 255) / 256)
            let exact: [Int64] = try db.query(literal: "SELECT id FROM doc ORDER BY strata_vec_distance_l2(embedding, \(try FloatVector([0, 0]))), id LIMIT 3")
            #expect(try search(db) == exact)
        }
    }
}
