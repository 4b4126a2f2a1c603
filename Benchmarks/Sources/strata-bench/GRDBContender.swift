import Foundation
import GRDB

struct GRDBTenInts: FetchableRecord {
    let value: TenInts
    init(row: GRDB.Row) throws {
        value = TenInts(
            a0: row[0], a1: row[1], a2: row[2], a3: row[3], a4: row[4],
            a5: row[5], a6: row[6], a7: row[7], a8: row[8], a9: row[9])
    }
}

struct GRDBDecodableTenInts: FetchableRecord, Decodable {
    let a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Int
    var sum: Int64 { Int64(a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9) }
}

struct GRDBMixed: FetchableRecord {
    let value: Mixed
    init(row: GRDB.Row) throws {
        value = Mixed(id: row[0], name: row[1], score: row[2], payload: row[3])
    }
}

enum GRDBBench {
    static func contender(_ workload: Workloads.Kind) -> Contender {
        if workload == .fetchTwoThreads { return twoThreadContender }
        if workload == .readByKey || workload == .readByKeyBare { return readByKeyContender(snapshot: workload == .readByKey) }
        return { path, rows in
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: Workloads.pragmas) }
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return Prepared(work: { try run(workload, queue: queue, rows: rows) }, close: { try? queue.close() })
        }
    }

    static func run(_ workload: Workloads.Kind, queue: DatabaseQueue, rows: Int) throws -> Int64 {
        switch workload {
        case .insertPositional:
            try queue.write { db in
                let statement = try db.makeStatement(sql: Workloads.insertPositionalSQL)
                for row in 0..<rows {
                    try statement.execute(arguments: [row, row + 1, row + 2, row + 3, row + 4, row + 5, row + 6, row + 7, row + 8, row + 9])
                }
            }
            return Int64(rows)
        case .insertNamed, .insertNamedDictionary, .squealInsertDictionary:
            try queue.write { db in
                let statement = try db.makeStatement(sql: Workloads.insertNamedSQL)
                for row in 0..<rows {
                    try statement.execute(arguments: [
                        "a0": row, "a1": row + 1, "a2": row + 2, "a3": row + 3, "a4": row + 4,
                        "a5": row + 5, "a6": row + 6, "a7": row + 7, "a8": row + 8, "a9": row + 9
                    ])
                }
            }
            return Int64(rows)
        case .fetchPositional:
            return try queue.read { db in
                var sum: Int64 = 0
                let cursor = try GRDB.Row.fetchCursor(db, sql: Workloads.selectIntsSQL)
                while let row = try cursor.next() {
                    for column in 0..<10 { sum &+= row[column] as Int64 }
                }
                return sum
            }
        case .fetchNamed:
            return try queue.read { db in
                var sum: Int64 = 0
                let cursor = try GRDB.Row.fetchCursor(db, sql: Workloads.selectIntsSQL)
                while let row = try cursor.next() {
                    sum &+= row["a0"] as Int64; sum &+= row["a1"] as Int64; sum &+= row["a2"] as Int64
                    sum &+= row["a3"] as Int64; sum &+= row["a4"] as Int64; sum &+= row["a5"] as Int64
                    sum &+= row["a6"] as Int64; sum &+= row["a7"] as Int64; sum &+= row["a8"] as Int64
                    sum &+= row["a9"] as Int64
                }
                return sum
            }
        case .fetchModel, .squealSelectModel:
            let items = try queue.read { db in try GRDBTenInts.fetchAll(db, sql: Workloads.selectIntsSQL) }
            return items.reduce(0) { $0 &+ $1.value.sum }
        case .fetchDecodable:
            let items = try queue.read { db in try GRDBDecodableTenInts.fetchAll(db, sql: Workloads.selectIntsSQL) }
            return items.reduce(0) { $0 &+ $1.sum }
        case .fetchMixed:
            let items = try queue.read { db in try GRDBMixed.fetchAll(db, sql: Workloads.selectMixedSQL) }
            return items.reduce(0) { $0 &+ $1.value.checksum }
        case .fetchTwoThreads, .readByKey, .readByKeyBare:
            return 0 // measured by their own contenders
        case .parseDates:
            let dates = try queue.read { db in try Date.fetchAll(db, sql: Workloads.selectDatesSQL) }
            return dates.reduce(0) { $0 &+ Int64(($1.timeIntervalSince1970 * 1000).rounded()) }
        }
    }
}

extension GRDBBench {
    /// Two scans in parallel through a `DatabasePool`.
    static func twoThreadContender(_ path: String, _ rows: Int) throws -> Prepared {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        return Prepared(
            work: {
                try sumOnTwoThreads {
                    try pool.read { db -> Int64 in
                        var sum: Int64 = 0
                        let cursor = try GRDB.Row.fetchCursor(db, sql: Workloads.selectIntsSQL)
                        while let row = try cursor.next() {
                            for column in 0..<10 { sum &+= row[column] as Int64 }
                        }
                        return sum
                    }
                }
            }, close: { try? pool.close() })
    }
}

extension GRDBBench {
    /// One row by key per `DatabasePool` call: `read` (one snapshot each) or `unsafeRead` (bare).
    static func readByKeyContender(snapshot: Bool) -> Contender {
        { path, rows in
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            let pool = try DatabasePool(path: path, configuration: configuration)
            let fetch: (GRDB.Database, Int64) throws -> Int64? = { db, key in
                try Int64.fetchOne(db.cachedStatement(sql: Workloads.selectByKeySQL), arguments: [key])
            }
            return Prepared(
                work: {
                    var sum: Int64 = 0
                    for index in 0..<rows {
                        let key = Workloads.key(index, rows: rows)
                        let value = snapshot ? try pool.read { try fetch($0, key) } : try pool.unsafeRead { try fetch($0, key) }
                        sum &+= value ?? 0
                    }
                    return sum
                }, close: { try? pool.close() })
        }
    }
}
