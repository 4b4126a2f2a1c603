import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// The IVF index and the keyed FTS5 index stay consistent with their tables: replaced and updated
/// rows are filed as they now are, a search reads one snapshot, shadow tables and clashing column
/// names are told apart, rebuild recovers bypassed triggers, and a failed search leaves no
/// transaction (each failed before its fix, found by a review's probes).
@Suite struct SearchIndexConsistencyTests {
    static func vector(_ values: [Float]) throws -> FloatVector { try FloatVector(values) }

    static func indexedDocs(extraColumns: String = "") throws -> (Connection, IVFIndex) {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, name TEXT UNIQUE, lang TEXT, embedding BLOB)")
        for row in 1...4 {
            try db.run(literal: "INSERT INTO doc(id, name, embedding) VALUES (\(Int64(row)), \("n\(row)"), \(try vector([Float(row)])))")
        }
        return (db, try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 2)))
    }

    @Test func aRowReplacedWithoutAVectorIsNotFound() throws {
        let (db, index) = try Self.indexedDocs()
        try db.execute("INSERT OR REPLACE INTO doc(id, name, embedding) VALUES (1, 'n1', NULL)")
        let found = try db.searchIVFIndex("doc_ivf", nearest: try Self.vector([1]), k: 4, nprobe: index.lists)
        #expect(found.map(\.rowID) == [2, 3, 4])
    }

    @Test func aRowReplacedThroughAnotherUniqueColumnIsNotFound() throws {
        let (db, index) = try Self.indexedDocs()
        // Deletes row 1 (name 'n1') without its delete trigger, inserting row 5.
        try db.run(literal: "INSERT OR REPLACE INTO doc(name, embedding) VALUES ('n1', \(try Self.vector([100])))")
        for quantization in VectorQuantization.allCases where quantization == .none {
            let found = try db.searchIVFIndex("doc_ivf", nearest: try Self.vector([1]), k: 2, nprobe: index.lists)
            #expect(found.map(\.rowID) == [2, 3], "\(quantization)")
        }
        try db.updateIVFIndex("doc_ivf")
        #expect(try db.searchIVFIndex("doc_ivf", nearest: try Self.vector([1]), k: 2, nprobe: index.lists).map(\.rowID) == [2, 3])
    }

    @Test func updatingAnotherColumnKeepsRowsFiled() throws {
        let (db, _) = try Self.indexedDocs()
        try db.execute("UPDATE doc SET lang = 'fr'")
        #expect(try db.query("SELECT count(*) FROM doc_ivf_pending") as Int == 0)
        #expect(try db.query("SELECT sum(length(\"rows\")) / 8 FROM doc_ivf_entries") as Int == 4)
    }

    @Test func aSearchReadsOneSnapshot() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("snapshot.sqlite")
        let db = try Connection(storageLocation: .onDisk(path))
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        for row in 1...4 { try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row)), \(try Self.vector([Float(row)])))") }
        let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding")
        try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (5, \(try Self.vector([5])))") // pending
        let other = try Connection(storageLocation: .onDisk(path))
        let moved = try Self.vector([0])
        // A function the search's `among` SELECT calls commits a write from another connection
        // between the search's statements.
        let writes = Locked(0)
        try db.addScalarFunction(named: "commit_elsewhere", argumentCount: 0) { _, _ in
            if writes.withLock({
                $0 += 1; return $0
            }) == 1 {
                try? other.run(literal: "UPDATE doc SET embedding = \(moved) WHERE id = 1")
            }
            return .integer(1)
        }
        let found = try db.searchIVFIndex(
            "doc_ivf", nearest: try Self.vector([0]), k: 3, nprobe: index.lists,
            among: "SELECT rowid FROM doc WHERE commit_elsewhere()")
        // Before or after the write, row 1 is among the three nearest; between, it was lost.
        #expect(found.map(\.rowID) == [1, 2, 3], "\(found)")
        #expect(writes.withLock { $0 } >= 1)
    }

    @Test func anFTS5ShadowTableIsNoIVFIndex() throws {
        let db = try Connection()
        try db.createFTS5Table("notes", columns: ["body"])
        #expect(throws: VectorIndexError.noSuchIndex("notes")) { try db.ivfIndex(named: "notes") }
    }

    @Test func keyedFTS5OverAWithoutRowidTable() throws {
        let db = try makeConnection(
            executing: "CREATE TABLE doc(id TEXT PRIMARY KEY, body TEXT) WITHOUT ROWID; INSERT INTO doc VALUES ('b', 'salt'), ('a', 'spice')")
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
        try db.execute("INSERT INTO doc VALUES ('c', 'spice trade'); UPDATE doc SET id = 'z' WHERE id = 'a'")
        let keys: [String] = try db.query(
            "SELECT m.\"key\" FROM doc_fts JOIN doc_fts_keys AS m ON m.strata_fts_id = doc_fts.rowid WHERE doc_fts MATCH 'spice' ORDER BY 1")
        #expect(keys == ["c", "z"])
        try db.execute("INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test func aColumnNamedLikeTheMapIDIsRefused() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, strata_fts_id TEXT, body TEXT)")
        let error = try #require(
            sqliteError {
                try db.createFTS5Table("doc_fts", columns: ["STRATA_FTS_ID", "body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
            })
        #expect(error.message.contains("strata_fts_id"))
        #expect(try db.query("SELECT count(*) FROM sqlite_master WHERE name LIKE 'doc_fts%'") as Int == 0)
    }

    @Test func rebuildBringsAKeyedIndexBackAfterBypassedTriggers() throws {
        let db = try makeConnection(executing: "CREATE TABLE doc(id TEXT PRIMARY KEY, body TEXT); INSERT INTO doc VALUES ('a', 'alpha'), ('b', 'beta')")
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
        try db.execute("DROP TRIGGER doc_fts_ai; DROP TRIGGER doc_fts_ad")
        try db.execute("INSERT INTO doc VALUES ('c', 'gamma'); DELETE FROM doc WHERE id = 'a'")
        try db.rebuildFTS5Table("doc_fts")
        let gamma: [String] = try db.query(
            "SELECT m.\"key\" FROM doc_fts JOIN doc_fts_keys AS m ON m.strata_fts_id = doc_fts.rowid WHERE doc_fts MATCH 'gamma'")
        #expect(gamma == ["c"])
        #expect(try db.query("SELECT group_concat(\"key\") FROM (SELECT \"key\" FROM doc_fts_keys ORDER BY 1)") as String? == "b,c")
        try db.execute("INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)")
    }

    /// A second review's probe: a key re-keyed by case under a NOCASE key left the old key in the map.
    @Test func aKeyChangedOnlyByCaseUnderNocaseMovesInTheMap() throws {
        let db = try makeConnection(executing: "CREATE TABLE doc(id TEXT PRIMARY KEY COLLATE NOCASE, body TEXT); INSERT INTO doc VALUES ('A', 'hello')")
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
        try db.execute("UPDATE doc SET id = 'a'")
        #expect(try db.query("SELECT group_concat(\"key\") FROM doc_fts_keys") as String? == "a")
        try db.execute("DELETE FROM doc")
        #expect(try db.query("SELECT count(*) FROM doc_fts_keys") as Int == 0)
    }

    /// After a search throws inside its snapshot, the connection is back in autocommit with no
    /// statement left running, and its savepoint never reaches the user's trace.
    @Test func aFailedSearchLeavesNoTransactionAndTracesNoBookkeeping() throws {
        let (db, index) = try Self.indexedDocs()
        let traced = Locked<[String]>([])
        db.trace { sql in traced.withLock { $0.append(sql) } }
        #expect(throws: VectorError.self) {
            try db.searchIVFIndex("doc_ivf", nearest: try Self.vector([1, 2]), k: 1, nprobe: index.lists)
        }
        // A malformed row found mid-scan throws from inside the savepoint.
        try db.execute("DROP TRIGGER doc_ivf_au; UPDATE doc SET embedding = x'01' WHERE id = 2")
        try db.execute("INSERT INTO doc_ivf_pending VALUES (2)")
        #expect(throws: VectorError.self) { try db.searchIVFIndex("doc_ivf", nearest: try Self.vector([1]), k: 3, nprobe: index.lists) }
        #expect(!db.isInTransaction)
        #expect(try db.query("SELECT count(*) FROM doc") as Int == 4) // usable, nothing left running
        #expect(traced.withLock { $0 }.allSatisfy { !$0.uppercased().contains("SAVEPOINT") })
    }
}
