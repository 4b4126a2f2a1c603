import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// An IVF index over a table whose key is TEXT (as synced tables have): rows filed under the
/// ids of a key map, so `VACUUM`, which renumbers such a table's rowids, cannot point the lists
/// at other rows. Checked against the exact answer, by key, on generated writes.
@Suite struct IVFKeyedTableTests {
    /// The keys of the k nearest rows with a finite vector, computed in Swift.
    static func exactKeys(_ db: Connection, _ query: FloatVector, metric: VectorMetric, k: Int) throws -> [String] {
        let rows: [Row] = try db.query(literal: "SELECT id, embedding FROM doc WHERE id IS NOT NULL AND embedding IS NOT NULL")
        let ranked = try rows.compactMap { row -> (Double, String)? in
            guard let blob: Data = row.value(at: 1), let vector = try? FloatVector(blob: blob), let key: String = row.value(at: 0) else { return nil }
            return (try vector.distance(to: query, metric: metric), key)
        }
        return ranked.sorted { $0 < $1 }.prefix(k).map(\.1)
    }

    /// The keys of the rows a search returned, by the rowids it returned.
    static func keys(of found: [(rowID: Int64, distance: Double)], _ db: Connection) throws -> [String] {
        try found.map { hit in try #require(try db.query("SELECT id FROM doc WHERE rowid = ?", hit.rowID) as String?) }
    }

    @Test func searchesFindTheRightRowsThroughWritesRekeysAndVacuum() throws {
        try PropertyCheck.run("keyed IVF equals the exact answer by key", cases: 30) { random in
            let db = try Connection()
            let collation = random.pick(["", " COLLATE NOCASE"])
            try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY\(collation), n INTEGER, embedding BLOB)")
            let dimensions = random.pick([1, 2, 5, 17])
            func vector() throws -> FloatVector { try FloatVector((0..<dimensions).map { _ in Float(random.int(-30...30)) / 4 }) }
            func key() -> String { random.pick(["a", "A", "b", "ab", "Ab", "k'", "k\u{301}", ""]) + String(random.int(0...60)) }
            for _ in 0..<random.int(1...120) {
                try db.run(literal: "INSERT OR IGNORE INTO doc(id, n, embedding) VALUES (\(key()), \(Int64(random.int(0...9))), \(try vector()))")
            }
            let metric = random.pick(VectorMetric.allCases)
            let quantization = random.pick(VectorQuantization.allCases)
            let index = try db.createIVFIndex(
                "doc_ivf", on: "doc", column: "embedding",
                options: IVFIndexOptions(metric: metric, lists: random.int(1...4), quantization: quantization))
            #expect(index.key == "id")
            for _ in 0..<random.int(0...40) {
                switch random.int(0...7) {
                case 0: try db.run(literal: "INSERT OR IGNORE INTO doc(id, n, embedding) VALUES (\(key()), 1, \(try vector()))")
                case 1: try db.run(literal: "DELETE FROM doc WHERE id = \(key())")
                case 2: try db.run(literal: "UPDATE OR IGNORE doc SET id = \(key()) WHERE id = \(key())") // a re-key
                case 3: try db.run(literal: "UPDATE doc SET embedding = \(try vector()) WHERE n = \(Int64(random.int(0...9)))")
                case 4: try db.run(literal: "INSERT OR REPLACE INTO doc(id, n, embedding) VALUES (\(key()), 2, \(try vector()))")
                case 5: try db.run(literal: "UPDATE doc SET n = n + 1 WHERE id = \(key())") // not the index's business
                case 6: try db.execute("VACUUM")
                default: try db.updateIVFIndex("doc_ivf")
                }
            }
            if random.oneIn(2) { try db.execute("DELETE FROM doc WHERE rowid % 3 = 0; VACUUM") }
            // A row with a NULL key (a TEXT PRIMARY KEY allows it) is never indexed.
            if random.oneIn(3) { try db.run(literal: "INSERT INTO doc(id, n, embedding) VALUES (NULL, 0, \(try vector()))") }
            let query = try vector()
            let k = random.int(1...8)
            // Every list probed and every candidate rescored: the answer must be the exact one.
            let found = try db.searchIVFIndex("doc_ivf", nearest: query, k: k, nprobe: index.lists, rescoring: 10_000)
            let exact = try Self.exactKeys(db, query, metric: metric, k: k)
            try require(found.count == exact.count, "found \(found.count), expected \(exact.count)")
            // Ties may be broken differently (the map's ids, not the keys), so compare distances
            // in order and the keys of rows strictly nearer than the last distance.
            let foundKeys = try Self.keys(of: found, db)
            let rows: [Row] = try db.query(literal: "SELECT id, embedding FROM doc WHERE id IS NOT NULL AND embedding IS NOT NULL")
            var distance: [String: Double] = [:]
            for row in rows {
                if let key: String = row.value(at: 0), let blob: Data = row.value(at: 1) {
                    distance[key] = try FloatVector(blob: blob).distance(to: query, metric: metric)
                }
            }
            try require(foundKeys.map { distance[$0] ?? -1 } == exact.map { distance[$0] ?? -2 }, "distances \(foundKeys) vs \(exact), \(quantization)")
            try require(zip(found, foundKeys).allSatisfy { $0.distance == distance[$1] }, "returned distances")
            try db.updateIVFIndex("doc_ivf")
            try require(
                Set(try Self.keys(of: try db.searchIVFIndex("doc_ivf", nearest: query, k: k, nprobe: index.lists, rescoring: 10_000), db))
                    .map { distance[$0] ?? -1 }.sorted() == exact.map { distance[$0] ?? -2 }.sorted(), "after update")
            // The map holds exactly the table's keys (compared as the table compares them: the
            // map's key has the same collation, so a REPLACE under a NOCASE key spelled
            // otherwise leaves nothing behind).
            let unmapped: Int = try db.query("SELECT count(*) FROM doc WHERE id IS NOT NULL AND id NOT IN (SELECT \"key\" FROM doc_ivf_keys)") ?? -1
            let stale: Int = try db.query("SELECT count(*) FROM doc_ivf_keys WHERE \"key\" NOT IN (SELECT id FROM doc WHERE id IS NOT NULL)") ?? -1
            let mapped: Int = try db.query("SELECT count(*) FROM doc_ivf_keys") ?? -1
            let keys: Int = try db.query("SELECT count(*) FROM doc WHERE id IS NOT NULL") ?? -2
            try require(unmapped == 0 && stale == 0 && mapped == keys, "map: \(unmapped) unmapped, \(stale) stale, \(mapped) mapped of \(keys)")
        }
    }

    /// SQLite's shell dumps a table without an `INTEGER PRIMARY KEY` without its rowids: reloaded,
    /// its rows are numbered again from 1, and the index's tables come back as they were.
    @Test func aReloadedShellDumpRenumbersTheTableNotTheIndex() throws {
        guard SQLiteShell.path != nil else { return }
        let folder = try temporaryFolder("ivf-keyed-dump")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("original.sqlite").path, reloaded = folder.appendingPathComponent("reloaded.sqlite").path
        do {
            let db = try Connection(storageLocation: .onDisk(original))
            try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, embedding BLOB)")
            for row in 1...50 { try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\("k\(row)"), \(try FloatVector([Float(row), 0])))") }
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 3))
            try db.execute("DELETE FROM doc WHERE id IN ('k1', 'k2', 'k3', 'k10', 'k20')")
            try db.updateIVFIndex("doc_ivf")
        }
        let dump = try SQLiteShell.run(database: original, arguments: [".dump"])
        #expect(dump.status == 0)
        #expect(try SQLiteShell.run(database: reloaded, input: dump.output).status == 0)
        let db = try Connection(storageLocation: .onDisk(reloaded))
        #expect(try db.query("SELECT rowid FROM doc WHERE id = 'k4'") as Int64? == 1, "the shell kept the rowids; the test no longer shows the renumbering")
        let found = try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([0, 0]), k: 3, nprobe: 3)
        #expect(try Self.keys(of: found, db) == ["k4", "k5", "k6"])
        #expect(found.map(\.distance) == [4, 5, 6])
        // `among` takes rowids as they are now.
        let among = try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([0, 0]), k: 2, nprobe: 3, among: "SELECT rowid FROM doc WHERE id IN ('k7', 'k9')")
        #expect(try Self.keys(of: among, db) == ["k7", "k9"])
        // Writes after the reload are kept in step by the reloaded triggers.
        try db.run(literal: "INSERT INTO doc(id, embedding) VALUES ('new', \(try FloatVector([0.5, 0])))")
        try db.updateIVFIndex("doc_ivf")
        #expect(try Self.keys(of: try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([0, 0]), k: 2, nprobe: 3), db) == ["new", "k4"])
    }

    @Test func aRenamedKeyColumnIsNamedAndTheIndexDropsClean() throws {
        let db = try indexedDoc("CREATE TABLE doc(id TEXT PRIMARY KEY, embedding BLOB)") { db in
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES ('a', \(try FloatVector([1])))")
        }
        try db.execute("ALTER TABLE doc RENAME COLUMN id TO uid")
        #expect(throws: VectorIndexError.missingColumn(index: "doc_ivf", table: "doc", column: "id")) {
            try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([1]), k: 1, nprobe: 1)
        }
        try db.dropIVFIndex("doc_ivf")
        #expect(try db.schemaReader.entries().allSatisfy { !$0.name.hasPrefix("doc_ivf") })
        try db.run(literal: "INSERT INTO doc(uid, embedding) VALUES ('b', \(try FloatVector([2])))")
    }

    @Test func theParallelSearchOverAKeyedTableIsTheSerialOne() async throws {
        let folder = try temporaryFolder("ivf-keyed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database(path: folder.appendingPathComponent("doc.sqlite").path)
        try await database.write { db in
            try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, embedding BLOB)")
            for row in 1...700 {
                try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(UUID().uuidString), \(try FloatVector([Float(row % 37), Float(row % 11)])))")
            }
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1, quantization: .int8))
            try db.execute("DELETE FROM doc WHERE rowid % 4 = 0")
        }
        try await database.writeWithoutTransaction { db in try db.execute("VACUUM") }
        let query = try FloatVector([3, 4])
        let serial = try await database.read { db in try db.searchIVFIndex("doc_ivf", nearest: query, k: 25, nprobe: 1) }
        let parallel = try await database.searchIVFIndex("doc_ivf", nearest: query, k: 25, nprobe: 1, parallelism: 2)
        #expect(parallel.map(\.rowID) == serial.map(\.rowID) && serial.count == 25)
    }

    @Test func columnsNamedRowidAreSteppedAround() throws {
        let db = try indexedDoc("CREATE TABLE doc(id TEXT PRIMARY KEY, rowid TEXT, embedding BLOB)", lists: 2) { db in
            for row in 1...10 { try db.run(literal: "INSERT INTO doc(id, rowid, embedding) VALUES (\("k\(row)"), 'x', \(try FloatVector([Float(row)])))") }
        }
        let found = try db.searchIVFIndex("doc_ivf", nearest: try FloatVector([3.2]), k: 2, nprobe: 2)
        #expect(found.map(\.rowID) == (try db.query("SELECT _rowid_ FROM doc WHERE id IN ('k3', 'k4') ORDER BY id") as [Int64]))
        try db.execute("CREATE TABLE hidden(id TEXT PRIMARY KEY, rowid, _rowid_, oid, embedding BLOB)")
        try db.run(literal: "INSERT INTO hidden(id, embedding) VALUES ('a', \(try FloatVector([1])))")
        #expect(throws: VectorIndexError.unstableRowIDs(table: "hidden")) { try db.createIVFIndex("hidden_ivf", on: "hidden", column: "embedding") }
    }
}
