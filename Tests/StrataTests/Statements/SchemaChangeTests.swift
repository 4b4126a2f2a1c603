import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// A model read by column name, so a stale name table would fill it from the wrong columns.
private struct Pair: DecodableRow, Equatable {
    let x: Int
    let y: Int
}

/// Cached and prepared statements follow schema changes: SQLite re-prepares them by itself, and
/// everything Strata derived from them (names, name table, prediction, Decodable keys) follows.
@Suite struct SchemaChangeTests {
    @Test func dropAndCreateUnderACachedStatement() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 2)")
        let beforeX: [Int?] = try db.query("SELECT * FROM t") { row in row["x"] as Int? }
        #expect(beforeX == [1])
        let beforeNamed: [Int?] = try db.query("SELECT * FROM t") { row in row["y"] as Int? }
        #expect(beforeNamed == [2])

        try db.execute("DROP TABLE t; CREATE TABLE t(y, x); INSERT INTO t VALUES(20, 10)")
        let y: [Int?] = try db.query("SELECT * FROM t") { row in row["y"] as Int? }
        let x: [Int?] = try db.query("SELECT * FROM t") { row in row["x"] as Int? }
        #expect(y == [20])
        #expect(x == [10])
        let pairs: [Pair] = try db.query("SELECT * FROM t")
        #expect(pairs == [Pair(x: 10, y: 20)])
    }

    @Test func alterTableAddColumnUnderACachedStatement() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a); INSERT INTO t VALUES(1)")
        let names: [[String]] = try db.query("SELECT * FROM t") { row in row.columns.map(\.name) }
        #expect(names == [["a"]])
        let missing: [Int?] = try db.query("SELECT * FROM t") { row in row["b"] as Int? }
        #expect(missing == [nil])

        try db.execute("ALTER TABLE t ADD COLUMN b DEFAULT 7")
        let b: [Int?] = try db.query("SELECT * FROM t") { row in row["b"] as Int? }
        #expect(b == [7])
        let after: [[String]] = try db.query("SELECT * FROM t") { row in row.columns.map(\.name) }
        #expect(after == [["a", "b"]])
        let count: [Int] = try db.query("SELECT * FROM t") { row in row.columnCount }
        #expect(count == [2])
    }

    @Test func preparedStatementFollowsSchemaChanges() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 2)")
        let statement = try db.prepare("SELECT * FROM t")
        #expect(statement.columnNames == ["x", "y"])
        let first: Pair? = try statement.query()
        #expect(first == Pair(x: 1, y: 2))
        try statement.bind() // resets it: a statement in the middle of its rows locks the table

        try db.execute("DROP TABLE t; CREATE TABLE t(y, z, x); INSERT INTO t VALUES(20, 0, 10)")
        try statement.bind()
        let second: Pair? = try statement.query()
        #expect(second == Pair(x: 10, y: 20))
        #expect(statement.columnNames == ["y", "z", "x"])
        #expect(statement.columnIndex(forName: "x") == 2)
    }

    @Test func schemaChangedByAnotherConnection() throws {
        let files = try TwoConnections(named: "db.sqlite")
        let (reader, writer) = (files.mine, files.other)
        try writer.execute("CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 2)")
        let pairs: [Pair] = try reader.query("SELECT * FROM t")
        #expect(pairs == [Pair(x: 1, y: 2)])
        let y: [Int?] = try reader.query("SELECT * FROM t") { row in row["y"] as Int? }
        #expect(y == [2])

        try writer.execute("DROP TABLE t; CREATE TABLE t(y, x, extra); INSERT INTO t VALUES(20, 10, 'e')")
        let changed: [Pair] = try reader.query("SELECT * FROM t")
        #expect(changed == [Pair(x: 10, y: 20)])
        let extra: [String?] = try reader.query("SELECT * FROM t") { row in row["extra"] as String? }
        #expect(extra == ["e"])
    }

    @Test func schemaChangeWithNoRowsStillRefreshesNames() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(x)")
        let statement = try db.prepare("SELECT * FROM t")
        #expect(statement.columnNames == ["x"])
        try db.execute("ALTER TABLE t ADD COLUMN y")
        let row: Row? = try statement.query()
        #expect(row == nil)
        #expect(statement.columnNames == ["x", "y"])
    }
}
