import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLiteNIO

/// sqlite-nio 1.13.2 (Vapor's SQLite driver) as a fourth contender on three of the core
/// workloads: insert, fetch, and a model fetch, in the same run as raw C, Strata and GRDB.
///
/// sqlite-nio runs every call on its thread pool and answers with a future; the benchmark waits
/// on each, as a caller awaiting `query` would. It builds its own SQLite amalgamation (its symbols
/// prefixed), so its SQLite is not the system library the others link.
enum NIOWorkloads {
    struct Result {
        let workload: String
        let rows: Int
        let raw: Measurement
        let strata: Measurement
        let grdb: Measurement
        let nio: Measurement
    }

    static let kinds: [Workloads.Kind] = [.insertPositional, .fetchPositional, .fetchModel]

    /// Runs when no filter is given, or one that names `nio`.
    @MainActor static func measureAll() throws -> [Result] {
        if let filter = options.filter, !filter.contains("nio") { return [] }
        var results: [Result] = []
        for kind in kinds {
            if !options.json { FileHandle.standardError.write(Data("running sqlite-nio \(kind.rawValue)...\n".utf8)) }
            let (rows, measured) = try measure(kind, contenders: contenders + [("sqlite-nio", contender)])
            results.append(Result(workload: kind.rawValue, rows: rows, raw: measured[0], strata: measured[1], grdb: measured[2], nio: measured[3]))
        }
        return results
    }

    static func contender(_ workload: Workloads.Kind) -> Contender {
        { path, rows in
            let connection = try SQLiteConnection.open(
                storage: .file(path: path), threadPool: .singleton, on: MultiThreadedEventLoopGroup.singleton.any()
            ).wait()
            return Prepared(work: { try run(workload, connection, rows: rows) }, close: { try? connection.close().wait() })
        }
    }

    static func run(_ workload: Workloads.Kind, _ connection: SQLiteConnection, rows: Int) throws -> Int64 {
        switch workload {
        case .insertPositional:
            _ = try connection.query("BEGIN").wait()
            for row in 0..<rows {
                let binds = (0..<10).map { SQLiteData.integer(row + $0) }
                _ = try connection.query(Workloads.insertPositionalSQL, binds).wait()
            }
            _ = try connection.query("COMMIT").wait()
            return Int64(rows)
        case .fetchPositional:
            // Rows stream to a callback on the thread pool; values by position.
            let sum = NIOLockedValueBox<Int64>(0)
            try connection.query(Workloads.selectIntsSQL, []) { row in
                var rowSum: Int64 = 0
                for column in row.columns { rowSum &+= Int64(column.data.integer ?? 0) }
                sum.withLockedValue { $0 &+= rowSum }
            }.wait()
            return sum.withLockedValue { $0 }
        case .fetchModel:
            // A model per row, by column name: sqlite-nio's rows are read that way.
            let rows = try connection.query(Workloads.selectIntsSQL).wait()
            let items = rows.map { row in
                TenInts(
                    a0: int(row, "a0"), a1: int(row, "a1"), a2: int(row, "a2"), a3: int(row, "a3"), a4: int(row, "a4"),
                    a5: int(row, "a5"), a6: int(row, "a6"), a7: int(row, "a7"), a8: int(row, "a8"), a9: int(row, "a9"))
            }
            return items.reduce(0) { $0 &+ $1.sum }
        default:
            throw BenchError.sqlite("sqlite-nio does not run \(workload.rawValue)")
        }
    }

    static func int(_ row: SQLiteRow, _ name: String) -> Int { Int(row.column(name)?.integer ?? 0) }
}
