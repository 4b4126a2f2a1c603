import Foundation
import StrataSQift
import GRDB
import SQLite3
import StrataRecords

/// The ten-integer row as a `@Record` (the `items` table of the fetch workloads has no key).
@Record(table: "items")
struct ItemRecord {
    var a0: Int, a1: Int, a2: Int, a3: Int, a4: Int, a5: Int, a6: Int, a7: Int, a8: Int, a9: Int
    var sum: Int64 { Int64(a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9) }

    /// The values `Workloads.populate` writes for `row`, built without an allocation, so the
    /// contenders' own costs are what the insert rows compare.
    @inline(__always)
    static func make(_ row: Int) -> ItemRecord {
        let base = row * 31
        @inline(__always) func v(_ column: Int) -> Int { (base + column * 7) % 100_003 }
        return ItemRecord(a0: v(0), a1: v(1), a2: v(2), a3: v(3), a4: v(4), a5: v(5), a6: v(6), a7: v(7), a8: v(8), a9: v(9))
    }
}

/// GRDB's Codable record of the same row.
struct GRDBCodableItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "items"
    var a0: Int, a1: Int, a2: Int, a3: Int, a4: Int, a5: Int, a6: Int, a7: Int, a8: Int, a9: Int
    var sum: Int64 { Int64(a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9) }
}

/// GRDB's hand-written record: reads by index, encodes by hand.
struct GRDBManualItem: FetchableRecord, PersistableRecord {
    static let databaseTableName = "items"
    var a0: Int, a1: Int, a2: Int, a3: Int, a4: Int, a5: Int, a6: Int, a7: Int, a8: Int, a9: Int
    var sum: Int64 { Int64(a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9) }

    init(_ item: ItemRecord) {
        (a0, a1, a2, a3, a4) = (item.a0, item.a1, item.a2, item.a3, item.a4)
        (a5, a6, a7, a8, a9) = (item.a5, item.a6, item.a7, item.a8, item.a9)
    }

    init(row: GRDB.Row) {
        a0 = row[0]; a1 = row[1]; a2 = row[2]; a3 = row[3]; a4 = row[4]
        a5 = row[5]; a6 = row[6]; a7 = row[7]; a8 = row[8]; a9 = row[9]
    }

    func encode(to container: inout PersistenceContainer) {
        container["a0"] = a0; container["a1"] = a1; container["a2"] = a2; container["a3"] = a3; container["a4"] = a4
        container["a5"] = a5; container["a6"] = a6; container["a7"] = a7; container["a8"] = a8; container["a9"] = a9
    }
}

/// Records: fetch every row, insert rows, and a typed query with a WHERE, each against raw C,
/// GRDB's Codable records and GRDB's hand-written records, on the same rows.
enum RecordWorkloads {
    enum Kind: String, CaseIterable {
        case fetch = "record-fetch"
        case insert = "record-insert"
        case query = "record-query"
        var defaultRows: Int { self == .insert ? 50_000 : 200_000 }
    }

    static let threshold = 50_000
    static let querySQL = Workloads.selectIntsSQL + " WHERE a0 > ?"

    @MainActor static func measureAll() throws -> [Result] {
        var results: [Result] = []
        for kind in Kind.allCases where options.filter == nil || kind.rawValue.contains(options.filter!) {
            if !options.json { FileHandle.standardError.write(Data("running \(kind.rawValue)...\n".utf8)) }
            let rows = options.rows ?? kind.defaultRows
            let template = directory.appendingPathComponent("\(kind.rawValue)-template.sqlite").path
            try? FileManager.default.removeItem(atPath: template)
            try Workloads.populate(kind == .insert ? .insertPositional : .fetchPositional, path: template, rows: rows)
            let runs: [(String, Int) throws -> Int64] = [raw(kind), strata(kind), grdbCodable(kind), grdbManual(kind)]
            var measurements = Array(repeating: Measurement(), count: runs.count)
            var expected: Int64?
            for round in 0...options.runs {
                for (index, run) in runs.enumerated() {
                    let path = kind == .insert ? directory.appendingPathComponent("\(kind.rawValue)-\(index).sqlite").path : template
                    if kind == .insert { try copyDatabase(from: template, to: path) }
                    let start = DispatchTime.now().uptimeNanoseconds
                    var result = try run(path, rows)
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                    if kind == .insert { result = try Workloads.insertedChecksum(path: path) }
                    if let expected, expected != result {
                        throw BenchError.mismatch("\(kind.rawValue): contender \(index) computed \(result), expected \(expected)")
                    }
                    expected = result
                    if round > 0 { measurements[index].times.append(elapsed) }
                }
            }
            results.append(
                Result(workload: kind.rawValue + " (GRDB Codable)", rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[2]))
            results.append(
                Result(workload: kind.rawValue + " (GRDB hand-written)", rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[3]))
        }
        return results
    }

    // MARK: - Contenders (each function's name is what callgrind reports)

    static func raw(_ kind: Kind) -> (String, Int) throws -> Int64 {
        { path, rows in
            let db = try Raw.open(path)
            defer { sqlite3_close_v2(db) }
            switch kind {
            case .fetch: return try rawRecordFetch(db, sql: Workloads.selectIntsSQL, threshold: nil)
            case .query: return try rawRecordFetch(db, sql: querySQL, threshold: threshold)
            case .insert: return try rawRecordInsert(db, rows: rows)
            }
        }
    }

    @inline(never) static func rawRecordFetch(_ db: OpaquePointer, sql: String, threshold: Int?) throws -> Int64 {
        let statement = try Raw.prepare(db, sql)
        defer { sqlite3_finalize(statement) }
        if let threshold { sqlite3_bind_int64(statement, 1, Int64(threshold)) }
        var items: [ItemRecord] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let c = { Int(sqlite3_column_int64(statement, $0)) }
            items.append(ItemRecord(a0: c(0), a1: c(1), a2: c(2), a3: c(3), a4: c(4), a5: c(5), a6: c(6), a7: c(7), a8: c(8), a9: c(9)))
        }
        return items.reduce(0) { $0 &+ $1.sum }
    }

    @inline(never) static func rawRecordInsert(_ db: OpaquePointer, rows: Int) throws -> Int64 {
        try Raw.exec(db, "BEGIN")
        let statement = try Raw.prepare(db, Workloads.insertPositionalSQL)
        defer { sqlite3_finalize(statement) }
        for row in 0..<rows {
            let item = ItemRecord.make(row)
            sqlite3_bind_int64(statement, 1, Int64(item.a0)); sqlite3_bind_int64(statement, 2, Int64(item.a1))
            sqlite3_bind_int64(statement, 3, Int64(item.a2)); sqlite3_bind_int64(statement, 4, Int64(item.a3))
            sqlite3_bind_int64(statement, 5, Int64(item.a4)); sqlite3_bind_int64(statement, 6, Int64(item.a5))
            sqlite3_bind_int64(statement, 7, Int64(item.a6)); sqlite3_bind_int64(statement, 8, Int64(item.a7))
            sqlite3_bind_int64(statement, 9, Int64(item.a8)); sqlite3_bind_int64(statement, 10, Int64(item.a9))
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.sqlite("insert") }
            sqlite3_reset(statement)
        }
        try Raw.exec(db, "COMMIT")
        return 0
    }

    static func strata(_ kind: Kind) -> (String, Int) throws -> Int64 {
        { path, rows in
            let db = try Connection(storageLocation: .onDisk(path))
            try db.execute(Workloads.pragmas)
            switch kind {
            case .fetch: return try strataRecordFetch(db)
            case .query: return try strataRecordQuery(db)
            case .insert: return try strataRecordInsert(db, rows: rows)
            }
        }
    }

    @inline(never) static func strataRecordFetch(_ db: Connection) throws -> Int64 {
        try ItemRecord.fetchAll(db).reduce(0) { $0 &+ $1.sum }
    }

    @inline(never) static func strataRecordQuery(_ db: Connection) throws -> Int64 {
        try ItemRecord.where { $0.a0 > threshold }.fetchAll(db).reduce(0) { $0 &+ $1.sum }
    }

    @inline(never) static func strataRecordInsert(_ db: Connection, rows: Int) throws -> Int64 {
        try db.transaction {
            for row in 0..<rows {
                var item = ItemRecord.make(row)
                try item.insert(db)
            }
        }
        return 0
    }

    static func grdbQueue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: Workloads.pragmas) }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    static func grdbCodable(_ kind: Kind) -> (String, Int) throws -> Int64 {
        { path, rows in
            let queue = try grdbQueue(path)
            switch kind {
            case .fetch: return try queue.read { try grdbCodableFetch($0) }
            case .query: return try queue.read { try grdbCodableQuery($0) }
            case .insert:
                try queue.write { db in try grdbCodableInsert(db, rows: rows) }
                return 0
            }
        }
    }

    @inline(never) static func grdbCodableFetch(_ db: GRDB.Database) throws -> Int64 {
        try GRDBCodableItem.fetchAll(db).reduce(0) { $0 &+ $1.sum }
    }

    @inline(never) static func grdbCodableQuery(_ db: GRDB.Database) throws -> Int64 {
        try GRDBCodableItem.filter(GRDB.Column("a0") > threshold).fetchAll(db).reduce(0) { $0 &+ $1.sum }
    }

    @inline(never) static func grdbCodableInsert(_ db: GRDB.Database, rows: Int) throws {
        for row in 0..<rows {
            let item = ItemRecord.make(row)
            try GRDBCodableItem(
                a0: item.a0, a1: item.a1, a2: item.a2, a3: item.a3, a4: item.a4, a5: item.a5, a6: item.a6, a7: item.a7, a8: item.a8, a9: item.a9
            ).insert(db)
        }
    }

    static func grdbManual(_ kind: Kind) -> (String, Int) throws -> Int64 {
        { path, rows in
            let queue = try grdbQueue(path)
            switch kind {
            case .fetch: return try queue.read { try grdbManualFetch($0) }
            case .query: return try queue.read { try grdbManualQuery($0) }
            case .insert:
                return try queue.write { db in try grdbManualInsert(db, rows: rows) }
            }
        }
    }

    @inline(never) static func grdbManualFetch(_ db: GRDB.Database) throws -> Int64 {
        try GRDBManualItem.fetchAll(db).reduce(0) { $0 &+ $1.sum }
    }

    @inline(never) static func grdbManualQuery(_ db: GRDB.Database) throws -> Int64 {
        try GRDBManualItem.filter(GRDB.Column("a0") > threshold).fetchAll(db).reduce(0) { $0 &+ $1.sum }
    }

    /// Returns what the others do (0), through a different signature than `grdbCodableInsert`'s,
    /// so the optimizer does not merge the two into one function callgrind cannot tell apart.
    @inline(never) static func grdbManualInsert(_ db: GRDB.Database, rows: Int) throws -> Int64 {
        for row in 0..<rows {
            try GRDBManualItem(ItemRecord.make(row)).insert(db)
        }
        return 0
    }
}
