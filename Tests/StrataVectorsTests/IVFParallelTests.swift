import Foundation
import Strata
import StrataTestSupport
import Testing

/// The IVF search across a `Database`'s readers, checked against the serial search on the same
/// file: generated vectors with ties, every quantization and metric, pending rows, `among`, rows
/// gone without their trigger; and under concurrent writes, never a row twice.
@Suite struct IVFParallelTests {
    @Test func theParallelSearchReturnsTheSerialSearchsResult() async throws {
        let directory = try TemporaryDirectory()
        try await PropertyCheck.runAsync("parallel IVF search equals the serial one", cases: 15) { random in
            let database = try Database(path: directory.path("\(UUID().uuidString).sqlite"))
            let dimensions = random.pick([1, 3, 16, 33])
            // Few distinct vectors, so ties are common and must go by rowid.
            let palette = try (0..<random.int(1...6)).map { _ in try FloatVector((0..<dimensions).map { _ in Float(random.int(-3...3)) }) }
            let count = random.oneIn(3) ? random.int(257...900) : random.int(1...200)
            let rows = try (0..<count).map { _ in
                try random.oneIn(2) ? random.pick(palette) : FloatVector((0..<dimensions).map { _ in Float(random.int(-50...50)) / 7 })
            }
            let options = IVFIndexOptions(
                metric: random.pick(VectorMetric.allCases), lists: random.pick([1, 1, 3, 8]),
                quantization: random.pick(VectorQuantization.allCases))
            let churn = random.int(0...3)
            let gone = random.oneIn(4)
            try await database.write { db in
                try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, u TEXT UNIQUE, embedding BLOB)")
                for (position, vector) in rows.enumerated() {
                    try db.run(literal: "INSERT INTO doc(id, u, embedding) VALUES (\(Int64(position * 3 + 1)), \("u\(position)"), \(vector))")
                }
                try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: options)
                // Pending rows: written, moved and deleted since the index was built.
                for step in 0..<churn {
                    try db.run(literal: "UPDATE doc SET embedding = \(rows[step % rows.count]) WHERE id % 5 = \(Int64(step))")
                    try db.run(literal: "DELETE FROM doc WHERE id % 11 = \(Int64(step))")
                }
                // A row removed by REPLACE through the other UNIQUE column: no delete trigger.
                if gone, count > 2 { try db.execute("REPLACE INTO doc(id, u, embedding) VALUES (100000, 'u1', NULL)") }
            }
            let query = try random.oneIn(2) ? random.pick(palette) : FloatVector((0..<dimensions).map { _ in Float(random.int(-20...20)) / 3 })
            let k = random.int(1...12), nprobe = random.int(1...8), rescoring = random.int(1...4)
            let among: SQLFragment? = random.oneIn(3) ? "SELECT id FROM doc WHERE id % 2 = 1" : nil
            let serial = try await database.read { db in
                try db.searchIVFIndex("doc_ivf", nearest: query, k: k, nprobe: nprobe, rescoring: rescoring, among: among)
            }
            let parallel = try await database.searchIVFIndex(
                "doc_ivf", nearest: query, k: k, nprobe: nprobe, rescoring: rescoring,
                among: among, parallelism: random.int(1...4))
            try require(parallel.map(\.rowID) == serial.map(\.rowID), "rows \(parallel.map(\.rowID)) vs \(serial.map(\.rowID)), \(options)")
            try require(parallel.map { $0.distance.bitPattern } == serial.map { $0.distance.bitPattern }, "distances, \(options)")
        }
    }

    @Test func argumentsAndAnEmptyIndexAreAsSerial() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("doc.sqlite"))
        let query = try FloatVector([1, 2])
        try await database.write { db in
            try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (1, \(query))")
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1))
        }
        await #expect(throws: VectorIndexError.noSuchIndex("nope")) { try await database.searchIVFIndex("nope", nearest: query, k: 1, nprobe: 1) }
        await #expect(throws: VectorIndexError.self) { try await database.searchIVFIndex("doc_ivf", nearest: query, k: -1, nprobe: 1) }
        await #expect(throws: VectorError.wrongDimension(expected: 2, actual: 1)) {
            try await database.searchIVFIndex("doc_ivf", nearest: try FloatVector([1]), k: 1, nprobe: 1)
        }
        #expect(try await database.searchIVFIndex("doc_ivf", nearest: query, k: 0, nprobe: 1).isEmpty)
        // Every filed row deleted and the index updated: no chunk left, only pending rows.
        try await database.write { db in
            try db.execute("DELETE FROM doc")
            try db.updateIVFIndex("doc_ivf")
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (7, \(query))")
        }
        #expect(try await database.searchIVFIndex("doc_ivf", nearest: query, k: 3, nprobe: 1, parallelism: 2).map(\.rowID) == [7])
    }

    @Test func concurrentWritesNeverShowARowTwice() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("doc.sqlite"))
        let rowCount = 1_200
        try await database.write { db in
            try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
            for id in 1...rowCount {
                try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(id)), \(try FloatVector([Float(id % 13), Float(id % 7)])))")
            }
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1))
        }
        // Moves rows between chunks (update then compaction) while searches read spans.
        let writer = Task {
            for round in 0..<30 {
                try await database.write { db in
                    try db.run(literal: "UPDATE doc SET embedding = \(try FloatVector([Float(round % 13), 0])) WHERE id % 17 = \(Int64(round % 17))")
                    try db.updateIVFIndex("doc_ivf")
                }
            }
        }
        for _ in 0..<30 {
            let found = try await database.searchIVFIndex("doc_ivf", nearest: try FloatVector([3, 3]), k: 40, nprobe: 1, parallelism: 3)
            #expect(Set(found.map(\.rowID)).count == found.count)
            #expect(found.count == 40)
        }
        try await writer.value
        let settled = try await database.searchIVFIndex("doc_ivf", nearest: try FloatVector([3, 3]), k: 40, nprobe: 1, parallelism: 3)
        let serial = try await database.read { db in try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([3, 3]), k: 40, nprobe: 1) }
        #expect(settled.map(\.rowID) == serial.map(\.rowID))
    }
}
