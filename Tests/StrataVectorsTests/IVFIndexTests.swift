import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// IVF indexes: probing every list is the exact answer (through any writes, before and after
/// `updateIVFIndex`); fewer lists trade recall for speed; bad input is a named error and a
/// failed build leaves nothing.
@Suite struct IVFIndexTests {
    /// The exact top k by sorting every distance, ties by rowid.
    static func exact(
        _ db: Connection, _ target: FloatVector, _ metric: VectorMetric, k: Int, filter: String = "1"
    ) throws -> [(rowID: Int64, distance: Double)] {
        let rows: [Row] = try db.query(literal: SQLFragment(sql: "SELECT rowid, embedding FROM doc WHERE embedding IS NOT NULL AND \(filter)"))
        return try rows.map { row -> (rowID: Int64, distance: Double) in
            let vector = try #require(row[1] as FloatVector?)
            return (rowID: row[0], distance: try vector.distance(to: target, metric: metric))
        }
        .sorted { ($0.distance, $0.rowID) < ($1.distance, $1.rowID) }
        .prefix(k).map { $0 }
    }

    @Test func probingEveryListIsExactThroughWritesAndUpdates() throws {
        try PropertyCheck.run("IVF with nprobe = lists equals the exact top k", cases: 25) { random in
            let db = try Connection()
            try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, lang TEXT, embedding BLOB)")
            let dimensions = random.pick([1, 2, 3, 8, 17])
            let palette = try (0..<random.int(1...8)).map { _ in
                try FloatVector((0..<dimensions).map { _ in Float(random.int(-4...4)) / 2 })
            }
            func vector() throws -> FloatVector {
                random.oneIn(3) ? random.pick(palette) : try FloatVector((0..<dimensions).map { _ in Float(random.int(-100...100)) / 10 })
            }
            // Sometimes more rows than a chunk holds (256), so lists span several chunks.
            let rowCount = random.oneIn(4) ? random.int(257...700) : random.int(1...150)
            for _ in 0..<rowCount {
                let embedding: FloatVector? = random.oneIn(10) ? nil : try vector()
                try db.run(literal: "INSERT INTO doc(lang, embedding) VALUES (\(random.pick(["en", "fr"])), \(embedding))")
            }
            guard try db.query("SELECT count(embedding) FROM doc") as Int > 0 else { return }
            let metric = random.pick(VectorMetric.allCases)
            let quantization = random.pick(VectorQuantization.allCases)
            let options = IVFIndexOptions(
                metric: metric, lists: random.pick([nil, 1, 3, 10]), trainingSampleSize: random.pick([nil, 5]),
                iterations: random.int(0...5), seed: random.next(), quantization: quantization)
            let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: options)
            func check(_ when: String) throws {
                let target = try vector()
                let k = random.int(0...20)
                let english = random.oneIn(3)
                // Every list probed and (quantized) every candidate rescored: the exact answer.
                let found = try db.searchIVFIndex(
                    "doc_ivf", nearest: target, k: k, nprobe: index.lists, rescoring: 1_000,
                    among: english ? "SELECT rowid FROM doc WHERE lang = 'en'" : nil)
                let expected = try Self.exact(db, target, metric, k: k, filter: english ? "lang = 'en'" : "1")
                try require(
                    found.map(\.rowID) == expected.map(\.rowID), "\(when) \(metric) \(quantization) k=\(k): \(found.map(\.rowID)) vs \(expected.map(\.rowID))")
                try require(found.map(\.distance) == expected.map(\.distance), "\(when): distances differ")
            }
            try check("after the build")
            for _ in 0..<random.int(0...30) {
                switch random.int(0...3) {
                case 0: try db.run(literal: "INSERT INTO doc(lang, embedding) VALUES ('en', \(try vector()))")
                case 1: try db.run(literal: "UPDATE doc SET embedding = \(try vector()) WHERE id = \(Int64(random.int(1...200)))")
                case 2: try db.run(literal: "DELETE FROM doc WHERE id = \(Int64(random.int(1...200)))")
                default: try db.run(literal: "UPDATE doc SET embedding = NULL, id = -id WHERE id = \(Int64(random.int(1...200)))")
                }
            }
            try check("with pending rows")
            let pending: Int = try db.query("SELECT count(*) FROM doc_ivf_pending")
            let filed = try db.updateIVFIndex("doc_ivf")
            try require(filed <= pending, "filed \(filed) of \(pending) pending")
            try require(try db.query("SELECT count(*) FROM doc_ivf_pending") as Int == 0, "rows still pending")
            // Every vector is filed once, under its row.
            let entries: Int = try db.query("SELECT coalesce(sum(length(\"rows\")), 0) / 8 FROM doc_ivf_entries")
            let vectors: Int = try db.query("SELECT count(embedding) FROM doc")
            try require(entries == vectors, "\(entries) entries for \(vectors) vectors")
            let distinct: Int = try db.query("SELECT count(*) FROM doc WHERE embedding IS NOT NULL")
            try require(distinct == entries, "a row filed twice or missing")
            let largest: Int = try db.query("SELECT coalesce(max(length(\"rows\")), 0) / 8 FROM doc_ivf_entries")
            try require(largest <= 256, "a chunk of \(largest) entries, over its capacity")
            try check("after updateIVFIndex")
        }
    }

    /// Lists are kept in chunks of at most 256 vectors; deleting, moving and rewriting rows across
    /// chunks, then updating, leaves each vector filed once and the flat search exact.
    @Test func chunksOfAFlatIndexStayExactThroughDeletesAndUpdates() throws {
        var random = SeededRandom(seed: 0xC4)
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        func vector() throws -> FloatVector { try FloatVector((0..<4).map { _ in Float(random.int(-50...50)) / 5 }) }
        for _ in 0..<900 { try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try vector()))") }
        for quantization in VectorQuantization.allCases {
            let name = "flat_\(quantization.rawValue)"
            try db.createIVFIndex(name, on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1, quantization: quantization))
            #expect(try db.query(literal: "SELECT count(*) FROM \(identifier: name + "_entries")") as Int == 4) // 256 + 256 + 256 + 132
        }
        for round in 0..<3 {
            for _ in 0..<120 {
                switch random.int(0...3) {
                case 0: try db.run(literal: "DELETE FROM doc WHERE id = \(Int64(random.int(1...1_000)))")
                case 1: try db.run(literal: "UPDATE doc SET embedding = \(try vector()) WHERE id = \(Int64(random.int(1...1_000)))")
                case 2: try db.run(literal: "UPDATE OR IGNORE doc SET id = id + 5000 WHERE id = \(Int64(random.int(1...1_000)))")
                default: try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try vector()))")
                }
            }
            for quantization in VectorQuantization.allCases {
                let name = "flat_\(quantization.rawValue)"
                let target = try vector()
                let expected = try Self.exact(db, target, .l2, k: 15)
                func search() throws -> [(rowID: Int64, distance: Double)] {
                    try db.searchIVFIndex(name, nearest: target, k: 15, nprobe: 1, rescoring: 2_000)
                }
                #expect(try search().map(\.rowID) == expected.map(\.rowID), "round \(round) \(quantization), pending")
                try db.updateIVFIndex(name)
                #expect(try search().map(\.rowID) == expected.map(\.rowID), "round \(round) \(quantization), updated")
                let entries: Int = try db.query(literal: "SELECT sum(length(\"rows\")) / 8 FROM \(identifier: name + "_entries")")
                let rows: Int = try db.query("SELECT count(*) FROM doc")
                #expect(entries == rows, "round \(round) \(quantization): \(entries) filed of \(rows)")
            }
        }
    }

    /// An index in the layout of an earlier Strata (a row per vector) is named as such, and a
    /// chunk whose two BLOBs disagree is a malformed BLOB: neither is read as if it were sound.
    @Test func anOutdatedLayoutAndADamagedChunkAreNamedErrors() throws {
        let db = try indexedDoc("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)") { db in
            try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([1, 2])))")
        }
        try db.execute("UPDATE doc_ivf_entries SET codes = x'00'")
        #expect(throws: VectorError.malformedBlob(bytes: 1, layout: .float32)) {
            try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1, 2]), k: 1, nprobe: 1)
        }
        try db.execute(
            """
            DROP TABLE doc_ivf_entries;
            CREATE TABLE doc_ivf_entries(list INTEGER NOT NULL, "row" INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (list, "row")) WITHOUT ROWID
            """)
        #expect(throws: VectorIndexError.outdatedLayout("doc_ivf")) { try db.ivfIndex(named: "doc_ivf") }
        #expect(throws: VectorIndexError.outdatedLayout("doc_ivf")) {
            try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1, 2]), k: 1, nprobe: 1)
        }
        try db.dropIVFIndex("doc_ivf")
        #expect(try db.query("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'doc_ivf%'") as Int == 0)
    }

    /// A configuration row edited to sizes no build could make (centroids past memory, or an
    /// overflowing product) is no index, never a trap or a huge allocation.
    @Test func aConfigurationSizedPastAnyBuildIsNoIndex() throws {
        for lists in [Int64(1) << 40, Int64(1) << 62, Int64.max] {
            let db = try indexedDoc("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)") { db in
                try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([1, 2])))")
            }
            try db.run("UPDATE doc_ivf_config SET lists = ?", lists)
            #expect(throws: VectorIndexError.noSuchIndex("doc_ivf")) {
                try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1, 2]), k: 1, nprobe: 1)
            }
        }
    }

    @Test func fewerListsStillFindWellSeparatedNeighbours() throws {
        var random = SeededRandom(seed: 0x1F)
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        let dimensions = 16
        let centres = (0..<20).map { _ in (0..<dimensions).map { _ in Float(random.int(-1000...1000)) } }
        for row in 0..<2_000 {
            let centre = centres[row % centres.count]
            let embedding = try FloatVector(centre.map { $0 + Float(random.int(-50...50)) / 10 })
            try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(embedding))")
        }
        let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 20, iterations: 10))
        #expect(index.lists == 20 && index.dimensions == 16)
        var hits = 0, total = 0
        for query in 0..<50 {
            let centre = centres[query % centres.count]
            let target = try FloatVector(centre.map { $0 + Float(random.int(-50...50)) / 10 })
            let found = try db.searchIVFIndex("doc_ivf", nearest: target, k: 10, nprobe: 2).map(\.rowID)
            let expected = try Self.exact(db, target, .l2, k: 10).map(\.rowID)
            hits += Set(found).intersection(expected).count
            total += expected.count
        }
        // Clusters far apart: the nearest centroid's list holds the true neighbours.
        #expect(Double(hits) / Double(total) >= 0.95, "recall@10 \(Double(hits) / Double(total))")
    }

    @Test func quantizedCandidatesRescoredKeepRecall() throws {
        var random = SeededRandom(seed: 0x58)
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        let dimensions = 48
        try db.transaction {
            for _ in 0..<1_000 {
                let embedding = try FloatVector((0..<dimensions).map { _ in Float(random.int(-1000...1000)) / 1000 })
                try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(embedding))")
            }
        }
        for (quantization, floor) in [(VectorQuantization.int8, 0.95), (.bit, 0.5)] {
            for metric in [VectorMetric.l2, .cosine] {
                let name = "doc_\(quantization)_\(metric)"
                try db.createIVFIndex(name, on: "doc", column: "embedding", options: IVFIndexOptions(metric: metric, lists: 1, quantization: quantization))
                var hits = 0, total = 0
                for _ in 0..<12 {
                    let target = try FloatVector((0..<dimensions).map { _ in Float(random.int(-1000...1000)) / 1000 })
                    let found = try db.searchIVFIndex(name, nearest: target, k: 10, nprobe: 1, rescoring: quantization == .int8 ? 4 : 20)
                    let all = try Self.exact(db, target, metric, k: 1_000)
                    let expected = all.prefix(10)
                    hits += Set(found.map(\.rowID)).intersection(expected.map(\.rowID)).count
                    total += expected.count
                    // Rescored: every distance returned is the exact one.
                    let exactDistances = Dictionary(uniqueKeysWithValues: all.map { ($0.rowID, $0.distance) })
                    #expect(found.allSatisfy { exactDistances[$0.rowID] == $0.distance })
                }
                let recall = Double(hits) / Double(total)
                #expect(recall >= floor, "\(quantization) \(metric): recall@10 \(recall)")
            }
        }
        // The codes take a quarter (int8: one byte per dimension and a 4-byte scale) or a 32nd (bits).
        let int8Bytes: Int = try db.query("SELECT length(codes) / (length(\"rows\") / 8) FROM doc_int8_l2_entries LIMIT 1")
        let bitBytes: Int = try db.query("SELECT length(codes) / (length(\"rows\") / 8) FROM doc_bit_l2_entries LIMIT 1")
        #expect(int8Bytes == dimensions + 4 && bitBytes == dimensions / 8)
    }

    @Test func refusalsAreNamedAndLeaveNothing() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("ivf.sqlite")
        let db = try Connection(storageLocation: .onDisk(path))
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        #expect(throws: VectorIndexError.noVectors(table: "doc", column: "embedding")) {
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding")
        }
        try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([1, 2])))")
        try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([1, 2, 3])))")
        #expect(throws: VectorError.wrongDimension(expected: 2, actual: 3)) {
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding")
        }
        try db.execute("UPDATE doc SET embedding = x'0000803f0000803f' WHERE id = 2") // [1, 1]
        try db.execute("INSERT INTO doc(embedding) VALUES (x'010203')")
        #expect(throws: VectorError.malformedBlob(bytes: 3, layout: .float32)) {
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1))
        }
        #expect(throws: VectorIndexError.self) { try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 0)) }
        #expect(throws: VectorIndexError.self) { try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(iterations: -1)) }
        let objects: Int = try db.query("SELECT count(*) FROM sqlite_master WHERE name LIKE 'doc_ivf%'")
        #expect(objects == 0)
        #expect(throws: VectorIndexError.noSuchIndex("doc_ivf")) { try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1, 2]), k: 1, nprobe: 1) }

        try db.execute("DELETE FROM doc WHERE id > 1")
        try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding")
        // The triggers refuse a vector the index could not rank, from any connection.
        let refused = try #require(sqliteError { try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([1, 2, 3])))") })
        #expect(refused.message.contains("2 dimensions"))
        #expect(sqliteError { try db.execute("UPDATE doc SET embedding = 'text'") } != nil)
        #expect(throws: VectorError.wrongDimension(expected: 2, actual: 3)) {
            try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1, 2, 3]), k: 1, nprobe: 1)
        }
        #expect(throws: VectorIndexError.self) { try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1, 2]), k: 1, nprobe: 0) }
        // Another connection finds the index as the file records it.
        let other = try Connection(storageLocation: .onDisk(path))
        let found = try other.ivfIndex(named: "doc_ivf")
        #expect(found.table == "doc" && found.column == "embedding" && found.metric == .l2 && found.dimensions == 2 && found.lists == 1)
        #expect(try other.searchIVFIndex("doc_ivf", nearest: try FloatVector([0, 0]), k: 5, nprobe: 1).map(\.rowID) == [1])
        try other.dropIVFIndex("doc_ivf")
        #expect(try db.query("SELECT count(*) FROM sqlite_master WHERE name LIKE 'doc_ivf%'") as Int == 0)
        try db.run(literal: "INSERT INTO doc(embedding) VALUES (\(try FloatVector([1, 2, 3])))") // no trigger left
    }
}
