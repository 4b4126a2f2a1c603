import Foundation
import StrataSQift
import Strata
@testable import StrataCore
@testable import StrataVectors
import StrataTestSupport
import Testing

/// The keyed IVF index at its edges: dropping an index drops no table not its own, a re-key is not
/// refused by a stale map entry (in the IVF and the keyed FTS5 maps), and every update moves the
/// generation a parallel search compares across its reads (each failed before its fix, found by a
/// review).
@Suite struct IVFKeyedIndexEdgeCaseTests {
    /// Exact k nearest by brute force over the table's true rowids: (rowid, distance), by distance then rowid.
    static func exact(
        _ db: Connection, table: String, column: String, rowid: String = "rowid", filter: String? = nil,
        _ query: FloatVector, metric: VectorMetric, k: Int
    ) throws -> [(Int64, Double)] {
        let sql =
            "SELECT \(rowid), \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
            + (filter.map { " AND (\($0))" } ?? "")
        let rows: [Row] = try db.query(literal: SQLFragment(sql: sql))
        let ranked = try rows.compactMap { row -> (Int64, Double)? in
            guard let id: Int64 = row.value(at: 0), let blob: Data = row.value(at: 1) else { return nil }
            return (id, try FloatVector(blob: blob).distance(to: query, metric: metric))
        }
        return Array(ranked.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(k))
    }

    /// Compares distances in order (ties may be broken otherwise) and checks each returned row's distance.
    static func check(
        _ db: Connection, _ found: [(rowID: Int64, distance: Double)], _ exact: [(Int64, Double)],
        table: String, column: String, rowid: String = "rowid", query: FloatVector, metric: VectorMetric,
        _ label: String
    ) throws {
        #expect(found.count == exact.count, "\(label): found \(found.count) vs exact \(exact.count)")
        #expect(Set(found.map(\.rowID)).count == found.count, "\(label): duplicates \(found.map(\.rowID))")
        let close = zip(found.map(\.distance), exact.map(\.1)).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) }
        #expect(close, "\(label): distances \(found.map(\.distance)) vs \(exact.map(\.1)) rows \(found.map(\.rowID)) vs \(exact.map(\.0))")
        for hit in found {
            let blob: Data? = try db.query(
                literal: SQLFragment(sql: "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) WHERE \(rowid) = \(hit.rowID)"))
            guard let blob else { Issue.record("\(label): rowid \(hit.rowID) not in table"); continue }
            let actual = try FloatVector(blob: blob).distance(to: query, metric: metric)
            #expect(abs(actual - hit.distance) <= 1e-9 * max(1, abs(actual)), "\(label): rowid \(hit.rowID) returned \(hit.distance), actual \(actual)")
        }
    }

    static func vec(_ values: [Float]) throws -> FloatVector { try FloatVector(values) }

    /// Checks doc_ivf's five nearest (one list probed, rescored) against the exact five of doc.
    static func checkNearestFive(_ db: Connection, to query: FloatVector, _ label: String) throws {
        let found = try db.searchIVFIndex("doc_ivf", nearest: query, k: 5, nprobe: 1, rescoring: 1000)
        let exact = try Self.exact(db, table: "doc", column: "embedding", query, metric: .l2, k: 5)
        try Self.check(db, found, exact, table: "doc", column: "embedding", query: query, metric: .l2, label)
    }

    @Test func dropOfUnkeyedIndexKeepsAUsersKeysTable() throws {
        let db = try indexedDoc("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)") { db in
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (1, \(try Self.vec([1, 2])))")
        }
        // A user's own table, which merely shares the name's shape.
        try db.execute("CREATE TABLE doc_ivf_keys(note TEXT); INSERT INTO doc_ivf_keys VALUES ('precious')")
        try db.dropIVFIndex("doc_ivf")
        let left: Int? = try? db.query(literal: SQLFragment(sql: "SELECT count(*) FROM doc_ivf_keys"))
        #expect(left == 1, "the user's table doc_ivf_keys was dropped by dropIVFIndex of an unkeyed index")
    }

    @Test func rekeyAfterNocaseReplaceIsNotRefused() throws {
        let db = try indexedDoc("CREATE TABLE doc(id TEXT PRIMARY KEY COLLATE NOCASE, embedding BLOB)") { db in
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES ('a', \(try Self.vec([1, 0]))), ('b', \(try Self.vec([0, 1])))")
        }
        // A sync pull re-spelling the key: REPLACE removes 'a' without its delete trigger.
        try db.run(literal: "INSERT OR REPLACE INTO doc(id, embedding) VALUES ('A', \(try Self.vec([2, 0])))")
        let mapped: [String] = try db.query(literal: SQLFragment(sql: "SELECT \"key\" FROM doc_ivf_keys ORDER BY 1"))
        #expect(mapped == ["a", "b"], "the map tells keys apart as the NOCASE table does")
        // A legitimate update: spelling it back.
        var error: (any Error)?
        do { try db.execute("UPDATE doc SET id = 'a' WHERE id = 'A'") } catch let e { error = e }
        #expect(error == nil, "UPDATE refused: \(String(describing: error))")
        let query = try Self.vec([1, 0])
        try Self.checkNearestFive(db, to: query, "nocase")
    }

    @Test func rekeyOntoAKeyGoneThroughAnotherUniqueIsNotRefused() throws {
        let db = try indexedDoc("CREATE TABLE doc(id TEXT PRIMARY KEY, u INTEGER UNIQUE, embedding BLOB)") { db in
            try db.run(literal: "INSERT INTO doc(id, u, embedding) VALUES ('a', 1, \(try Self.vec([1, 0]))), ('b', 2, \(try Self.vec([0, 1])))")
        }
        // REPLACE through u removes 'a' without its delete trigger; the map keeps 'a'.
        try db.run(literal: "INSERT OR REPLACE INTO doc(id, u, embedding) VALUES ('c', 1, \(try Self.vec([3, 3])))")
        try db.updateIVFIndex("doc_ivf")
        var error: (any Error)?
        do { try db.execute("UPDATE doc SET id = 'a' WHERE id = 'b'") } catch let e { error = e }
        #expect(error == nil, "UPDATE refused: \(String(describing: error))")
        // Also an upsert that re-keys.
        error = nil
        try db.run(literal: "INSERT OR REPLACE INTO doc(id, u, embedding) VALUES ('d', 2, \(try Self.vec([4, 4])))") // may remove 'b'/'a' w/o trigger
        do {
            try db.run(literal: "INSERT INTO doc(id, u, embedding) VALUES ('c', 9, \(try Self.vec([5, 5]))) ON CONFLICT(id) DO UPDATE SET id = 'b'")
        } catch let e { error = e }
        #expect(error == nil, "UPSERT refused: \(String(describing: error))")
        try db.updateIVFIndex("doc_ivf")
        let query = try Self.vec([1, 0])
        try Self.checkNearestFive(db, to: query, "re-keyed onto stale keys")
    }

    /// The same write through a keyed FTS5 index, whose map the same triggers keep.
    @Test func aKeyedFTS5IndexTakesARekeyOntoAStaleKey() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, u INTEGER UNIQUE, body TEXT)")
        try db.execute("INSERT INTO doc VALUES ('a', 1, 'apple'), ('b', 2, 'banana')")
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
        try db.execute("INSERT OR REPLACE INTO doc VALUES ('c', 1, 'cherry')") // removes 'a', no delete trigger
        try db.execute("UPDATE doc SET id = 'a' WHERE id = 'b'")
        let matched: [String] = try db.query(
            "SELECT doc.id FROM doc_fts JOIN doc_fts_keys AS k ON k.strata_fts_id = doc_fts.rowid JOIN doc ON doc.id = k.\"key\" WHERE doc_fts MATCH 'banana'")
        #expect(matched == ["a"])
    }

    @Test func everyUpdateMovesTheGenerationAParallelSearchChecks() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (1, \(try Self.vec([1, 2])))")
        let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1))
        #expect(try db.ivfGeneration(index) == 0)
        try db.updateIVFIndex("doc_ivf")
        try db.updateIVFIndex("doc_ivf")
        #expect(try db.ivfGeneration(index) == 2)
        // An index from before the count (no column): 0 until its next update adds it.
        try db.execute("ALTER TABLE doc_ivf_config DROP COLUMN generation")
        #expect(try db.ivfGeneration(index) == 0)
        try db.updateIVFIndex("doc_ivf")
        #expect(try db.ivfGeneration(index) == 1)
        #expect(try db.searchIVFIndex("doc_ivf", nearest: try Self.vec([1, 2]), k: 1, nprobe: 1).map(\.rowID) == [1])
    }
}
