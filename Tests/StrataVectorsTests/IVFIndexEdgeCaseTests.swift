import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// The IVF index at its edges: a column named `rowid` does not hide the rowid, a rename to a name
/// that needs quoting is followed, int8 sums past Int32 and float32 rank right, and a parallel
/// search across an update loses no row (each failed before its fix, found by a review).
@Suite struct IVFIndexEdgeCaseTests {
    static func exact(
        _ db: Connection, table: String = "doc", idColumn: String = "id", nearest query: FloatVector, k: Int,
        metric: VectorMetric = .l2
    ) throws -> [Int64] {
        let rows: [Row] = try db.query(literal: "SELECT \(identifier: idColumn), embedding FROM main.\(identifier: table) WHERE embedding IS NOT NULL")
        let ranked = try rows.compactMap { row -> (Double, Int64)? in
            guard let blob: Data = row.value(at: 1), let vector = try? FloatVector(blob: blob) else { return nil }
            return (try vector.distance(to: query, metric: metric), row[0])
        }
        return ranked.sorted { $0 < $1 }.prefix(k).map(\.1)
    }

    // A user column named `rowid` shadows the real rowid in every `SELECT rowid` and in the
    //    triggers' `new.rowid`; the table passes the INTEGER PRIMARY KEY check.
    @Test func aColumnNamedRowidDoesNotHideTheRowid() throws {
        let db = try indexedDoc("CREATE TABLE doc(id INTEGER PRIMARY KEY, rowid TEXT, embedding BLOB)") { db in
            for row in 1...20 {
                try db.run(literal: "INSERT INTO doc(id, rowid, embedding) VALUES (\(Int64(row)), 'r', \(try FloatVector([Float(row), 0])))")
            }
        }
        let query = try FloatVector([3, 0])
        let found = try db.searchIVFIndex("doc_ivf", nearest: query, k: 3, nprobe: 1).map(\.rowID)
        #expect(found == [3, 2, 4])
    }

    // Rename to a name that needs quoting.
    @Test func aRenameToANameThatNeedsQuotingIsFollowed() throws {
        let db = try indexedDoc("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)", lists: 3) { db in
            for row in 1...30 {
                try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row)), \(try FloatVector([Float(row % 7), Float(row / 7)])))")
            }
        }
        try db.execute("ALTER TABLE doc RENAME TO \"my \"\"doc\"\" [x]\"")
        let name = "my \"doc\" [x]"
        #expect(try db.ivfIndex(named: "doc_ivf").table == name)
        let query = try FloatVector([2.5, 3.5])
        try db.run(literal: "INSERT INTO \(identifier: name)(id, embedding) VALUES (99, \(query))")
        #expect(try db.searchIVFIndex("doc_ivf", nearest: query, k: 4, nprobe: 3).map(\.rowID) == (try Self.exact(db, table: name, nearest: query, k: 4)))
        #expect(try db.updateIVFIndex("doc_ivf") == 1)
        #expect(try db.searchIVFIndex("doc_ivf", nearest: query, k: 4, nprobe: 3).map(\.rowID) == (try Self.exact(db, table: name, nearest: query, k: 4)))
    }

    // int8 sums in Int32: Σq′c of 140,000 components of 127×127 is 2.26e9, past Int32.max.
    @Test func int8SumsBeyondInt32AreExact() throws {
        let db = try Connection()
        let dimensions = 140_000
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        let a = try FloatVector([Float](repeating: 1, count: dimensions))
        let b = try FloatVector((0..<dimensions).map { $0 < dimensions / 2 ? Float(1) : 0 })
        try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (1, \(a)), (2, \(b))")
        try db.createIVFIndex(
            "doc_ivf", on: "doc", column: "embedding",
            options: IVFIndexOptions(metric: .innerProduct, lists: 1, quantization: .int8))
        let found = try db.searchIVFIndex("doc_ivf", nearest: a, k: 1, nprobe: 1, rescoring: 1).map(\.rowID)
        let expected = try Self.exact(db, nearest: a, k: 1, metric: .innerProduct)
        #expect(found == expected, "int8 overflow: found \(found), exact \(expected)")
    }

    // int8 l2 as Σq² − 2st·Σq′c + s²Σc² in Float: at |x| ≈ 2e19 (finite, exact path fine) it is
    //    inf − inf = NaN for every code, so the candidates are arbitrary.
    @Test func int8DistancesOfLargeFiniteVectorsRankRight() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        for row in 1...20 {
            let v = try FloatVector([2e19 + Float(row) * 1e18, 2e19, 2e19, 2e19])
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row)), \(v))")
        }
        try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1, quantization: .int8))
        let query = try FloatVector([2e19 + 12 * 1e18, 2e19, 2e19, 2e19])
        let found = try db.searchIVFIndex("doc_ivf", nearest: query, k: 1, nprobe: 1, rescoring: 1).map(\.rowID)
        let expected = try Self.exact(db, nearest: query, k: 1)
        #expect(found == expected, "int8 large: found \(found), exact \(expected)")
    }

    // Parallel search while updateIVFIndex runs (no data changed): a row pending in the spans'
    //    snapshots is skipped there, and filed (not pending) in the final read: it is lost.
    // Shared with SQL functions on the readers' threads; every field is read and written under `lock`
    // (or, for `released`, is a semaphore), which the compiler cannot see.
    final class Barrier: @unchecked Sendable {
        let lock = NSLock()
        var arrivals = 0
        var armed = false
        let released = DispatchSemaphore(value: 0)
        var path = ""
        @discardableResult func set(armed: Bool) -> Int {
            lock.withLock {
                self.armed = armed; return arrivals
            }
        }
    }
    // One per reader connection, touched only on that connection's thread.
    final class Passed: @unchecked Sendable { var passed = false }

    @Test func aParallelSearchAcrossAnUpdateLosesNoRow() async throws {
        let folder = try temporaryFolder("ivf-review")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("doc.sqlite").path
        do {
            let setup = try Connection(storageLocation: .onDisk(path))
            try setup.execute("PRAGMA journal_mode=WAL")
            try setup.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
            for row in 1...400 {
                try setup.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row)), \(try FloatVector([Float(row), 100])))")
            }
            try setup.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1))
            // The best row, pending.
            try setup.run(literal: "INSERT INTO doc(id, embedding) VALUES (1000, \(try FloatVector([0, 0])))")
        }
        let barrier = Barrier()
        barrier.path = path
        let database = try Database(
            storageLocation: .onDisk(path),
            readerConnectionPreparation: { connection in
                let mine = Passed()
                try connection.addScalarFunction(named: "probe_hook", argumentCount: 0) { _, _ in
                    guard !mine.passed else { return .long(1) }
                    mine.passed = true
                    barrier.lock.lock()
                    guard barrier.armed else { barrier.lock.unlock(); return .long(1) }
                    barrier.arrivals += 1
                    let n = barrier.arrivals
                    barrier.lock.unlock()
                    if n == 1 {
                        _ = barrier.released.wait(timeout: .now() + 5)
                    } else if n == 2 {
                        // Both spans hold their snapshots: index maintenance by another connection.
                        // Checked below: the pending row is filed afterwards.
                        if let writer = try? Connection(storageLocation: .onDisk(barrier.path)) { _ = try? writer.updateIVFIndex("doc_ivf") }
                        barrier.released.signal()
                    }
                    return .long(1)
                }
            })
        let query = try FloatVector([0, 0])
        let before = try await database.read { db in try db.searchIVFIndex("doc_ivf", nearest: query, k: 1, nprobe: 1).map(\.rowID) }
        #expect(before == [1000])
        barrier.set(armed: true)
        let parallel = try await database.searchIVFIndex(
            "doc_ivf", nearest: query, k: 1, nprobe: 1,
            among: "SELECT id FROM doc WHERE probe_hook() = 1", parallelism: 2)
        let arrivals = barrier.set(armed: false)
        let after = try await database.read { db in try db.searchIVFIndex("doc_ivf", nearest: query, k: 1, nprobe: 1).map(\.rowID) }
        #expect(arrivals == 2)
        #expect(try await database.read { db in try db.query("SELECT count(*) FROM doc_ivf_pending") as Int? } == 0, "the update ran")
        #expect(after == [1000])
        #expect(parallel.map(\.rowID) == [1000])
        try await database.close()
    }
}
