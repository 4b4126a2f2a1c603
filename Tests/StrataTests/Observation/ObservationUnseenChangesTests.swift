import Foundation
import StrataSQift
import Testing
import StrataTestSupport
import Strata
@testable import StrataCore

/// Changes the authorizer does not report, or under-reports: each reached observers' regions
/// (issue 40, items 1-7).
@Suite struct ObservationUnseenChangesTests {
    static func makeDatabase(_ directory: TemporaryDirectory) throws -> Database {
        try ObservationTests.makeDatabase(directory)
    }

    static func makeDatabase(_ directory: TemporaryDirectory, schema: String) async throws -> Database {
        try await ObservationTests.makeDatabase(directory, schema: schema)
    }

    @Test func anIncrementalBlobWriteIsReported() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(directory, schema: "CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB); INSERT INTO t VALUES(1, zeroblob(2))")
        let observed = await ObservedValues.started(database.observe { try $0.query("SELECT hex(b) FROM t") as String? ?? "" }) { $0.last == "0000" }
        try await database.write { connection in
            let blob = try connection.openBlob(table: "t", column: "b", rowID: 1, writable: true)
            defer { blob.close() }
            try blob.write(Data([0xAB, 0xCD]))
        }
        await observed.wait { $0.last == "ABCD" }
        // Inside a transaction, reported with its commit.
        try await database.writeInTransaction { connection in
            let blob = try connection.openBlob(table: "t", column: "b", rowID: 1, writable: true)
            defer { blob.close() }
            try blob.write(Data([0x01]), at: 1)
        }
        await observed.waitThenCancel { $0.last == "AB01" }
    }

    @Test func anUpdateOfAGeneratedColumnsInputReachesAFetchOfTheGeneratedColumn() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(
            directory,
            schema: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER, g AS (x * 2), s INTEGER GENERATED ALWAYS AS (x + 1) STORED, other INTEGER);
                INSERT INTO t(id, x) VALUES(1, 1)
                """)
        let virtual = ObservedValues(database.observe { try $0.query("SELECT g FROM t") as Int? ?? -1 })
        let stored = ObservedValues(database.observe { try $0.query("SELECT s FROM t") as Int? ?? -1 })
        await virtual.wait { $0.last == 2 }
        await stored.wait { $0.last == 2 }
        try await database.write { try $0.run("UPDATE t SET x = 5") }
        await virtual.wait { $0.last == 10 }
        await stored.wait { $0.last == 6 }
        virtual.cancel()
        stored.cancel()
    }

    @Test func anUpdateOrReplaceThatDeletesARowReachesAFetchOfAnotherColumn() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(
            directory, schema: "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER UNIQUE, v TEXT); INSERT INTO t VALUES(1, 1, 'a'), (2, 2, 'b')")
        let observed = await ObservedValues.started(
            database.observe { try $0.query("SELECT group_concat(v) FROM (SELECT v FROM t ORDER BY v)") as String? ?? "" }
        ) { $0.last == "a,b" }
        try await database.write { try $0.run("UPDATE OR REPLACE t SET k = 1 WHERE id = 2") }
        await observed.waitThenCancel { $0.last == "b" }

        // A REPLACE conflict clause in the table's definition does the same without OR REPLACE.
        try await database.write {
            try $0.execute("CREATE TABLE r(id INTEGER PRIMARY KEY, k INTEGER UNIQUE ON CONFLICT REPLACE, v TEXT); INSERT INTO r VALUES(1, 1, 'a'), (2, 2, 'b')")
        }
        let declared = await ObservedValues.started(database.observe { try $0.query("SELECT count(v) FROM r") as Int? ?? -1 }) { $0.last == 2 }
        try await database.write { try $0.run("UPDATE r SET k = 1 WHERE id = 2") }
        await declared.waitThenCancel { $0.last == 1 }
    }

    @Test func anUpdateOfAnotherColumnStillYieldsNothing() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(
            directory, schema: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER); INSERT INTO t VALUES(1, 1, 1)")
        let observed = await ObservedValues.started(database.observe { Fetched(numbers: try $0.query("SELECT a FROM t")) }) { $0.count == 1 }
        try await database.write { try $0.run("UPDATE t SET b = 2") }
        await observed.settle()
        #expect(observed.values.count == 1, "column precision is kept where nothing is under-reported")
        observed.cancel()
    }

    @Test func aTemporaryTableIsObservedOnAConnectionQueueAndAnInMemoryDatabase() async throws {
        let queue = ConnectionQueue(connection: try Connection(storageLocation: .inMemory))
        try queue.execute { try $0.execute("CREATE TEMP TABLE scratch(x)") }
        let observed = await ObservedValues.started(queue.observe { try $0.query("SELECT count(*) FROM scratch") as Int? ?? -1 }) { $0.last == 0 }
        try await queue.perform { try $0.run("INSERT INTO scratch VALUES(1)") }
        await observed.waitThenCancel { $0.last == 1 }

        let database = try Database(storageLocation: .inMemory)
        try await database.write { try $0.execute("CREATE TEMP TABLE scratch(x)") }
        let onWriter = await ObservedValues.started(database.observe { try $0.query("SELECT count(*) FROM scratch") as Int? ?? -1 }) { $0.last == 0 }
        try await database.write { try $0.run("INSERT INTO scratch VALUES(1)") }
        await onWriter.waitThenCancel { $0.last == 1 }
    }

    @Test func aFetchInsideATransactionIsRefetchedAfterItsRollback() async throws {
        let queue = ConnectionQueue(connection: try Connection(storageLocation: .inMemory))
        try queue.execute { try $0.execute("CREATE TABLE t(x)") }
        // SQift's queue lets one transaction span several closures.
        try queue.execute { try $0.execute("BEGIN; INSERT INTO t VALUES(1)") }
        let observed = await ObservedValues.started(queue.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { $0.last == 1 }
        try queue.execute { try $0.execute("ROLLBACK") }
        await observed.wait { $0.last == 0 }

        // Observed before the transaction began, then fetched inside it by a second observation.
        try queue.execute { try $0.execute("BEGIN; INSERT INTO t VALUES(2)") }
        let inside = await ObservedValues.started(queue.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { $0.last == 1 }
        try queue.execute { try $0.execute("ROLLBACK") }
        await inside.wait { $0.last == 0 }
        observed.cancel()
        inside.cancel()
    }

    @Test func aBackupIntoTheObservedConnectionIsReported() async throws {
        let directory = try TemporaryDirectory()
        let queue = ConnectionQueue(connection: try Connection(storageLocation: .onDisk(directory.path("restored.sqlite"))))
        try queue.execute { try $0.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1)") }
        let observed = await ObservedValues.started(queue.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { $0.last == 1 }
        let backupQueue = DispatchQueue(label: "backup")
        // On a thread of its own: the queue's connection is held (and this thread blocked) until
        // the backup is done, which would hold a thread of the cooperative pool.
        let result = try await onOwnThread {
            try queue.execute { connection -> Connection.BackupResult? in
                let source = try makeConnection(executing: "CREATE TABLE t(x); INSERT INTO t VALUES(1), (2), (3)")
                // The queue's connection is held until the backup is done, as `backup` requires.
                let done = DispatchSemaphore(value: 0)
                let outcome = Locked<Connection.BackupResult?>(nil)
                try source.backup(to: connection, pageSize: -1, backupQueue: backupQueue, completionQueue: backupQueue) { result in
                    outcome.withLock { $0 = result }
                    done.signal()
                }
                done.wait()
                return outcome.current
            }
        }
        #expect(result?.isSuccess == true)
        await observed.waitThenCancel { $0.last == 3 }
    }

    @Test func vacuumIsReported() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.makeDatabase(
            directory,
            schema: """
                CREATE TABLE t(x);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO t SELECT randomblob(200) FROM n;
                DELETE FROM t;
                """)
        let observed = await ObservedValues.started(database.observe { try $0.query("PRAGMA freelist_count") as Int? ?? -1 }) { ($0.last ?? 0) > 0 }
        try await database.writeWithoutTransaction { try $0.execute("VACUUM") }
        await observed.waitThenCancel { $0.last == 0 }
    }

    @Test func deserializingIntoAnObservedConnectionIsReported() async throws {
        let source = try makeConnection(executing: "CREATE TABLE t(x); INSERT INTO t VALUES(1), (2)")
        let bytes = try source.serialize()
        let queue = ConnectionQueue(connection: try Connection(storageLocation: .inMemory))
        try queue.execute { try $0.execute("CREATE TABLE t(x)") }
        let observed = await ObservedValues.started(queue.observe { try $0.query("SELECT count(*) FROM t") as Int? ?? -1 }) { $0.last == 0 }
        try queue.execute { try $0.deserialize(bytes) }
        await observed.waitThenCancel { $0.last == 2 }
    }
}
