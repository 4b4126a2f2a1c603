import Foundation
import StrataSQift
import GRDB
import SQLite3
import Strata

/// A script of one-line INSERTs in a transaction, as a dump holds them, run as SQL text:
/// `sqlite3_exec` against Strata's `execute` and GRDB's `execute(sql:)`. Each statement is
/// compiled and run in turn, so the time grows with the script's length, linearly.
enum ScriptWorkloads {
    static let name = "execute-script"
    static let createSQL = "CREATE TABLE items (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, label TEXT NOT NULL)"

    @MainActor static func measureAll() throws -> [Result] {
        guard options.filter == nil || name.contains(options.filter!) else { return [] }
        if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
        let statements = options.rows ?? 200_000
        var script = "BEGIN TRANSACTION;\n"
        for row in 0..<statements { script += "INSERT INTO items (v, label) VALUES (\(row), 'item \(row)');\n" }
        script += "COMMIT;\n"

        let runs: [(String, String) throws -> Void] = [raw, strata, grdb]
        var measurements = Array(repeating: Measurement(), count: runs.count)
        var expected: Int64?
        for round in 0...options.runs {
            for (index, run) in runs.enumerated() {
                let path = directory.appendingPathComponent("\(name)-\(index).sqlite").path
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                let db = try Raw.open(path)
                try Raw.exec(db, createSQL)
                sqlite3_close_v2(db)
                let start = DispatchTime.now().uptimeNanoseconds
                try run(path, script)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                let result = try checksum(path)
                if let expected, expected != result { throw BenchError.mismatch("\(name): contender \(index) left \(result), expected \(expected)") }
                expected = result
                if round > 0 { measurements[index].times.append(elapsed) }
            }
        }
        return [Result(workload: name, rows: statements, raw: measurements[0], strata: measurements[1], grdb: measurements[2])]
    }

    static func checksum(_ path: String) throws -> Int64 {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        return try Raw.int64(db, "SELECT count(*) * 1000003 + sum(v) + sum(length(label)) FROM items")
    }

    static func raw(path: String, script: String) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        try Raw.exec(db, script)
    }

    static func strata(path: String, script: String) throws {
        let db = try Strata.Connection(storageLocation: .onDisk(path))
        try db.execute(Workloads.pragmas)
        try db.execute(script)
    }

    static func grdb(path: String, script: String) throws {
        var configuration = GRDB.Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: Workloads.pragmas) }
        let queue = try GRDB.DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in try db.execute(sql: script) }
    }
}
