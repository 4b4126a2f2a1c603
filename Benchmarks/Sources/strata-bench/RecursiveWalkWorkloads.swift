import Foundation
import StrataSQift
import GRDB
import SQLite3
import StrataRecords

/// A node of the walked tree: `parentId` is nil for the root.
@Record(table: "node")
struct TreeNode {
    @PrimaryKey var id: Int64?
    var parentId: Int64?
    var title: String
}

/// GRDB's hand-written record of the same row, read by index.
struct GRDBTreeNode: FetchableRecord {
    var id: Int64, parentId: Int64?, title: String
    init(row: GRDB.Row) { id = row[0]; parentId = row[1]; title = row[2] }
}

/// Issue 68's row: a recursive walk of a whole tree (100,000 nodes, four children each, a
/// `parentId` index) from its root into records, through `TreeNode.recursive(start:step:)`,
/// against the same walk written by hand and run through raw C (rows decoded into the same
/// struct) and through GRDB (its SQL, hand-written records). Every contender's checksum is the
/// sum of ids and title lengths of the rows it read, in id order.
enum RecursiveWalkWorkloads {
    static let name = "records-recursive-walk"

    /// The statement a developer would write for the walk (what the typed query must approach).
    static let handWrittenSQL = """
        WITH RECURSIVE walk(id, parentId, title) AS (
            SELECT id, parentId, title FROM node WHERE id = ?
            UNION
            SELECT node.id, node.parentId, node.title FROM node JOIN walk ON node.parentId = walk.id
        )
        SELECT id, parentId, title FROM walk ORDER BY id
        """

    @MainActor static func measureAll() throws -> [Result] {
        guard options.filter == nil || name.contains(options.filter!) else { return [] }
        if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
        let rows = max(2, options.rows ?? 100_000)
        let path = directory.appendingPathComponent("\(name).sqlite").path
        try? FileManager.default.removeItem(atPath: path)
        try populate(path: path, rows: rows)

        let runs: [(String) throws -> Int64] = [raw, strata, grdb]
        var measurements = Array(repeating: Measurement(), count: runs.count)
        var expected: Int64?
        for round in 0...options.runs {
            for (index, run) in runs.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                let result = try run(path)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                if let expected, expected != result { throw BenchError.mismatch("\(name): contender \(index) computed \(result), expected \(expected)") }
                expected = result
                if round > 0 { measurements[index].times.append(elapsed) }
            }
        }
        return [Result(workload: name, rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[2])]
    }

    /// Node 1 is the root; node i > 1 hangs under node (i - 2) / 4 + 1.
    static func populate(path: String, rows: Int) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        try Raw.exec(
            db,
            """
            CREATE TABLE node(id INTEGER PRIMARY KEY, parentId INTEGER, title TEXT NOT NULL);
            CREATE INDEX node_parent ON node(parentId);
            BEGIN
            """)
        let statement = try Raw.prepare(db, "INSERT INTO node(id, parentId, title) VALUES (?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        for id in 1...rows {
            sqlite3_bind_int64(statement, 1, Int64(id))
            if id == 1 { sqlite3_bind_null(statement, 2) } else { sqlite3_bind_int64(statement, 2, Int64((id - 2) / 4 + 1)) }
            sqlite3_bind_text(statement, 3, "node \(id)", -1, Raw.transient)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.sqlite("insert node") }
            sqlite3_reset(statement)
        }
        try Raw.exec(db, "COMMIT; ANALYZE; PRAGMA wal_checkpoint(TRUNCATE)")
    }

    static func checksum(_ nodes: [TreeNode]) -> Int64 {
        nodes.reduce(0) { $0 &+ ($1.id ?? 0) &+ Int64($1.title.utf8.count) }
    }

    // MARK: - Contenders (each function's name is what callgrind reports)

    static func raw(_ path: String) throws -> Int64 {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        return try rawRecursiveWalk(db)
    }

    @inline(never) static func rawRecursiveWalk(_ db: OpaquePointer) throws -> Int64 {
        let statement = try Raw.prepare(db, handWrittenSQL)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, 1)
        var nodes: [TreeNode] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let parent: Int64? = sqlite3_column_type(statement, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 1)
            let title = sqlite3_column_text(statement, 2).map { String(cString: $0) } ?? ""
            nodes.append(TreeNode(id: sqlite3_column_int64(statement, 0), parentId: parent, title: title))
        }
        return checksum(nodes)
    }

    static func strata(_ path: String) throws -> Int64 {
        let db = try Connection(storageLocation: .onDisk(path))
        try db.execute(Workloads.pragmas)
        return try strataRecursiveWalk(db)
    }

    @inline(never) static func strataRecursiveWalk(_ db: Connection) throws -> Int64 {
        let rootID: Int64 = 1
        let nodes = try TreeNode.recursive(
            start: TreeNode.where { $0.id == rootID },
            step: { previous in TreeNode.join(previous, on: { node, parent in node.parentId == parent.id }) }
        ).order(by: \.id).fetchAll(db)
        return checksum(nodes)
    }

    static func grdb(_ path: String) throws -> Int64 {
        let queue = try RecordWorkloads.grdbQueue(path)
        return try queue.read { try grdbRecursiveWalk($0) }
    }

    @inline(never) static func grdbRecursiveWalk(_ db: GRDB.Database) throws -> Int64 {
        try GRDBTreeNode.fetchAll(db, sql: handWrittenSQL, arguments: [1])
            .reduce(0) { $0 &+ $1.id &+ Int64($1.title.utf8.count) }
    }
}
