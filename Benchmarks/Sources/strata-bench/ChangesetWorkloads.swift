import Foundation
import StrataSQift
import SQLite3
import Strata
// The session extension's declarations, which Strata's own header gives on every platform.
import StrataSQLiteSession

/// Record the changes of one UPDATE over every row with the session extension, then apply the
/// changeset to a copy of the original: raw C against Strata's changeset API (GRDB has none).
enum ChangesetWorkloads {
    static let name = "changeset-record-apply"
    static let createSQL = "CREATE TABLE items (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, label TEXT NOT NULL)"
    static let updateSQL = "UPDATE items SET v = v + 1, label = label || '!'"

    @MainActor static func measureAll() throws -> [Result] {
        guard options.filter == nil || name.contains(options.filter!) else { return [] }
        if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
        let rows = options.rows ?? 100_000
        let template = directory.appendingPathComponent("\(name)-template.sqlite").path
        let db = try Raw.open(template)
        try Raw.exec(db, createSQL)
        try Raw.exec(db, "BEGIN")
        let insert = try Raw.prepare(db, "INSERT INTO items (v, label) VALUES (?, ?)")
        for row in 0..<rows {
            sqlite3_bind_int64(insert, 1, Int64(row))
            sqlite3_bind_text(insert, 2, "item \(row)", -1, Raw.transient)
            guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite("populate") }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        try Raw.exec(db, "COMMIT")
        sqlite3_close_v2(db)

        var measurements = [Measurement(), Measurement()]
        var expected: Int64?
        for round in 0...options.runs {
            for (index, run) in [raw, strata].enumerated() {
                let source = directory.appendingPathComponent("\(name)-\(index)-source.sqlite").path
                let target = directory.appendingPathComponent("\(name)-\(index)-target.sqlite").path
                try copyDatabase(from: template, to: source)
                try copyDatabase(from: template, to: target)
                let start = DispatchTime.now().uptimeNanoseconds
                try run(source, target)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                let result = try checksum(target)
                if let expected, expected != result { throw BenchError.mismatch("\(name): contender \(index) left \(result), expected \(expected)") }
                expected = result
                if round > 0 { measurements[index].times.append(elapsed) }
            }
        }
        return [Result(workload: name, rows: rows, raw: measurements[0], strata: measurements[1], grdb: Measurement())]
    }

    static func checksum(_ path: String) throws -> Int64 {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        let statement = try Raw.prepare(db, "SELECT sum(v) + sum(length(label)) FROM items")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError.sqlite("checksum") }
        return sqlite3_column_int64(statement, 0)
    }

    static func raw(source: String, target: String) throws {
        let db = try Raw.open(source)
        defer { sqlite3_close_v2(db) }
        var session: OpaquePointer?
        guard sqlite3session_create(db, "main", &session) == SQLITE_OK else { throw BenchError.sqlite("session") }
        defer { sqlite3session_delete(session) }
        sqlite3session_attach(session, nil)
        try Raw.exec(db, updateSQL)
        var count: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        guard sqlite3session_changeset(session, &count, &bytes) == SQLITE_OK else { throw BenchError.sqlite("changeset") }
        defer { sqlite3_free(bytes) }
        let other = try Raw.open(target)
        defer { sqlite3_close_v2(other) }
        let code = sqlite3changeset_apply(other, count, bytes, nil, { _, _, _ in SQLITE_CHANGESET_ABORT }, nil)
        guard code == SQLITE_OK else { throw BenchError.sqlite("apply \(code)") }
    }

    static func strata(source: String, target: String) throws {
        let db = try Connection(storageLocation: .onDisk(source))
        try db.execute(Workloads.pragmas)
        let session = try db.recordChanges()
        try db.execute(updateSQL)
        let changeset = try session.changeset()
        let other = try Connection(storageLocation: .onDisk(target))
        try other.execute(Workloads.pragmas)
        try other.apply(changeset) { _ in .abort }
    }
}
