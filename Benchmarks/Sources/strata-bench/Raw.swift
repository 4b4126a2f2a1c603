import Foundation
import SQLite3

/// The limit: Swift calling sqlite3_* directly with one reused prepared statement.
enum Raw {
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func open(_ path: String) throws -> OpaquePointer {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            throw BenchError.sqlite("open \(path)")
        }
        try exec(db, Workloads.pragmas)
        return db
    }

    static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
    }

    static func prepare(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    static func int64(_ db: OpaquePointer, _ sql: String) throws -> Int64 {
        let statement = try prepare(db, sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError.sqlite(sql) }
        return sqlite3_column_int64(statement, 0)
    }

    static func contender(_ workload: Workloads.Kind) -> Contender {
        { path, rows in
            let db = try open(path)
            return Prepared(work: { try run(workload, db: db, rows: rows) }, close: { sqlite3_close_v2(db) })
        }
    }

    static func run(_ workload: Workloads.Kind, db: OpaquePointer, rows: Int) throws -> Int64 {
        switch workload {
        case .insertPositional, .insertNamed, .insertNamedDictionary, .squealInsertDictionary:
            let positional = workload == .insertPositional || workload == .squealInsertDictionary
            let statement = try prepare(db, positional ? Workloads.insertPositionalSQL : Workloads.insertNamedSQL)
            defer { sqlite3_finalize(statement) }
            // Named parameters: raw resolves each name once, the best C can do.
            let indexes: [Int32] = (0..<10).map { column in
                positional ? Int32(column + 1) : sqlite3_bind_parameter_index(statement, ":a\(column)")
            }
            try exec(db, "BEGIN")
            for row in 0..<rows {
                // Squeal's row: raw C pays the caller's cost too (the dictionary), then ignores it.
                if workload == .squealInsertDictionary { SquealWorkloads.blackHole(SquealWorkloads.values(row)) }
                for column in 0..<10 {
                    sqlite3_bind_int64(statement, indexes[column], Int64(row + column))
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.sqlite(String(cString: sqlite3_errmsg(db))) }
                sqlite3_reset(statement)
            }
            try exec(db, "COMMIT")
            return Int64(rows)
        case .fetchPositional, .fetchNamed, .fetchTwoThreads:
            let statement = try prepare(db, Workloads.selectIntsSQL)
            defer { sqlite3_finalize(statement) }
            var sum: Int64 = 0
            for _ in 0..<(workload == .fetchTwoThreads ? 2 : 1) {
                while sqlite3_step(statement) == SQLITE_ROW {
                    for column in Int32(0)..<10 { sum &+= sqlite3_column_int64(statement, column) }
                }
                sqlite3_reset(statement)
            }
            return sum
        case .readByKey, .readByKeyBare:
            let statement = try prepare(db, Workloads.selectByKeySQL)
            let begin = try prepare(db, "BEGIN"), commit = try prepare(db, "COMMIT")
            defer { for each in [statement, begin, commit] { sqlite3_finalize(each) } }
            let inTransaction = workload == .readByKey
            var sum: Int64 = 0
            for index in 0..<rows {
                if inTransaction { sqlite3_step(begin); sqlite3_reset(begin) }
                sqlite3_bind_int64(statement, 1, Workloads.key(index, rows: rows))
                if sqlite3_step(statement) == SQLITE_ROW { sum &+= sqlite3_column_int64(statement, 0) }
                sqlite3_reset(statement)
                if inTransaction { sqlite3_step(commit); sqlite3_reset(commit) }
            }
            return sum
        case .fetchModel, .fetchDecodable, .squealSelectModel:
            let statement = try prepare(db, Workloads.selectIntsSQL)
            defer { sqlite3_finalize(statement) }
            var items: [TenInts] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                items.append(
                    TenInts(
                        a0: Int(sqlite3_column_int64(statement, 0)), a1: Int(sqlite3_column_int64(statement, 1)),
                        a2: Int(sqlite3_column_int64(statement, 2)), a3: Int(sqlite3_column_int64(statement, 3)),
                        a4: Int(sqlite3_column_int64(statement, 4)), a5: Int(sqlite3_column_int64(statement, 5)),
                        a6: Int(sqlite3_column_int64(statement, 6)), a7: Int(sqlite3_column_int64(statement, 7)),
                        a8: Int(sqlite3_column_int64(statement, 8)), a9: Int(sqlite3_column_int64(statement, 9))))
            }
            return items.reduce(0) { $0 &+ $1.sum }
        case .fetchMixed:
            let statement = try prepare(db, Workloads.selectMixedSQL)
            defer { sqlite3_finalize(statement) }
            var items: [Mixed] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                let text = sqlite3_column_text(statement, 1)
                let textCount = Int(sqlite3_column_bytes(statement, 1))
                let name = text.map { String(decoding: UnsafeBufferPointer(start: $0, count: textCount), as: UTF8.self) } ?? ""
                let blobCount = Int(sqlite3_column_bytes(statement, 3))
                let blob = sqlite3_column_blob(statement, 3).map { Data(bytes: $0, count: blobCount) } ?? Data()
                items.append(
                    Mixed(
                        id: sqlite3_column_int64(statement, 0), name: name,
                        score: sqlite3_column_double(statement, 2), payload: blob))
            }
            return items.reduce(0) { $0 &+ $1.checksum }
        case .parseDates:
            let statement = try prepare(db, Workloads.selectDatesSQL)
            defer { sqlite3_finalize(statement) }
            var dates: [Date] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                guard let text = sqlite3_column_text(statement, 0) else { continue }
                let buffer = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 0)))
                if let date = parseDefaultDate(buffer) { dates.append(date) }
            }
            return dates.reduce(0) { $0 &+ Int64(($1.timeIntervalSince1970 * 1000).rounded()) }
        }
    }

    /// A minimal hand parser of `yyyy-MM-dd'T'HH:mm:ss.SSS` (UTC): what C code would do.
    static func parseDefaultDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 23 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int64 {
            var value: Int64 = 0
            for index in start..<(start + count) { value = value * 10 + Int64(bytes[index] &- 48) }
            return value
        }
        var year = number(0, 4)
        let month = number(5, 2)
        let day = number(8, 2)
        year -= month <= 2 ? 1 : 0
        let era = (year >= 0 ? year : year - 399) / 400
        let yoe = year - era * 400
        let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        let ms = ((days * 24 + number(11, 2)) * 60 + number(14, 2)) * 60_000 + number(17, 2) * 1000 + number(20, 3)
        return Date(timeIntervalSinceReferenceDate: Double(ms) / 1000 - 978_307_200)
    }
}
