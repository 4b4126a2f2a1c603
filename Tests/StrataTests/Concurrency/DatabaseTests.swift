import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct DatabaseTests {
    @Test func readmeExample() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")))
        try database.executeWrite { try createReadmeCarsTable(on: $0) }
        try database.executeRead { connection in
            let count: Int? = try connection.query("SELECT count(*) FROM cars")
            #expect(count == 0)
        }
        try await database.write { try $0.run("INSERT INTO cars(name, price) VALUES(?, ?)", "Audi", 52_642) }
        try await database.writeInTransaction { try $0.run("INSERT INTO cars(name, price) VALUES(?, ?)", "Kia", 1) }
        let names = try await database.read { try $0.query("SELECT name FROM cars ORDER BY id") as [String] }
        #expect(names == ["Audi", "Kia"])
        #expect(throws: SQLiteError.self) { try database.executeRead { try $0.execute("DELETE FROM cars") } }
    }

    @Test func inMemoryReadsSeeWrites() throws {
        let database = try Database()
        try database.executeWrite { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        #expect(try database.executeRead { try $0.query("SELECT x FROM t") as Int? } == 1)
        let flagged = try Database(storageLocation: .inMemory, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX)
        #expect(try flagged.executeRead { $0.threadSafe })
    }

    @Test func preparationsRun() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(
            storageLocation: .onDisk(directory.path("db")),
            writerConnectionPreparation: { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS t(x)") },
            readerConnectionPreparation: { try $0.addScalarFunction(named: "answer", argumentCount: 0) { _, _ in .integer(42) } }
        )
        #expect(try database.executeRead { try $0.query("SELECT answer() FROM (SELECT 1)") as Int? } == 42)
    }

    @Test func sharedCacheTableLocksPoll() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")), tableLockPolicy: .poll(0.005), sharedCache: true)
        try database.executeWrite { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            try? database.executeWrite { connection in
                try connection.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(2)")
                holding.signal()
                release.wait()
                try connection.execute("COMMIT")
            }
        }.start()
        holding.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { release.signal() }
        let count = try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? }
        #expect(count == 2)
    }

    /// 8 reader threads and 1 writer moving money between accounts: every read sees the same
    /// total, and the final balances are what the writer committed.
    @Test func readersSeeConsistentStateUnderWrites() async throws {
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let database = try Database(storageLocation: .onDisk(directory.path("bank")), drainDelay: 0.2)
            let accounts = 20
            try database.executeWrite { connection in
                try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
                try connection.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
                try connection.transaction {
                    for id in 0..<accounts { try connection.run("INSERT INTO accounts VALUES(?, 1000)", id) }
                }
            }
            let deadline = Date().addingTimeInterval(2)
            let errors = UsageCounter()
            struct Tally { var failures: [String] = []; var transfers = 0; var reads = 0 }
            let tally = Locked(Tally())
            let group = DispatchGroup()
            for _ in 0..<8 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    while Date() < deadline {
                        do {
                            let total = try database.executeRead { try $0.query("SELECT sum(balance) FROM accounts") as Int? }
                            tally.withLock { tally in
                                tally.reads += 1
                                if total != accounts * 1000 { tally.failures.append("total \(String(describing: total))") }
                            }
                        } catch {
                            tally.withLock { $0.failures.append("\(error)") }
                        }
                    }
                }.start()
            }
            group.enter()
            Thread {
                defer { group.leave() }
                var generator = SystemRandomNumberGenerator()
                while Date() < deadline {
                    let from = Int.random(in: 0..<accounts, using: &generator)
                    let to = Int.random(in: 0..<accounts, using: &generator)
                    let amount = Int.random(in: 1...50, using: &generator)
                    do {
                        try database.writerConnectionQueue.executeInTransaction(transactionType: .immediate) { connection in
                            try connection.run("UPDATE accounts SET balance = balance - ? WHERE id = ?", amount, from)
                            try connection.run("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, to)
                        }
                        tally.withLock { $0.transfers += 1 }
                    } catch {
                        tally.withLock { $0.failures.append("\(error)") }
                    }
                }
            }.start()
            group.wait()
            _ = errors
            let final = tally.current
            #expect(final.failures.isEmpty, "\(final.failures.prefix(5))")
            #expect(final.transfers > 10 && final.reads > 100)
            let total = try database.executeRead { try $0.query("SELECT sum(balance) FROM accounts") as Int? }
            #expect(total == accounts * 1000)
            #expect(database.readerConnectionPool.busyConnections.isEmpty)
        }
    }

    /// A writer closure that begins a transaction and throws, or returns without committing,
    /// leaves the next caller a writer outside any transaction; what it wrote is rolled back.
    @Test func writerClosuresCannotLeaveATransactionOpen() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(v)") }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try database.executeWrite { db in
                try db.execute("BEGIN; INSERT INTO t VALUES(1)")
                throw Abort()
            }
        }
        try database.executeWrite { db in
            #expect(!db.isInTransaction)
            try db.transaction { try db.run("INSERT INTO t VALUES(?)", 2) }
        }
        try await database.writeWithoutTransaction { try $0.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES(3)") }
        try await database.writeInTransaction { try $0.run("INSERT INTO t VALUES(?)", 4) }
        // A nested call runs inline and must not end the outer closure's transaction.
        try database.executeWrite { db in
            try db.execute("BEGIN")
            try database.executeWrite { inner in try inner.run("INSERT INTO t VALUES(?)", 5) }
            #expect(db.isInTransaction)
            try db.execute("COMMIT")
        }
        let values = try await database.read { try $0.query("SELECT v FROM t ORDER BY v") as [Int] }
        #expect(values == [2, 4, 5])
    }

    /// A read closure that returns with a statement still stepping would keep the reader's
    /// snapshot: the next read on it would miss later commits.
    @Test func readClosuresCannotLeaveAStaleSnapshot() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("db")), maximumReaderCount: 1)
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(v); INSERT INTO t VALUES(1), (2)") }
        let leftover = try database.executeRead { db in
            let statement = try db.prepare("SELECT v FROM t")
            _ = try statement.step()
            return statement
        }
        try withExtendedLifetime(leftover) {
            #expect(!leftover.isBusy)
            try database.executeWrite { try $0.run("INSERT INTO t VALUES(?)", 3) }
            #expect(try database.executeRead { try $0.query("SELECT count(*) FROM t") as Int? } == 3)
        }
    }
}
