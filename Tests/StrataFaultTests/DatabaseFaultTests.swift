import Foundation
import StrataSQift
import Strata
@testable import StrataCore
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

extension FaultSweeps {
    /// The pool and observation under faults: a reader whose open fails is not kept, a full disk in
    /// the middle of a write rolls it back, and an observation resumes after a failed refetch.
    @Suite struct DatabaseFaultTests {
        static func makeDatabase(_ scope: FaultScope) throws -> Database {
            let database = try Database(storageLocation: .onDisk(scope.path("db.sqlite")))
            try database.executeWrite { db in
                try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
                try db.run("INSERT INTO t(v) VALUES(randomblob(100))")
            }
            return database
        }

        @Test func readerWhoseOpenFailsIsNotKept() throws {
            let scope = try FaultScope()
            let database = try Self.makeDatabase(scope)
            scope.arm(.open(.mainDatabase), at: 1)
            #expect {
                try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? }
            } throws: { error in
                (error as? SQLiteError)?.code == SQLITE_CANTOPEN
            }
            #expect(database.readerConnectionPool.availableConnections.isEmpty && database.readerConnectionPool.busyConnections.isEmpty)
            scope.clear()
            #expect(try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? } == 1)
            #expect(database.readerConnectionPool.availableConnections.count == 1)
        }

        @Test func fullDiskInTheMiddleOfAWriteRollsBack() throws {
            let scope = try FaultScope()
            let database = try Self.makeDatabase(scope)
            var points = 0
            for nth in 1...200 {
                points += 1
                scope.arm(.full(.wal), at: nth)
                var threw = false
                do {
                    try database.executeWrite { db in
                        try db.transaction {
                            for _ in 0..<20 { try db.run("INSERT INTO t(v) VALUES(randomblob(3000))") }
                        }
                    }
                } catch let error as SQLiteError {
                    threw = true
                    #expect(error.code == SQLITE_FULL && error.message.contains("full"), "\(error)")
                }
                let injected = scope.injected
                scope.clear()
                let count = try database.executeWrite { db -> Int in
                    #expect(!db.isInTransaction)
                    return try db.query("SELECT count(*) FROM t") ?? -1
                }
                #expect(count == (threw ? 1 : 21), "call \(nth): \(count) rows")
                // The pool serves again: readers read, the writer writes.
                #expect(try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? } == count)
                if !threw {
                    #expect(injected == 0, "call \(nth): the fault was absorbed")
                    break
                }
            }
            print("fault sweep: Database.write under a full disk: \(points) fault points")
        }

        @Test func observationResumesAfterAFailedRefetch() async throws {
            let scope = try FaultScope()
            let database = try Self.makeDatabase(scope)
            let results = Locked<[Result<Int, any Error>]>([])
            let token = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { result in
                results.withLock { $0.append(result) }
            }
            defer { token.cancel() }
            func lastValue() -> Int? { if case .success(let value)? = results.current.last { return value } else { return nil } }
            func waitFor(seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline {
                    if condition() { return true }
                    try? await Task.sleep(for: .milliseconds(5))
                }
                return condition()
            }
            #expect(await waitFor { lastValue() == 1 })
            var points = 0, errorsSeen = 0
            for nth in 1...200 {
                points += 1
                let seen = results.current.count
                scope.arm(.read(.any), at: nth)
                do {
                    try await database.write { try $0.run("INSERT INTO t(v) VALUES(randomblob(100))") }
                } catch let error as SQLiteError {
                    #expect(error.code == SQLITE_IOERR, "\(error)")
                }
                // Whatever the fault hit, something arrives (a value or the error) or the write failed.
                _ = await waitFor(seconds: 0.5) { results.current.count > seen }
                let injected = scope.injected
                scope.clear()
                let delivered = results.current[seen...]
                let failures = delivered.filter { if case .failure = $0 { return true } else { return false } }
                for case .failure(let error) in failures {
                    #expect((error as? SQLiteError)?.code == SQLITE_IOERR, "the consumer saw \(error)")
                }
                errorsSeen += failures.count
                // The truth, read once the fault is gone; the observation comes back to it.
                let truth = try await database.read { try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }
                if !failures.isEmpty {
                    // A new commit is not needed: the observation retries by itself.
                    #expect(
                        await waitFor { lastValue() == truth },
                        "call \(nth): the observation did not resume (\(results.current.last.map { "\($0)" } ?? "nothing"))")
                } else {
                    #expect(await waitFor { lastValue() == truth }, "call \(nth): stuck at \(lastValue() ?? -1), truth \(truth)")
                }
                if injected == 0 { break }
            }
            #expect(errorsSeen > 0, "no refetch failed: the sweep did not reach the fetch")
            print("fault sweep: observation refetch: \(points) fault points, \(errorsSeen) errors delivered to the consumer")
        }
    }
}
