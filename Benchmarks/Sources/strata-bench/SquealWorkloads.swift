import Foundation
import Strata
import StrataSqueal

/// A model read the way Squeal code reads rows: by column name, from the statement.
struct SquealTenInts {
    let value: TenInts
    init(row: Statement) throws {
        value = TenInts(
            a0: row.intValue("a0") ?? 0, a1: row.intValue("a1") ?? 0, a2: row.intValue("a2") ?? 0,
            a3: row.intValue("a3") ?? 0, a4: row.intValue("a4") ?? 0, a5: row.intValue("a5") ?? 0,
            a6: row.intValue("a6") ?? 0, a7: row.intValue("a7") ?? 0, a8: row.intValue("a8") ?? 0,
            a9: row.intValue("a9") ?? 0)
    }
}

/// Squeal's helpers: `insertInto` with a dictionary per row (the SQL text is built per call, the
/// prepared statement comes from the cache) and `selectFrom` into a model.
enum SquealWorkloads {
    /// The caller's row, built per insert as Squeal code does. Raw C builds it too (and ignores
    /// it), so the ratio measures what `insertInto` adds; insert-positional's raw column is the
    /// same work without the dictionary.
    @inline(never)
    static func values(_ row: Int) -> [String: Bindable?] {
        [
            "a0": row, "a1": row + 1, "a2": row + 2, "a3": row + 3, "a4": row + 4,
            "a5": row + 5, "a6": row + 6, "a7": row + 7, "a8": row + 8, "a9": row + 9
        ]
    }

    /// Keeps the optimizer from dropping a value nobody reads.
    @inline(never)
    static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }

    static func run(_ workload: Workloads.Kind, db: Connection, rows: Int) throws -> Int64 {
        switch workload {
        case .squealInsertDictionary:
            try db.transaction {
                for row in 0..<rows {
                    try db.insertInto("items", values: values(row))
                }
            }
            return Int64(rows)
        case .squealSelectModel:
            let items = try db.selectFrom("items", block: SquealTenInts.init)
            return items.reduce(0) { $0 &+ $1.value.sum }
        default:
            return 0
        }
    }
}
