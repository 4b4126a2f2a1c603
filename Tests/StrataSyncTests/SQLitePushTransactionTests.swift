import Foundation
import StrataSQift
import Strata
@testable import StrataSync
import StrataTestSupport
import Testing

/// Issue 66, item 2: the SQLite folder store applies a push in one transaction (one lock, one
/// commit, one fsync), each entry a savepoint, so a refused entry is undone alone.
@Suite struct SQLitePushTransactionTests {
    /// Counts the commits of the hub's space `s` while `body` runs.
    static func commits(on hub: SyncHub, during body: () async throws -> Void) async throws -> Int {
        let count = Locked(0)
        try hub.withSpace("s") { connection in
            connection.commitHook {
                count.withLock { $0 += 1 }
                return false
            }
        }
        defer { try? hub.withSpace("s") { $0.commitHook(nil) } }
        try await body()
        return count.withLock { $0 }
    }

    /// Writes `rows` single-row transactions on the replica and returns its outbox entries, the
    /// pushes' material, as the replica's own outbox reads them.
    static func pendingEntries(_ sync: OneTableSync, rows: Int) async throws -> [SyncOutboxEntry] {
        for index in 0..<rows {
            try await sync.replica.write { try $0.run("INSERT INTO t(id, v) VALUES (?, ?)", "row-\(index)", index) }
        }
        return try await sync.database.read { try SyncOutbox($0).entries(after: 0, limit: Int.max) }
    }

    @Test func aPushOfManyEntriesCommitsOnce() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        for index in 0..<25 {
            try await sync.replica.write { try $0.run("INSERT INTO t(id, v) VALUES (?, ?)", "row-\(index)", index) }
        }
        let commits = try await Self.commits(on: sync.hub) { try await sync.replica.push() }
        #expect(commits == 1)
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 25)
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 25)
        #expect(try await sync.replica.status.pendingChangeCount == 0)
    }

    /// An entry the hub refuses (here a foreign key) is undone alone inside the push's
    /// transaction: the entries before and after it commit with the push, in that one commit.
    @Test func aRefusedEntryIsUndoneAloneInsideThePush() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let schema = """
            CREATE TABLE parent(id TEXT PRIMARY KEY);
            CREATE TABLE child(id TEXT PRIMARY KEY, parent TEXT REFERENCES parent(id))
            """
        try hub.createSpace("s") { try $0.execute(schema) }
        let database = try Database(storageLocation: .onDisk(folder.path("r.sqlite")))
        try database.executeWrite { try $0.execute(schema) }
        let replica = try SyncReplica(
            database: database, replicaID: "r", space: "s", tables: ["parent", "child"], transport: InProcessSyncTransport(hub: hub))
        try await replica.write { try $0.execute("INSERT INTO parent VALUES ('a')") }
        // The replica's own file has no foreign keys on: the hub's has, and refuses this one.
        try await replica.write { try $0.execute("INSERT INTO child VALUES ('orphan', 'missing')") }
        try await replica.write { try $0.execute("INSERT INTO parent VALUES ('b')") }
        let commits = try await Self.commits(on: hub) { _ = try? await replica.push() }
        #expect(commits == 1)
        #expect(try hub.withSpace("s") { try $0.query("SELECT group_concat(id, ',') FROM (SELECT id FROM parent ORDER BY id)") as String? } == "a,b")
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM child") as Int? } == 0)
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 2)
        #expect(try hub.withSpace("s") { $0.isInTransaction } == false)
    }

    /// A space file whose child rows reference their parent through a deferred foreign key.
    static func deferredSpace(in folder: SyncFolder) throws -> Connection {
        let connection = try Connection(storageLocation: .onDisk(folder.path("space.sqlite")))
        try connection.execute("PRAGMA foreign_keys = ON")
        try connection.execute(
            """
            CREATE TABLE parent(id TEXT PRIMARY KEY);
            CREATE TABLE child(id TEXT PRIMARY KEY, parent TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)
            """)
        return connection
    }

    /// Releasing a savepoint checks no deferred foreign key: a write that leaves one unresolved
    /// is undone alone, as its own COMMIT failed before, and the push's other writes commit
    /// (left in place, it would fail the push's COMMIT on every resend).
    @Test func aDeferredForeignKeyLeftByOneWriteIsUndoneWithIt() throws {
        let folder = try SyncFolder()
        let connection = try Self.deferredSpace(in: folder)
        let storage = SQLiteSpaceStorage(connection: connection)
        var firstError: (any Error)?
        try storage.applyingPush(replica: "r", sequences: [1, 2]) {
            do {
                try storage.write { try connection.execute("INSERT INTO child VALUES ('orphan', 'missing')") }
            } catch {
                firstError = error
            }
            try storage.write { try connection.execute("INSERT INTO parent VALUES ('p')") }
        }
        #expect((firstError as? SQLiteError)?.resultCode == .constraintForeignKey)
        #expect(try connection.query("SELECT count(*) FROM child") as Int? == 0)
        #expect(try connection.query("SELECT count(*) FROM parent") as Int? == 1)
        #expect(connection.isInTransaction == false)
    }

    /// Another process holding the space's file past the busy timeout makes the store
    /// unavailable for now (the push is sent again), not a bare SQLite error.
    @Test func aLockedSpaceFileIsUnavailableNotAFailure() throws {
        let folder = try SyncFolder()
        let connection = try Self.deferredSpace(in: folder)
        let other = try Connection(storageLocation: .onDisk(folder.path("space.sqlite")))
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("ROLLBACK") }
        let storage = SQLiteSpaceStorage(connection: connection)
        #expect(throws: SyncHubStoreUnavailable.self) {
            try storage.applyingPush(replica: "r", sequences: [1]) {
                try storage.write { try connection.execute("INSERT INTO parent VALUES ('p')") }
            }
        }
        #expect(connection.isInTransaction == false)
    }

    /// Pushes that arrive while the space is busy wait together, and the first call to get the
    /// space applies them all in one transaction: 8 pushes, 1 commit, every push answered with
    /// its own entries, and one push refused (a schema it does not have) alone.
    @Test func pushesThatArriveTogetherCommitOnceAndFailAlone() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let entries = try await Self.pendingEntries(sync, rows: 80)
        try #require(entries.count == 80)
        let fingerprint = try sync.hub.expectedFingerprint()
        let storage = try #require(sync.hub.storage as? SQLiteFolderHubStorage)
        let answers = Locked<[Int: Result<SyncPushResponse, any Error>]>([:])
        let commits = Locked(0)
        let threads = try sync.hub.withSpace("s") { connection in
            connection.commitHook {
                commits.withLock { $0 += 1 }
                return false
            }
            // Holding the space's queue here: the pushes below queue up behind this call.
            let threads = (0..<9).map { index in
                Thread {
                    let request = SyncPushRequest(
                        space: "s", replicaID: "r\(index)", tables: ["t"],
                        schemaFingerprint: index == 8 ? "another schema" : fingerprint,
                        entries: index == 8 ? Array(entries[0..<1]) : Array(entries[index * 10..<index * 10 + 10]))
                    let answer = Result { try sync.hub.push(request) }
                    answers.withLock { $0[index] = answer }
                }
            }
            threads.forEach { $0.start() }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, storage.pushGroups.withLock({ $0["s"] })?.pending.current.count ?? 0 < 9 { usleep(1_000) }
            return threads
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, answers.current.count < 9 { try await Task.sleep(for: .milliseconds(5)) }
        _ = threads
        try sync.hub.withSpace("s") { $0.commitHook(nil) }
        let results = answers.current
        try #require(results.count == 9, "every push is answered")
        for index in 0..<8 {
            let response = try results[index].map { try $0.get() }
            #expect(response?.acknowledged == entries[index * 10..<index * 10 + 10].map(\.sequence), "push \(index)")
        }
        #expect(throws: SyncError.self) { try results[8]?.get() }
        #expect(commits.current == 1, "the 8 pushes waiting together commit once")
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 80)
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(DISTINCT version) FROM _strata_sync_log") as Int? } == 80)
    }

    /// More pushes waiting than one transaction takes (64): the oldest 64 commit together, the
    /// rest in the next, and every caller is answered, whichever call got the space first.
    @Test func seventyPushesWaitingTogetherCommitInTwoAndAreAllAnswered() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let entries = try await Self.pendingEntries(sync, rows: 70)
        try #require(entries.count == 70)
        let fingerprint = try sync.hub.expectedFingerprint(of: ["t"])
        let storage = try #require(sync.hub.storage as? SQLiteFolderHubStorage)
        let answered = Locked(0)
        let commits = Locked(0)
        let done = DispatchGroup()
        try sync.hub.withSpace("s") { connection in
            connection.commitHook {
                commits.withLock { $0 += 1 }
                return false
            }
            for (index, entry) in entries.enumerated() {
                done.enter()
                Thread {
                    let request = SyncPushRequest(space: "s", replicaID: "r\(index)", tables: ["t"], schemaFingerprint: fingerprint, entries: [entry])
                    if (try? sync.hub.push(request)) != nil { answered.withLock { $0 += 1 } }
                    done.leave()
                }.start()
            }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, storage.pushGroups.withLock({ $0["s"] })?.pending.current.count ?? 0 < 70 { usleep(1_000) }
        }
        #expect(done.wait(timeout: .now() + 120) == .success)
        try sync.hub.withSpace("s") { $0.commitHook(nil) }
        #expect(answered.current == 70)
        #expect(commits.current == 2, "64, then 6")
        #expect(try sync.hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 70)
    }

    /// The hub's apply rate on the SQLite folder store in this process (5,000 single-row entries
    /// in pushes of 100, as `strata-sync-bench` measures it), beside its floors: the same rows
    /// inserted in one transaction, and in a transaction each (the store's cost per entry before
    /// a push had one). A measurement, not a check: run with STRATA_SYNC_APPLY_RATE=1.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_SYNC_APPLY_RATE"] != nil, "a measurement: STRATA_SYNC_APPLY_RATE=1"))
    func applyRate() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let count = 5_000
        let entries = try await Self.pendingEntries(sync, rows: count)
        #expect(entries.count == count)
        let fingerprint = try sync.hub.expectedFingerprint()
        func seconds(_ body: () throws -> Void) rethrows -> Double {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("measured")))
        try hub.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v)") }
        let apply = try seconds {
            for batch in stride(from: 0, to: count, by: 100) {
                _ = try hub.push(
                    SyncPushRequest(
                        space: "s", replicaID: "r", tables: ["t"], schemaFingerprint: fingerprint,
                        entries: Array(entries[batch..<min(batch + 100, count)])))
            }
        }
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == count)
        // The floors, on files configured as the hub's spaces are (its journal mode and sync).
        func floor(_ name: String, oneTransaction: Bool) throws -> Double {
            let floorHub = try SyncHub(directory: URL(fileURLWithPath: folder.path(name)))
            try floorHub.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v)") }
            return try floorHub.withSpace("s") { db in
                try seconds {
                    if oneTransaction { try db.execute("BEGIN IMMEDIATE") }
                    for index in 0..<count {
                        if !oneTransaction { try db.execute("BEGIN IMMEDIATE") }
                        try db.run("INSERT INTO t(id, v) VALUES (?, ?)", "row-\(index)", index)
                        if !oneTransaction { try db.execute("COMMIT") }
                    }
                    if oneTransaction { try db.execute("COMMIT") }
                }
            }
        }
        // Group commit: 800 single-entry pushes, from 8 threads at once (pushes that arrive
        // together share a transaction) and from one thread in turn (a transaction each).
        func singleEntryPushes(_ name: String, threads: Int) throws -> (Double, Int) {
            let groupHub = try SyncHub(directory: URL(fileURLWithPath: folder.path(name)))
            try groupHub.createSpace("s") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v)") }
            let perThread = 800 / threads
            let failures = Locked(0)
            let commits = Locked(0)
            try groupHub.withSpace("s") { connection in
                connection.commitHook {
                    commits.withLock { $0 += 1 }
                    return false
                }
            }
            let elapsed = seconds {
                let group = DispatchGroup()
                for thread in 0..<threads {
                    group.enter()
                    Thread {
                        for index in thread * perThread..<(thread + 1) * perThread {
                            let request = SyncPushRequest(
                                space: "s", replicaID: "r\(thread)", tables: ["t"], schemaFingerprint: fingerprint, entries: [entries[index]])
                            if (try? groupHub.push(request)) == nil { failures.withLock { $0 += 1 } }
                        }
                        group.leave()
                    }.start()
                }
                group.wait()
            }
            #expect(failures.current == 0)
            #expect(try groupHub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 800)
            return (elapsed, commits.current)
        }
        let grouped = try singleEntryPushes("grouped", threads: 8)
        let inTurn = try singleEntryPushes("in-turn", threads: 1)
        print(
            "single-entry pushes: 8 threads at once \(Int(800 / grouped.0)) changes/s in \(grouped.1) commits;"
                + " one thread in turn \(Int(800 / inTurn.0)) changes/s in \(inTurn.1) commits")
        let together = try floor("floor-one", oneTransaction: true)
        let each = try floor("floor-each", oneTransaction: false)
        print(
            "apply rate: \(Int(Double(count) / apply)) changes/s; floor, one transaction: \(Int(Double(count) / together)) rows/s;"
                + " a transaction per row: \(Int(Double(count) / each)) rows/s")
    }
}
