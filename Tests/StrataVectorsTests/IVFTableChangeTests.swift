import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// An IVF index through what happens to its table besides writes: `VACUUM`, a stored vector
/// with a NaN or an infinity, a TEMP table of the same name, and a rename. Each used to give
/// wrong rows or an index that every search refused.
@Suite struct IVFTableChangeTests {
    static let nan = "x'0000c07f0000803f'" // [NaN, 1] as little-endian float32
    static let infinity = "x'0000807f00000000'" // [+inf, 0]

    static func docs(count: Int, lists: Int = 3, quantization: VectorQuantization = .none) throws -> Connection {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        for row in 1...count {
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row)), \(try FloatVector([Float(row % 7), Float(row / 7)])))")
        }
        try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: lists, quantization: quantization))
        return db
    }

    /// The k nearest rows with a finite vector, computed in Swift from the table.
    static func exact(_ db: Connection, table: String = "doc", nearest query: FloatVector, k: Int) throws -> [Int64] {
        let rows: [Row] = try db.query(literal: "SELECT id, embedding FROM main.\(identifier: table) WHERE embedding IS NOT NULL")
        let ranked = try rows.compactMap { row -> (Double, Int64)? in
            guard let blob: Data = row.value(at: 1), let vector = try? FloatVector(blob: blob) else { return nil }
            return (try vector.distance(to: query, metric: .l2), row[0])
        }
        return ranked.sorted { $0 < $1 }.prefix(k).map(\.1)
    }

    static func search(_ db: Connection, _ query: FloatVector, k: Int, name: String = "doc_ivf") throws -> [Int64] {
        try db.searchIVFIndex(name, nearest: query, k: k, nprobe: 3).map(\.rowID)
    }

    @Test func aTableWithNothingToNameItsRowsByIsRefused() throws {
        let db = try Connection()
        let vector = try FloatVector([1, 2])
        for (table, schema) in [
            ("plain", "CREATE TABLE plain(id TEXT, embedding BLOB)"),
            ("pair", "CREATE TABLE pair(a TEXT, b TEXT, embedding BLOB, PRIMARY KEY (a, b))"),
            ("keyed", "CREATE TABLE keyed(id TEXT PRIMARY KEY, embedding BLOB) WITHOUT ROWID")
        ] {
            try db.execute(schema)
            try db.run(literal: "INSERT INTO \(identifier: table)(\(identifier: table == "pair" ? "a" : "id"), embedding) VALUES ('1', \(vector))")
            #expect(throws: VectorIndexError.unstableRowIDs(table: table)) {
                try db.createIVFIndex("\(table)_ivf", on: table, column: "embedding", options: IVFIndexOptions(lists: 1))
            }
            #expect(try db.schemaReader.entries().allSatisfy { !$0.name.hasPrefix("\(table)_ivf") }, "\(table): nothing created")
        }
        try db.execute("CREATE VIEW seen AS SELECT rowid, embedding FROM plain")
        #expect(throws: VectorIndexError.unstableRowIDs(table: "seen")) { try db.createIVFIndex("seen_ivf", on: "seen", column: "embedding") }
        #expect(VectorIndexError.unstableRowIDs(table: "plain").description.contains("INTEGER PRIMARY KEY"))
        // As a table constraint, a descending key is an alias: filed by rowid, no map.
        try db.execute("CREATE TABLE quirk(id INTEGER, embedding BLOB, PRIMARY KEY (id DESC))")
        try db.run(literal: "INSERT INTO quirk(embedding) VALUES (\(vector))")
        #expect(try db.createIVFIndex("quirk_ivf", on: "quirk", column: "embedding", options: IVFIndexOptions(lists: 1)).key == nil)
        // As a column constraint it is not (SQLite's quirk): the key is mapped.
        try db.execute("CREATE TABLE quirk2(id INTEGER PRIMARY KEY DESC, embedding BLOB)")
        try db.run(literal: "INSERT INTO quirk2(id, embedding) VALUES (5, \(vector))")
        #expect(try db.createIVFIndex("quirk2_ivf", on: "quirk2", column: "embedding", options: IVFIndexOptions(lists: 1)).key == "id")
        #expect(try db.searchIVFIndex("quirk2_ivf", nearest: vector, k: 1, nprobe: 1).map(\.rowID) == db.query("SELECT rowid FROM quirk2 WHERE id = 5"))
    }

    @Test func searchesStayExactThroughDeletesAndVacuum() throws {
        try PropertyCheck.run("IVF through VACUUM", cases: 12) { random in
            let db = try Self.docs(count: random.int(20...120))
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("ivf-vacuum-\(UUID().uuidString).sqlite").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try db.execute("DELETE FROM doc WHERE id % \(random.int(2...5)) = 0")
            if random.oneIn(2) { try db.updateIVFIndex("doc_ivf") }
            try db.execute("VACUUM")
            try db.run(literal: "VACUUM INTO \(path)")
            let copy = try Connection(storageLocation: .onDisk(path))
            let query = try FloatVector([Float(random.int(0...6)), Float(random.int(0...17))])
            for connection in [db, copy] {
                // nprobe covers every list, so the index must agree with the table exactly.
                let found = try Self.search(connection, query, k: 5)
                let expected = try Self.exact(connection, nearest: query, k: 5)
                try require(Set(found) == Set(expected), "found \(found), expected \(expected)")
            }
        }
    }

    @Test(arguments: VectorQuantization.allCases)
    func aNonFiniteVectorIsPassedOverNeverFiled(quantization: VectorQuantization) throws {
        let db = try Self.docs(count: 40, quantization: quantization)
        let query = try FloatVector([1, 1])
        // Written past the triggers' size check, as any SQL client can.
        try db.execute("UPDATE doc SET embedding = \(Self.nan) WHERE id = 8; UPDATE doc SET embedding = \(Self.infinity) WHERE id = 15")
        try db.execute("INSERT INTO doc(id, embedding) VALUES (100, \(Self.nan))")
        let expected = try Self.exact(db, nearest: query, k: 6)
        #expect(!expected.contains(8) && !expected.contains(15))
        #expect(Set(try Self.search(db, query, k: 6)) == Set(expected), "pending")
        #expect(try db.updateIVFIndex("doc_ivf") == 0)
        #expect(try db.query("SELECT count(*) FROM doc_ivf_pending") as Int == 0)
        #expect(try db.query("SELECT sum(length(\"rows\")) / 8 FROM doc_ivf_entries") as Int == 38)
        #expect(Set(try Self.search(db, query, k: 6)) == Set(expected), "filed")
        // Made finite again, the row is queued, found and filed as any other.
        try db.run(literal: "UPDATE doc SET embedding = \(try FloatVector([1, 1])) WHERE id = 8")
        #expect(try Self.search(db, query, k: 1) == [8])
        try db.updateIVFIndex("doc_ivf")
        #expect(try Self.search(db, query, k: 1) == [8])
        // An index built over a table that already has such a row leaves it out.
        try db.dropIVFIndex("doc_ivf")
        try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 3, quantization: quantization))
        #expect(try db.query("SELECT sum(length(\"rows\")) / 8 FROM doc_ivf_entries") as Int == 39)
    }

    @Test func tempTablesOfTheSameNamesAreNotTheIndexs() throws {
        let db = try Connection()
        // Shadows in place before the index exists and while it is used.
        try db.execute(
            """
            CREATE TEMP TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB);
            CREATE TEMP TABLE doc_ivf_pending("row" INTEGER PRIMARY KEY);
            CREATE TABLE main.doc(id INTEGER PRIMARY KEY, embedding BLOB)
            """)
        for row in 1...30 {
            try db.run(literal: "INSERT INTO main.doc(id, embedding) VALUES (\(Int64(row)), \(try FloatVector([Float(row), 0])))")
            try db.run(literal: "INSERT INTO temp.doc(id, embedding) VALUES (\(Int64(row)), \(try FloatVector([Float(-row), 5])))")
        }
        let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 3))
        #expect(index.table == "doc")
        try db.execute(
            """
            CREATE TEMP TABLE doc_ivf_entries(list, "rows", codes);
            CREATE TEMP TABLE doc_ivf_config(id, "table", "column", metric, dimensions, lists, quantization);
            INSERT INTO temp.doc_ivf_config VALUES (1, 'doc', 'embedding', 'l2', 9, 9, 'none')
            """)
        let query = try FloatVector([0, 0])
        #expect(try Self.search(db, query, k: 3) == [1, 2, 3])
        try db.run(literal: "INSERT INTO main.doc(id, embedding) VALUES (31, \(try FloatVector([0.5, 0])))")
        try db.run(literal: "INSERT INTO temp.doc(id, embedding) VALUES (32, \(try FloatVector([0, 0])))")
        #expect(try db.query("SELECT count(*) FROM main.doc_ivf_pending") as Int == 1)
        #expect(try db.query("SELECT count(*) FROM temp.doc_ivf_pending") as Int == 0)
        #expect(try Self.search(db, query, k: 3) == [31, 1, 2])
        #expect(try db.updateIVFIndex("doc_ivf") == 1)
        #expect(try Self.search(db, query, k: 3) == [31, 1, 2])
        #expect(try db.query("SELECT count(*) FROM temp.doc_ivf_entries") as Int == 0)
        try db.dropIVFIndex("doc_ivf")
        #expect(try db.query("SELECT count(*) FROM sqlite_temp_master WHERE name LIKE 'doc%'") as Int == 4)
    }

    @Test func aRenamedTableIsFollowedAndARenamedColumnIsNamed() throws {
        let db = try Self.docs(count: 30)
        let query = try FloatVector([2.5, 3.5])
        let before = try Self.search(db, query, k: 4)
        try db.execute("ALTER TABLE doc RENAME TO passage")
        #expect(try db.ivfIndex(named: "doc_ivf").table == "passage")
        #expect(try Self.search(db, query, k: 4) == before)
        try db.run(literal: "INSERT INTO passage(id, embedding) VALUES (99, \(query))")
        #expect(try Self.search(db, query, k: 1) == [99])
        #expect(try db.updateIVFIndex("doc_ivf") == 1)
        #expect(try Self.search(db, query, k: 4) == Self.exact(db, table: "passage", nearest: query, k: 4))
        #expect(try db.searchIVFIndex("doc_ivf", nearest: query, k: 2, nprobe: 3, among: "SELECT 99").map(\.rowID) == [99])

        try db.execute("ALTER TABLE passage RENAME COLUMN embedding TO vector")
        #expect(throws: VectorIndexError.missingColumn(index: "doc_ivf", table: "passage", column: "embedding")) {
            try Self.search(db, query, k: 1)
        }
        #expect(throws: VectorIndexError.self) { try db.updateIVFIndex("doc_ivf") }
        try db.dropIVFIndex("doc_ivf")
        #expect(try db.schemaReader.entries().allSatisfy { !$0.name.hasPrefix("doc_ivf") })
        try db.createIVFIndex("doc_ivf", on: "passage", column: "vector", options: IVFIndexOptions(lists: 3))
        #expect(try Self.search(db, query, k: 1) == [99])
    }
}
