import Foundation
import StrataSQift
import StrataTestSupport
import Testing
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// One way in (issue 83): `Database(path:configuration:)` with every setting a `Configuration`
/// field, the same behaviour whatever opened a `Database`, synchronous twins of `read` and
/// `write`, `Connection(path:configuration:)`, and the `DatabaseReader`/`DatabaseWriter` pair.
/// Real files throughout.
@Suite struct FrontDoorTests {
    static func count(_ db: Connection) throws -> Int { try db.query("SELECT count(*) FROM t") ?? -1 }

    /// Counts through a protocol, as code written against any database would.
    static func rowCount(in database: some DatabaseReader) async throws -> Int {
        try await database.read { db in try count(db) }
    }

    /// Inserts through a protocol, synchronously.
    static func insert(_ value: Int, into database: some DatabaseWriter) throws {
        try database.write { db in try db.run("INSERT INTO t VALUES(?)", value) }
    }

    @Test func synchronousWriteIsOneImmediateTransactionAndRollsBackOnThrow() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("app.sqlite"))
        try database.write { db in try db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)") }
        #expect(try database.write { $0.isInTransaction })
        #expect(throws: SQLiteError.self) {
            try database.write { db in
                try db.run("INSERT INTO t VALUES(?)", 1)
                try db.run("INSERT INTO t VALUES(?)", 1) // a primary key clash: both undone
            }
        }
        #expect(try database.read { try Self.count($0) } == 0)
        #expect(try database.writeWithoutTransaction { $0.isInTransaction } == false)
        try database.writeWithoutTransaction { try $0.execute("VACUUM") }
    }

    @Test func synchronousReadIsOneSnapshot() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try Database(path: path)
        try database.write { db in try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let counts = try database.read { db -> [Int] in
            let before = try Self.count(db)
            let other = try Connection(path: path)
            try other.execute("INSERT INTO t VALUES(2)")
            return [before, try Self.count(db)]
        }
        #expect(counts == [1, 1])
        #expect(try database.read { try Self.count($0) } == 2)
    }

    /// SQift's opener, through `StrataSQift`: its async and synchronous `write` are transactions,
    /// its `read` a snapshot, its calls tracked for `close()`; its `executeWrite` stays bare.
    @Test func aDatabaseOpenedBySQiftsOpenerBehavesTheSame() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(storageLocation: .onDisk(directory.path("sqift.sqlite")))
        // In code that is not async, the same names block; in an async context they need `await`.
        func synchronously() throws {
            try database.executeWrite { db in try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x)") }
            #expect(try database.executeWrite { $0.isInTransaction } == false)
            #expect(try database.write { $0.isInTransaction })
            #expect(try database.read { $0.isInTransaction })
            try Self.insert(1, into: database)
        }
        try synchronously()
        #expect(try await database.write { $0.isInTransaction })
        #expect(try await database.read { $0.isInTransaction })
        #expect(try await Self.rowCount(in: database) == 1)
        try await database.close()
        func afterClose() {
            #expect(throws: DatabaseError.closed) { try database.write { _ in } }
            #expect(throws: DatabaseError.closed) { try database.read { _ in } }
            #expect(throws: DatabaseError.closed) { try database.executeRead { _ in } }
        }
        afterClose()
    }

    @Test func aPrivateInMemoryDatabaseReadsWhatItWrote() async throws {
        let database = try Database(path: ":memory:")
        try await database.write { db in try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        #expect(try await database.read { try Self.count($0) } == 1)
        #expect(try await Self.rowCount(in: database) == 1)
        let other = try Database(path: ":memory:")
        await #expect(throws: SQLiteError.self) { try await other.read { try Self.count($0) } }
    }

    @Test func aNamedInMemoryDatabaseIsSharedByEveryDatabaseThatOpensTheName() async throws {
        let name = "front-door-\(UUID().uuidString)"
        let first = try Database(path: Database.inMemoryPath(named: name))
        try await first.write { db in try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1), (2)") }
        let second = try Database(path: Database.inMemoryPath(named: name))
        #expect(try await second.read { try Self.count($0) } == 2)
        #expect(try await Self.rowCount(in: second) == 2)
        let elsewhere = try Database(path: Database.inMemoryPath(named: name + "-other"))
        await #expect(throws: SQLiteError.self) { try await elsewhere.read { try Self.count($0) } }
    }

    @Test func readOnlyOpensAnExistingFileAndRefusesWrites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        var configuration = Database.Configuration()
        configuration.readOnly = true
        #expect(throws: SQLiteError.self) { try Database(path: path, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: path))

        let writable = try Database(path: path)
        try await writable.write { db in try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        try await writable.close()

        let readOnly = try Database(path: path, configuration: configuration)
        #expect(try await readOnly.read { try Self.count($0) } == 1)
        #expect(try await Self.rowCount(in: readOnly) == 1)
        let error = #expect(throws: SQLiteError.self) { try Self.insert(2, into: readOnly) }
        #expect(error?.resultCode.primary == .readOnly)
        #expect(try await readOnly.read { try Self.count($0) } == 1)
    }

    @Test func everyConnectionRunsThePreparationsInOrder() async throws {
        let directory = try TemporaryDirectory()
        let seen = Locked<[String]>([])
        var configuration = Database.Configuration()
        configuration.maximumReaderCount = 2
        configuration.prepareConnection { db in
            try db.addScalarFunction(named: "twice", argumentCount: 1, deterministic: true) { _, values in .long(values[0].long * 2) }
            seen.withLock { $0.append("function") }
        }
        configuration.prepareConnection { db in
            // Runs after the settings: foreign keys are already on.
            let foreignKeys: Int = try db.query("PRAGMA foreign_keys") ?? -1
            seen.withLock { $0.append("second \(foreignKeys)") }
        }
        let database = try Database(path: directory.path("app.sqlite"), configuration: configuration)
        #expect(seen.current == ["function", "second 1"])
        #expect(try await database.write { try $0.query("SELECT twice(21)") as Int? } == 42)
        #expect(try await database.read { try $0.query("SELECT twice(4)") as Int? } == 8)
        #expect(seen.current == ["function", "second 1", "function", "second 1"])
    }

    @Test func aFailingPreparationFailsTheOpen() throws {
        let directory = try TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.prepareConnection { db in try db.execute("PRAGMA no_such_thing; SELECT * FROM missing") }
        #expect(throws: SQLiteError.self) { try Database(path: directory.path("app.sqlite"), configuration: configuration) }
    }

    @Test func configurationsAreEqualUntilAPreparationIsAdded() {
        var first = Database.Configuration()
        var second = Database.Configuration()
        #expect(first == second)
        first.prepareConnection { _ in }
        #expect(first != second)
        second = first
        #expect(first == second)
        second.readOnly = true
        #expect(first != second)
    }

    @Test func anExtensionThatIsNotThereFailsTheOpen() throws {
        let directory = try TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.extensions = [directory.path("missing.so")]
        #expect(throws: (any Error).self) { try Database(path: directory.path("app.sqlite"), configuration: configuration) }
    }

    @Test func replicationSafetyIsAConfigurationField() throws {
        let directory = try TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.replicationSafety = ReplicationSafety(busyTimeout: 2, automaticCheckpoints: .off)
        let database = try Database(path: directory.path("ledger.sqlite"), configuration: configuration)
        let settings = try database.writeWithoutTransaction { db -> [String] in
            [
                try db.query("PRAGMA journal_mode") ?? "", "\(try db.query("PRAGMA wal_autocheckpoint") as Int? ?? -1)",
                "\(try db.query("PRAGMA busy_timeout") as Int? ?? -1)", "\(db.beginsDeferredTransactionsImmediately)"
            ]
        }
        #expect(settings == ["wal", "0", "2000", "true"])
        #expect(throws: ReplicationSafetyError.self) { try Database(path: ":memory:", configuration: configuration) }
        configuration.replicationSafety = ReplicationSafety(automaticCheckpoints: .everyPages(0))
        #expect(throws: ReplicationSafetyError.self) { try Database(path: directory.path("other.sqlite"), configuration: configuration) }
    }

    @Test func anUnusableBusyTimeoutIsRefusedBeforeAnythingOpens() throws {
        let directory = try TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.busyTimeout = .nan
        #expect(throws: SQLiteError.self) { try Database(path: directory.path("app.sqlite"), configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("app.sqlite")))
        // Longer than SQLite can wait is SQLite's longest wait, not a trap.
        configuration.busyTimeout = 1e16
        let patient = try Database(path: directory.path("patient.sqlite"), configuration: configuration)
        #expect(try patient.read { try $0.query("PRAGMA busy_timeout") as Int? } == Int(Int32.max))
    }

    @Test func aSingleConnectionTakesTheSameSettings() throws {
        let directory = try TemporaryDirectory()
        var configuration = Connection.Configuration()
        configuration.busyTimeout = 3
        let db = try Connection(path: directory.path("one.sqlite"), configuration: configuration)
        #expect(try db.query("PRAGMA journal_mode") as String? == "wal")
        #expect(try db.query("PRAGMA foreign_keys") as Int? == 1)
        #expect(try db.query("PRAGMA busy_timeout") as Int? == 3_000)
        #expect(try db.query("PRAGMA synchronous") as Int? == 1)
        let memory = try Connection(path: ":memory:")
        #expect(try memory.query("PRAGMA journal_mode") as String? == "memory")
    }

    /// A closed database throws SQLite's misuse under GRDB's name for SQLite's error, and
    /// `catch DatabaseError.closed` matches it and nothing else.
    @Test func aClosedDatabaseThrowsSQLitesMisuseUnderGRDBsName() async throws {
        let database = try Database(path: ":memory:")
        try await database.close()
        var caught = false
        do { try await database.read { _ in } } catch DatabaseError.closed { caught = true }
        #expect(caught)
        do {
            try await database.write { _ in }
            Issue.record("a write on a closed database ran")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .misuse)
            #expect(error == .closed)
        }
        #expect(!(SQLiteError.closed ~= SQLiteError(code: SQLITE_MISUSE, message: "another misuse")))
        #expect(!(SQLiteError.closed ~= CancellationError()))
    }

    /// Each way a `Database` can be opened, for the behaviour test below.
    enum Opener: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case path, configured, namedInMemory, sqiftBooleans, sqiftFlags

        var testDescription: String { rawValue }
        /// SQift's openers keep SQift's defaults: no foreign keys unless a preparation asks.
        var enforcesForeignKeys: Bool { self == .path || self == .configured || self == .namedInMemory }
        var isOnDisk: Bool { self != .namedInMemory }

        func open(_ path: String) throws -> Database {
            switch self {
            case .path: return try Database(path: path)
            case .configured:
                var configuration = Database.Configuration()
                configuration.maximumReaderCount = 2
                configuration.replicationSafety = ReplicationSafety()
                return try Database(path: path, configuration: configuration)
            case .namedInMemory: return try Database(path: Database.inMemoryPath(named: path))
            case .sqiftBooleans:
                return try Database(storageLocation: .onDisk(path), writerConnectionPreparation: { try $0.execute("PRAGMA journal_mode = WAL") })
            case .sqiftFlags:
                return try Database(
                    storageLocation: .onDisk(path), flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                    writerConnectionPreparation: { try $0.execute("PRAGMA journal_mode = WAL") })
            }
        }
    }

    /// One behaviour whatever opened the `Database`: reads in one snapshot, synchronous and
    /// async writes in one transaction each (undone together on a throw), foreign keys as the
    /// opener's defaults say, and `close()` waiting for the write still running.
    @Test(arguments: Opener.allCases) func everyOpenerGivesTheSameBehaviour(_ opener: Opener) async throws {
        let directory = try TemporaryDirectory()
        let path = opener == .namedInMemory ? "behaviour-\(UUID().uuidString)" : directory.path("app.sqlite")
        let database = try opener.open(path)
        try await database.write { db in
            try db.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY); CREATE TABLE t(x INTEGER PRIMARY KEY, p REFERENCES parent)")
        }
        // Writes: one transaction each, sync and async, both undone on a throw.
        func synchronousWrite() throws {
            #expect(throws: SQLiteError.self) {
                try database.write { db in
                    try db.run("INSERT INTO t(x) VALUES(?)", 1)
                    try db.run("INSERT INTO t(x) VALUES(?)", 1)
                }
            }
            #expect(try database.write { $0.isInTransaction })
        }
        try synchronousWrite()
        await #expect(throws: SQLiteError.self) {
            try await database.write { db in
                try db.run("INSERT INTO t(x) VALUES(?)", 2)
                try db.run("INSERT INTO t(x) VALUES(?)", 2)
            }
        }
        #expect(try await Self.rowCount(in: database) == 0)
        // Reads: one snapshot, whoever commits meanwhile.
        try await database.write { db in try db.run("INSERT INTO t(x) VALUES(?)", 3) }
        let counts = try await database.read { db -> [Int] in
            let before = try Self.count(db)
            if opener.isOnDisk {
                let other = try Connection(path: path)
                try other.execute("INSERT INTO t(x) VALUES(4)")
            }
            return [before, try Self.count(db)]
        }
        #expect(counts[0] == counts[1] && counts[0] == 1)
        // Foreign keys: a row pointing nowhere is refused where the opener turns them on.
        do {
            try await database.write { db in try db.run("INSERT INTO t(x, p) VALUES(?, ?)", 10, 99) }
            #expect(!opener.enforcesForeignKeys, "a row pointing nowhere was accepted")
        } catch let error as SQLiteError {
            #expect(opener.enforcesForeignKeys)
            #expect(error.resultCode.primary == .constraint)
        }
        let orphans = try await database.read { try $0.query("SELECT count(*) FROM t WHERE x = 10") as Int? }
        #expect((orphans == 0) == opener.enforcesForeignKeys)
        // close() waits for the write still running, and what it wrote is kept.
        let started = Locked(false)
        let writing = Task {
            try await database.write { db in
                started.withLock { $0 = true }
                Thread.sleep(forTimeInterval: 0.2)
                try db.run("INSERT INTO t(x) VALUES(?)", 20)
            }
        }
        while !started.current { try await Task.sleep(for: .milliseconds(2)) }
        try await database.close()
        let written: Void? = try? await writing.value
        #expect(written != nil)
        await #expect(throws: DatabaseError.closed) { try await database.read { _ in } }
        if opener.isOnDisk {
            let reopened = try Connection(path: path)
            #expect(try reopened.query("SELECT count(*) FROM t WHERE x = 20") as Int? == 1)
        }
    }
}
