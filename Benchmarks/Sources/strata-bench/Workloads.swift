import Foundation
import SQLite3

enum Workloads {
    /// The same pragmas for every contender's connection.
    static let pragmas = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL"

    static let columns = (0..<10).map { "a\($0)" }
    static let createIntsSQL = "CREATE TABLE items(" + columns.map { "\($0) INTEGER" }.joined(separator: ", ") + ")"
    static let insertPositionalSQL = "INSERT INTO items VALUES(" + Array(repeating: "?", count: 10).joined(separator: ", ") + ")"
    static let insertNamedSQL = "INSERT INTO items VALUES(" + columns.map { ":\($0)" }.joined(separator: ", ") + ")"
    static let selectIntsSQL = "SELECT " + columns.joined(separator: ", ") + " FROM items"
    static let selectMixedSQL = "SELECT id, name, score, payload FROM mixed"
    static let selectDatesSQL = "SELECT date FROM dates"

    enum Kind: String, CaseIterable {
        case insertPositional = "insert-positional"
        case insertNamed = "insert-named"
        /// Named parameters from a dictionary built per row (SQift's form; GRDB's `StatementArguments`).
        case insertNamedDictionary = "insert-named-dictionary"
        case fetchPositional = "fetch-positional"
        case fetchNamed = "fetch-named"
        case fetchModel = "fetch-model"
        case fetchDecodable = "fetch-decodable"
        case fetchMixed = "fetch-mixed"
        case parseDates = "parse-dates"
        /// Two full scans of the fetch table: raw C does them one after the other on one thread,
        /// Strata on two threads through `Database` readers, GRDB through a `DatabasePool`.
        case fetchTwoThreads = "fetch-two-threads"
        /// Squeal's helpers (SquealWorkloads.swift) against the raw C of insert-positional and fetch-model.
        case squealInsertDictionary = "squeal-insert-dictionary"
        case squealSelectModel = "squeal-select-model"
        /// One row by key per call, each call its own read: raw C in `BEGIN`/`COMMIT`, Strata's
        /// `Database.read` and GRDB's `DatabasePool.read`, each one snapshot.
        case readByKey = "read-by-key"
        /// The same reads with no transaction around each: raw C in autocommit, Strata's
        /// `executeRead`, GRDB's `unsafeRead`. Beside `read-by-key`, the price of a snapshot.
        case readByKeyBare = "read-by-key-bare"

        var defaultRows: Int {
            switch self {
            case .insertPositional, .insertNamed, .insertNamedDictionary, .squealInsertDictionary, .parseDates: return 50_000
            case .readByKey, .readByKeyBare: return 20_000
            default: return 200_000
            }
        }

        var isInsert: Bool { self == .insertPositional || self == .insertNamed || self == .insertNamedDictionary || self == .squealInsertDictionary }
    }

    /// The SQL of `read-by-key`, and the rowid its `index`th read asks for (spread over the table).
    static let selectByKeySQL = "SELECT a0 FROM items WHERE rowid = ?"
    static func key(_ index: Int, rows: Int) -> Int64 { Int64((index &* 7919) % max(rows, 1) + 1) }

    /// Creates the database a workload starts from: an empty table for inserts, the rows to read
    /// for fetches. Every contender gets an identical copy.
    static func populate(_ kind: Kind, path: String, rows: Int) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        switch kind {
        case .insertPositional, .insertNamed, .insertNamedDictionary, .squealInsertDictionary:
            try Raw.exec(db, createIntsSQL)
        case .fetchPositional, .fetchNamed, .fetchModel, .fetchDecodable, .fetchTwoThreads, .squealSelectModel, .readByKey, .readByKeyBare:
            try Raw.exec(db, createIntsSQL + "; BEGIN")
            let statement = try Raw.prepare(db, insertPositionalSQL)
            defer { sqlite3_finalize(statement) }
            for row in 0..<rows {
                for column in 0..<10 { sqlite3_bind_int64(statement, Int32(column + 1), Int64((row * 31 + column * 7) % 100_003)) }
                sqlite3_step(statement)
                sqlite3_reset(statement)
            }
            try Raw.exec(db, "COMMIT")
        case .fetchMixed:
            try Raw.exec(db, "CREATE TABLE mixed(id INTEGER PRIMARY KEY, name TEXT, score REAL, payload BLOB); BEGIN")
            let statement = try Raw.prepare(db, "INSERT INTO mixed VALUES(?, ?, ?, ?)")
            defer { sqlite3_finalize(statement) }
            for row in 0..<rows {
                sqlite3_bind_int64(statement, 1, Int64(row))
                sqlite3_bind_text(statement, 2, "name number \(row)", -1, Raw.transient)
                sqlite3_bind_double(statement, 3, Double(row) * 0.25)
                let payload = (0..<16).map { UInt8(truncatingIfNeeded: row &+ $0) }
                sqlite3_bind_blob(statement, 4, payload, 16, Raw.transient)
                sqlite3_step(statement)
                sqlite3_reset(statement)
            }
            try Raw.exec(db, "COMMIT")
        case .parseDates:
            try Raw.exec(db, "CREATE TABLE dates(date TEXT); BEGIN")
            let statement = try Raw.prepare(db, "INSERT INTO dates VALUES(strftime('%Y-%m-%dT%H:%M:%f', ?, 'unixepoch'))")
            defer { sqlite3_finalize(statement) }
            for row in 0..<rows {
                sqlite3_bind_double(statement, 1, 946_684_800 + Double(row) * 3_599.123)
                sqlite3_step(statement)
                sqlite3_reset(statement)
            }
            try Raw.exec(db, "COMMIT")
        }
        try Raw.exec(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// What an insert workload must leave behind: row count and the sum of every column.
    static func insertedChecksum(path: String) throws -> Int64 {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        let sum = try Raw.int64(db, "SELECT total(" + columns.joined(separator: " + ") + ") FROM items")
        return try Raw.int64(db, "SELECT count(*) FROM items") &* 1_000_003 &+ sum
    }
}
