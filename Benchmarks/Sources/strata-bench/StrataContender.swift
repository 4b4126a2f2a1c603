import Foundation
import StrataSQift
import Strata

struct StrataTenInts: ExpressibleByRow {
    let value: TenInts
    init(row: Row) throws {
        value = TenInts(
            a0: row[0], a1: row[1], a2: row[2], a3: row[3], a4: row[4],
            a5: row[5], a6: row[6], a7: row[7], a8: row[8], a9: row[9])
    }
}

struct StrataDecodableTenInts: DecodableRow {
    let a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Int
    var sum: Int64 { Int64(a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9) }
}

struct StrataMixed: ExpressibleByRow {
    let value: Mixed
    init(row: Row) throws {
        value = Mixed(id: row[0], name: row[1], score: row[2], payload: row[3])
    }
}

enum StrataBench {
    static func contender(_ workload: Workloads.Kind) -> Contender {
        if workload == .fetchTwoThreads { return twoThreadContender }
        if workload == .readByKey || workload == .readByKeyBare { return readByKeyContender(snapshot: workload == .readByKey) }
        return { path, rows in
            let db = try Connection(storageLocation: .onDisk(path))
            try db.execute(Workloads.pragmas)
            return Prepared(work: { try run(workload, db: db, rows: rows) }, close: {})
        }
    }

    static func run(_ workload: Workloads.Kind, db: Connection, rows: Int) throws -> Int64 {
        switch workload {
        case .insertPositional:
            let statement = try db.prepare(Workloads.insertPositionalSQL)
            try db.transaction {
                for row in 0..<rows {
                    try statement.bind(row, row + 1, row + 2, row + 3, row + 4, row + 5, row + 6, row + 7, row + 8, row + 9).run()
                }
            }
            return Int64(rows)
        case .insertNamed:
            let statement = try db.prepare(Workloads.insertNamedSQL)
            try db.transaction {
                for row in 0..<rows {
                    try statement.bind(
                        named: (":a0", row), (":a1", row + 1), (":a2", row + 2), (":a3", row + 3), (":a4", row + 4),
                        (":a5", row + 5), (":a6", row + 6), (":a7", row + 7), (":a8", row + 8), (":a9", row + 9)
                    ).run()
                }
            }
            return Int64(rows)
        case .insertNamedDictionary:
            let statement = try db.prepare(Workloads.insertNamedSQL)
            try db.transaction {
                for row in 0..<rows {
                    try statement.bind([
                        ":a0": row, ":a1": row + 1, ":a2": row + 2, ":a3": row + 3, ":a4": row + 4,
                        ":a5": row + 5, ":a6": row + 6, ":a7": row + 7, ":a8": row + 8, ":a9": row + 9
                    ]).run()
                }
            }
            return Int64(rows)
        case .fetchPositional:
            var sum: Int64 = 0
            try db.forEachRow(Workloads.selectIntsSQL) { row in
                for column in 0..<10 { sum &+= row[column] as Int64 }
            }
            return sum
        case .fetchNamed:
            var sum: Int64 = 0
            try db.forEachRow(Workloads.selectIntsSQL) { row in
                sum &+= row["a0"] as Int64; sum &+= row["a1"] as Int64; sum &+= row["a2"] as Int64
                sum &+= row["a3"] as Int64; sum &+= row["a4"] as Int64; sum &+= row["a5"] as Int64
                sum &+= row["a6"] as Int64; sum &+= row["a7"] as Int64; sum &+= row["a8"] as Int64
                sum &+= row["a9"] as Int64
            }
            return sum
        case .fetchModel:
            let items: [StrataTenInts] = try db.query(Workloads.selectIntsSQL)
            return items.reduce(0) { $0 &+ $1.value.sum }
        case .fetchDecodable:
            let items: [StrataDecodableTenInts] = try db.query(Workloads.selectIntsSQL)
            return items.reduce(0) { $0 &+ $1.sum }
        case .fetchMixed:
            let items: [StrataMixed] = try db.query(Workloads.selectMixedSQL)
            return items.reduce(0) { $0 &+ $1.value.checksum }
        case .fetchTwoThreads, .readByKey, .readByKeyBare:
            return 0 // measured by their own contenders
        case .squealInsertDictionary, .squealSelectModel:
            return try SquealWorkloads.run(workload, db: db, rows: rows)
        case .parseDates:
            let dates: [Date] = try db.query(Workloads.selectDatesSQL)
            return dates.reduce(0) { $0 &+ Int64(($1.timeIntervalSince1970 * 1000).rounded()) }
        }
    }
}

extension StrataBench {
    /// Two scans in parallel through `Database` readers.
    static func twoThreadContender(_ path: String, _ rows: Int) throws -> Prepared {
        let database = try Database(storageLocation: .onDisk(path), readerConnectionPreparation: { try $0.execute(Workloads.pragmas) })
        // Open both readers before timing.
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            _ = try? database.executeRead { connection in
                Thread.sleep(forTimeInterval: 0.05); return connection.readOnly
            }
        }
        return Prepared(
            work: {
                try sumOnTwoThreads {
                    try database.executeRead { try run(.fetchPositional, db: $0, rows: rows) }
                }
            }, close: {})
    }
}

extension StrataBench {
    /// One row by key per `Database` call: `read` (one snapshot each) or `executeRead` (bare).
    static func readByKeyContender(snapshot: Bool) -> Contender {
        { path, rows in
            var configuration = Database.Configuration()
            configuration.prepareConnection { try $0.execute(Workloads.pragmas) }
            let database = try Database(path: path, configuration: configuration)
            return Prepared(
                work: {
                    var sum: Int64 = 0
                    for index in 0..<rows {
                        let key = Workloads.key(index, rows: rows)
                        let value: Int64? =
                            snapshot
                            ? try database.read { try $0.query(literal: "SELECT a0 FROM items WHERE rowid = \(key)") }
                            : try database.executeRead { try $0.query(literal: "SELECT a0 FROM items WHERE rowid = \(key)") }
                        sum &+= value ?? 0
                    }
                    return sum
                }, close: {})
        }
    }
}
