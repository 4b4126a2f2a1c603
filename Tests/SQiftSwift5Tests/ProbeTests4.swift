import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

// Review probe, fourth batch: full initialiser forms of the concurrency types, function values.
@Suite struct SQiftProbeConcurrencyTests {
    @Test func databaseInitialiserForms() throws {
        let directory = try TestDirectory()
        let path = directory.path("d.db")
        var writerPrepared = 0
        var readerPrepared = 0
        let database = try Database(
            storageLocation: .onDisk(path),
            tableLockPolicy: .poll(0.01),
            multiThreaded: true,
            sharedCache: false,
            drainDelay: 0.1,
            writerConnectionPreparation: { connection in
                writerPrepared += 1
                try connection.execute("PRAGMA journal_mode = WAL")
            },
            readerConnectionPreparation: { _ in readerPrepared += 1 }
        )
        try database.executeWrite { try $0.execute("CREATE TABLE t(a); INSERT INTO t VALUES(1)") }
        let n: Int = try database.readerConnectionPool.execute { try $0.query("SELECT count(*) FROM t") }
        #expect(n == 1)
        #expect(writerPrepared == 1)
        #expect(readerPrepared == 1)
        let flagged = try Database(
            storageLocation: .onDisk(path),
            tableLockPolicy: .fastFail,
            flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
            drainDelay: 0.1,
            writerConnectionPreparation: nil,
            readerConnectionPreparation: nil
        )
        try flagged.executeRead { connection in
            #expect(connection.readOnly)
        }
        try flagged.writerConnectionQueue.executeInTransaction { try $0.execute("INSERT INTO t VALUES(2)") }
        let failing = ConnectionPool(storageLocation: .onDisk(path)) { _ in
            throw SQLiteError(code: SQLITE_ERROR, message: "nope")
        }
        #expect(throws: SQLiteError.self) { try failing.execute { _ in } }
    }

    @Test func functionValueKinds() throws {
        let db = try Connection()
        var seen: [String] = []
        try db.addScalarFunction(named: "kind", argumentCount: -1) { _, values in
            for value in values {
                switch value.type {
                case .null: seen.append("null \(value.isNull)")
                case .integer: seen.append("integer \(value.long) \(value.integer) \(value.isInteger)")
                case .double: seen.append("double \(value.double) \(value.isDouble)")
                case .text: seen.append("text \(value.text) \(value.isText)")
                case .data: seen.append("data \(value.data.count) \(value.isData) \(value.buffer.count)")
                }
            }
            return .integer(Int32(values.count))
        }
        let count: Int = try db.query("SELECT kind(NULL, 1, 2.5, 'x', x'0102')")
        #expect(count == 5)
        #expect(seen == ["null true", "integer 1 1 true", "double 2.5 true", "text x true", "data 2 true 2"])
        let big: Int = try db.query("SELECT kind(?)", Int64.max)
        #expect(big == 1)
        #expect(seen.last == "integer \(Int64.max) \(Int32(truncatingIfNeeded: Int64.max)) true" || seen.last?.hasPrefix("integer \(Int64.max)") == true)
        try db.addScalarFunction(named: "fail", argumentCount: 0) { _, _ in .error(message: "bad input", code: SQLITE_CONSTRAINT) }
        do {
            let _: Int? = try db.query("SELECT fail()")
            Issue.record("expected an error")
        } catch let error as SQLiteError {
            #expect(error.message == "bad input")
            #expect(error.code == SQLITE_CONSTRAINT)
        }
    }
}
