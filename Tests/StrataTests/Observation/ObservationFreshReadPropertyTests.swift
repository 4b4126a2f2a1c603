import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// A generated sequence of writes of every kind (insert, update, delete, UPDATE OR REPLACE,
/// incremental blob writes, writes read through generated columns, temporary tables, rollbacks,
/// VACUUM, a fetch inside a transaction that rolls back): after each one, every observation's
/// latest value equals a fresh read (issue 40).
@Suite struct ObservationFreshReadPropertyTests {
    /// One write; `inTransaction` ones also run inside a transaction that is rolled back.
    enum Write: Sendable, CustomStringConvertible {
        case insert(k: Int, x: Int, v: String, blobLength: Int)
        case updateX(k: Int, x: Int)
        case updateOrReplace(from: Int, to: Int)
        case delete(k: Int)
        case blob(k: Int, byte: UInt8)
        case temp(n: Int)
        case vacuum
        /// The write runs in a transaction that is then rolled back.
        indirect case rolledBack(Write)
        /// BEGIN, the write, a new observation fetched inside the open transaction, ROLLBACK (on
        /// a ConnectionQueue, whose transaction may span closures).
        indirect case fetchedThenRolledBack(Write)

        var description: String {
            switch self {
            case .insert(let k, let x, let v, let length): return "insert(k: \(k), x: \(x), v: \(v), blob: \(length))"
            case .updateX(let k, let x): return "updateX(k: \(k), x: \(x))"
            case .updateOrReplace(let from, let to): return "updateOrReplace(\(from) -> \(to))"
            case .delete(let k): return "delete(k: \(k))"
            case .blob(let k, let byte): return "blob(k: \(k), byte: \(byte))"
            case .temp(let n): return "temp(\(n))"
            case .vacuum: return "vacuum"
            case .rolledBack(let write): return "rolledBack(\(write))"
            case .fetchedThenRolledBack(let write): return "fetchedThenRolledBack(\(write))"
            }
        }

        static func simple(_ random: inout SeededRandom, temp: Bool) -> Write {
            let k = random.int(0...4)
            switch random.int(0...(temp ? 5 : 4)) {
            case 0: return .insert(k: k, x: random.int(-3...9), v: random.pick(["a", "b", "c", "d"]), blobLength: random.int(0...3))
            case 1: return .updateX(k: k, x: random.int(-3...9))
            case 2: return .updateOrReplace(from: k, to: random.int(0...4))
            case 3: return .delete(k: k)
            case 4: return .blob(k: k, byte: UInt8(random.int(0...255)))
            default: return .temp(n: random.int(1...9))
            }
        }

        static func generate(_ random: inout SeededRandom, onQueue: Bool) -> Write {
            switch random.int(0...9) {
            case 0: return .rolledBack(simple(&random, temp: onQueue))
            case 1: return onQueue ? .fetchedThenRolledBack(simple(&random, temp: true)) : .vacuum
            case 2: return .vacuum
            default: return simple(&random, temp: onQueue)
            }
        }

        func apply(_ connection: Connection) throws {
            switch self {
            case .insert(let k, let x, let v, let length):
                try connection.run("INSERT OR IGNORE INTO t(k, x, v, b) VALUES(?, ?, ?, zeroblob(?))", k, x, v, length)
            case .updateX(let k, let x):
                try connection.run("UPDATE t SET x = ? WHERE k = ?", x, k)
            case .updateOrReplace(let from, let to):
                try connection.run("UPDATE OR REPLACE t SET k = ? WHERE k = ?", to, from)
            case .delete(let k):
                try connection.run("DELETE FROM t WHERE k = ?", k)
            case .blob(let k, let byte):
                guard let rowID: Int64 = try connection.query("SELECT id FROM t WHERE k = ? AND length(b) > 0", k) else { return }
                // SQLite 3.54 opens no blob of a table with a generated column: the same change through SQL.
                if Blob.refusesTablesWithGeneratedColumns {
                    try connection.run("UPDATE t SET b = unhex(hex(?) || substr(hex(b), 3)) WHERE id = ?", Data([byte]), rowID)
                    return
                }
                let blob = try connection.openBlob(table: "t", column: "b", rowID: rowID, writable: true)
                defer { blob.close() }
                try blob.write(Data([byte]))
            case .temp(let n):
                try connection.run("INSERT INTO scratch VALUES(?)", n)
            case .vacuum:
                try connection.execute("VACUUM")
            case .rolledBack(let write), .fetchedThenRolledBack(let write):
                try write.apply(connection)
            }
        }
    }

    struct RolledBack: Error {}

    // The blob column comes before the generated one: SQLite 3.40's sqlite3_blob_open misplaces a
    // column that follows a VIRTUAL generated column (it reads the one before it).
    static let schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER UNIQUE, x INTEGER, v TEXT, b BLOB, g AS (x * 2))"

    /// The observed fetches: each reads few columns, so that an under-reported write is missed.
    static func fetches(temp: Bool) -> [String] {
        var fetches = [
            "SELECT coalesce(group_concat(g), '') FROM (SELECT g FROM t ORDER BY g)",
            "SELECT coalesce(group_concat(v), '') FROM (SELECT v FROM t ORDER BY v)",
            "SELECT coalesce(group_concat(h), '') FROM (SELECT hex(b) AS h FROM t ORDER BY h)",
            "SELECT CAST((SELECT freelist_count FROM pragma_freelist_count) AS TEXT)"
        ]
        if temp { fetches.append("SELECT count(*) || ':' || coalesce(sum(n), 0) FROM scratch") }
        return fetches
    }

    /// Where the writes run and the fresh reads are made.
    struct Target: Sendable {
        let name: String
        let observable: any DatabaseObservable
        let write: @Sendable (Write) async throws -> Void
        let read: @Sendable (String) async throws -> String
        let queue: ConnectionQueue?

        /// Writes and fresh reads through `queue`, on its own connection, which sees temporary
        /// tables and its own open transaction.
        static func queue(_ queue: ConnectionQueue) -> Target {
            Target(
                name: "ConnectionQueue", observable: queue,
                write: { write in
                    guard case .rolledBack = write else { return try await queue.perform { try write.apply($0) } }
                    try await queue.performInTransaction { connection in
                        try write.apply(connection)
                        throw RolledBack()
                    }
                },
                read: { sql in try await queue.perform { try $0.query(sql) as String? ?? "" } },
                queue: queue)
        }

        /// Writes through `database`'s writer, fresh reads on its pool readers.
        static func database(_ database: Database) -> Target {
            Target(
                name: "Database", observable: database,
                write: { write in
                    switch write {
                    case .rolledBack:
                        try await database.writeInTransaction { connection in
                            try write.apply(connection)
                            throw RolledBack()
                        }
                    case .vacuum:
                        // VACUUM cannot run inside the transaction `write` opens.
                        try await database.writeWithoutTransaction { try write.apply($0) }
                    default:
                        try await database.write { try write.apply($0) }
                    }
                },
                read: { sql in try await database.read { try $0.query(sql) as String? ?? "" } },
                queue: nil)
        }
    }

    static func check(_ writes: [Write], on target: Target, seed: String) async throws {
        let fetches = fetches(temp: target.queue != nil)
        let observations = fetches.map { sql in
            ObservedValues(target.observable.observe { try $0.query(sql) as String? ?? "" })
        }
        defer { observations.forEach { $0.cancel() } }
        func converged(after step: String) async throws {
            for (sql, observed) in zip(fetches, observations) {
                let fresh = try await target.read(sql)
                await observed.wait(until: { $0.last == fresh })
                if observed.values.last != fresh {
                    Issue.record("\(target.name), \(seed): after \(step), \(sql) observed \(String(describing: observed.values.last)), fresh read \(fresh)")
                    throw RolledBack()
                }
            }
        }
        try await converged(after: "the start")
        for (index, write) in writes.enumerated() {
            let step = "write \(index) \(write) of \(writes)"
            switch write {
            case .rolledBack:
                do {
                    try await target.write(write)
                } catch is RolledBack {}
            case .fetchedThenRolledBack(let inner):
                guard let queue = target.queue else { continue }
                try await queue.perform { try $0.execute("BEGIN") }
                try await queue.perform { try inner.apply($0) }
                let sql = fetches[index % fetches.count]
                let inside = ObservedValues(queue.observe { try $0.query(sql) as String? ?? "" })
                await inside.wait(until: { !$0.isEmpty })
                try await queue.perform { try $0.execute("ROLLBACK") }
                let fresh = try await target.read(sql)
                await inside.wait(until: { $0.last == fresh })
                inside.cancel()
            default:
                try await target.write(write)
            }
            try await converged(after: step)
        }
    }

    @Test func observedValuesEqualAFreshReadAfterEveryWrite() async throws {
        // The cases are generated with the property runner (it names each case's seed), then run.
        var cases: [(seed: String, queue: [Write], database: [Write])] = []
        let base = PropertyCheck.baseSeed
        var index = 0
        try PropertyCheck.run("observation-fresh-read", cases: 3) { random in
            let count = random.int(6...14)
            let queue = (0..<count).map { _ in Write.generate(&random, onQueue: true) }
            let database = (0..<count).map { _ in Write.generate(&random, onQueue: false) }
            cases.append((seed: "base seed \(base), case \(index)", queue: queue, database: database))
            index += 1
        }
        for testCase in cases {
            // A ConnectionQueue: fetches on its own connection, which sees temporary tables and
            // its own open transaction.
            let queue = ConnectionQueue(connection: try Connection(storageLocation: .inMemory))
            try queue.execute { try $0.execute(Self.schema + "; CREATE TEMP TABLE scratch(n)") }
            try await Self.check(testCase.queue, on: .queue(queue), seed: testCase.seed)

            // A Database: fetches on pool readers after each commit.
            let directory = try TemporaryDirectory()
            let database = try await ObservationTests.makeDatabase(directory, schema: Self.schema)
            try await Self.check(testCase.database, on: .database(database), seed: testCase.seed)
        }
    }
}
