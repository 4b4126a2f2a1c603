import Foundation
import StrataSQift
import SQLite3
import Strata

// Issue 32's rows: a table-valued function written in Swift (`series`) and a virtual table backed
// by a Swift `VirtualTableSource`, summed by SQLite, against a plain scan of a table holding the
// same integers (raw C), and against SQLite generating them itself with a recursive CTE. The GRDB column stays empty: GRDB has no Swift virtual tables.
enum TableValuedFunctionWorkloads {
    static let series = TableValuedFunction(name: "series", columns: ["value"], parameters: ["start", "stop"]) { arguments in
        let start = arguments[0].integerValue ?? 1, stop = arguments[1].integerValue ?? start
        return (start...max(start, stop)).lazy.map { [$0] as [Bindable?] }
    }

    @MainActor static func measureAll() throws -> [Result] {
        let names = ["tvf-scan", "tvf-scan-vs-cte", "vtab-scan"]
        guard names.contains(where: { options.filter == nil || $0.contains(options.filter!) }) else { return [] }
        let rows = options.rows ?? 1_000_000
        let path = directory.appendingPathComponent("tvf-scan.sqlite").path
        try? FileManager.default.removeItem(atPath: path)
        let db = try Raw.open(path)
        try Raw.exec(db, "CREATE TABLE numbers(value INTEGER); BEGIN")
        try Raw.exec(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows)) INSERT INTO numbers SELECT x FROM c")
        try Raw.exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
        sqlite3_close_v2(db)
        let expected = Int64(rows) * Int64(rows + 1) / 2

        var table = Measurement(), swiftSeries = Measurement(), cte = Measurement(), source = Measurement()
        for round in 0...options.runs {
            for index in 0..<4 {
                let start: UInt64
                let result: Int64
                switch index {
                case 0:
                    let db = try Raw.open(path)
                    defer { sqlite3_close_v2(db) }
                    start = DispatchTime.now().uptimeNanoseconds
                    result = try rawTableScan(db)
                case 1:
                    let db = try Raw.open(path)
                    defer { sqlite3_close_v2(db) }
                    start = DispatchTime.now().uptimeNanoseconds
                    result = try rawRecursiveCTE(db, rows: rows)
                case 2:
                    let connection = try Connection(storageLocation: .onDisk(path))
                    try connection.createTableValuedFunction(series)
                    start = DispatchTime.now().uptimeNanoseconds
                    result = try strataSeriesScan(connection, rows: rows)
                default:
                    let connection = try Connection(storageLocation: .onDisk(path))
                    try connection.createVirtualTable(named: "counting", source: CountingSource(count: rows))
                    start = DispatchTime.now().uptimeNanoseconds
                    result = try strataSourceScan(connection)
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                guard result == expected else { throw BenchError.mismatch("tvf-scan: contender \(index) computed \(result), expected \(expected)") }
                guard round > 0 else { continue }
                switch index {
                case 0: table.times.append(elapsed)
                case 1: cte.times.append(elapsed)
                case 2: swiftSeries.times.append(elapsed)
                default: source.times.append(elapsed)
                }
            }
        }
        return [
            Result(workload: "tvf-scan", rows: rows, raw: table, strata: swiftSeries, grdb: Measurement()),
            Result(workload: "tvf-scan-vs-cte", rows: rows, raw: cte, strata: swiftSeries, grdb: Measurement()),
            Result(workload: "vtab-scan", rows: rows, raw: table, strata: source, grdb: Measurement())
        ]
    }

    @inline(never) static func rawTableScan(_ db: OpaquePointer) throws -> Int64 {
        try Raw.int64(db, "SELECT sum(value) FROM numbers")
    }

    @inline(never) static func rawRecursiveCTE(_ db: OpaquePointer, rows: Int) throws -> Int64 {
        try Raw.int64(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows)) SELECT sum(x) FROM c")
    }

    @inline(never) static func strataSourceScan(_ connection: Connection) throws -> Int64 {
        try connection.query("SELECT sum(value) FROM counting") ?? 0
    }

    /// A read-only virtual table of the integers 1...count, scanned whole.
    struct CountingSource: VirtualTableSource {
        let count: Int
        var columns: [String] { ["value"] }
        func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? { IndexPlan() }
        func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) -> LazyMapSequence<ClosedRange<Int>, [Bindable?]> {
            (1...count).lazy.map { [$0] as [Bindable?] }
        }
    }

    @inline(never) static func strataSeriesScan(_ connection: Connection, rows: Int) throws -> Int64 {
        try connection.query("SELECT sum(value) FROM series(1, ?)", rows) ?? 0
    }
}
