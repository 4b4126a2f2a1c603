import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Synchronization
import Testing

/// Sync loses, splits and duplicates no data: offline writes by the hundred, answers lost and
/// replayed, two syncers of one file, reinstalls and re-logins, triggers, refused and oversized
/// writes, and waiting polls. Each test kept a defect a review confirmed, which lost or split data
/// on the main before its fix (the first four with no error at all).
@Suite struct SyncDataIntegrityTests {
    static let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v)"

    /// A hub with space "s" made by `schema`.
    static func hub(_ folder: SyncFolder, schema: String = schema, limits: SyncLimits = SyncLimits()) throws -> SyncHub {
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")), limits: limits)
        try hub.createSpace("s") { try $0.execute(schema) }
        return hub
    }

    /// A hub on `schema` (``hub(_:schema:limits:)``) and two replicas of it, `first` and
    /// `second`, each on its own file and talking to it in process.
    static func hub(
        _ folder: SyncFolder, schema: String = schema, replicas first: String, _ second: String
    ) throws -> (SyncHub, SyncReplica, SyncReplica) {
        let hub = try Self.hub(folder, schema: schema)
        return (
            hub, try replica(folder, first, schema: schema, transport: InProcessSyncTransport(hub: hub)),
            try replica(folder, second, schema: schema, transport: InProcessSyncTransport(hub: hub))
        )
    }

    static func replica(
        _ folder: SyncFolder, _ name: String, file: String? = nil, schema: String = schema, tables: [String] = ["t"],
        transport: any SyncTransport, settings: SyncReplicaSettings = SyncReplicaSettings()
    ) throws -> SyncReplica {
        let database = try Database(path: folder.path((file ?? name) + ".sqlite"))
        try database.executeWrite { connection in
            if try connection.query("SELECT count(*) FROM sqlite_master WHERE name = 't'") as Int? == 0 { try connection.execute(schema) }
        }
        return try SyncReplica(database: database, replicaID: name, space: "s", tables: tables, transport: transport, settings: settings)
    }

    static func rows(_ replica: SyncReplica, _ table: String = "t") async throws -> [String] {
        try await replica.database.read { try $0.query("SELECT id || '=' || quote(v) FROM " + table + " ORDER BY id") }
    }

    static func hubRows(_ hub: SyncHub, _ table: String = "t") throws -> [String] {
        try hub.withSpace("s") { try $0.query("SELECT id || '=' || quote(v) FROM " + table + " ORDER BY id") }
    }

    // 1. A pull page that ended inside the replica's own push deleted its rows locally.

    @Test func sixHundredOfflineWritesAllSurviveTheSync() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
        for n in 0..<600 { try await phone.write { try $0.run("INSERT INTO t VALUES (?, ?)", "k\(n)", n) } }
        try await phone.sync()
        #expect(try await Self.rows(phone).count == 600)
        #expect(try Self.hubRows(hub).count == 600)
        #expect(try await phone.pendingChangeCount == 0)
        try await phone.sync()
        #expect(try await Self.rows(phone) == (try Self.hubRows(hub)))
    }

    @Test func twoEntriesPushedAfterAnotherReplicas499KeepBoth() async throws {
        let folder = try SyncFolder()
        let (hub, other, phone) = try Self.hub(folder, replicas: "other", "phone")
        for n in 0..<499 { try await other.write { try $0.run("INSERT INTO t VALUES (?, ?)", "o\(n)", n) } }
        try await other.push()
        try await phone.write { try $0.run("INSERT INTO t VALUES ('p1', 1)") }
        try await phone.write { try $0.run("INSERT INTO t VALUES ('p2', 2)") }
        try await phone.sync()
        let rows = try await Self.rows(phone)
        #expect(rows.contains("p1=1") && rows.contains("p2=2"))
        #expect(rows == (try Self.hubRows(hub)))
    }

    /// Throws away the answer of the first push (the hub applied it).
    struct LostAnswerTransport: HubRelay {
        let hub: SyncHub
        let lost = Locked(false)
        struct Lost: Error {}
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            let response = try hub.push(request)
            if lost.withLock({ lost in
                defer { lost = true }; return !lost
            }) {
                throw Lost()
            }
            return response
        }
    }

    @Test func aPushWhoseAnswerWasLostReplayedAfterSixHundredOtherEntriesKeepsItsRow() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(folder, "phone", transport: LostAnswerTransport(hub: hub))
        let other = try Self.replica(folder, "other", transport: InProcessSyncTransport(hub: hub))
        try await phone.write { try $0.run("INSERT INTO t VALUES ('mine', 1)") }
        await #expect(throws: LostAnswerTransport.Lost.self) { try await phone.push() }
        for n in 0..<600 { try await other.write { try $0.run("INSERT INTO t VALUES (?, ?)", "o\(n)", n) } }
        try await syncInTurn(other, phone)
        let rows = try await Self.rows(phone)
        #expect(rows.contains("mine=1"))
        #expect(rows.count == 601)
        #expect(rows == (try Self.hubRows(hub)))
    }

    // 2. Two syncers of one replica file.

    /// Holds the answer of each push until the test opens the gate.
    struct GatedTransport: HubRelay {
        let hub: SyncHub
        let open = Locked(false)
        let applied = Locked(0)
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            let response = try hub.push(request)
            applied.withLock { $0 += 1 }
            while !open.current { try await Task.sleep(for: .milliseconds(5)) }
            return response
        }
    }

    @Test func twoSyncersOfOneFileNeverLoseACommittedRow() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let gated = GatedTransport(hub: hub)
        let first = try Self.replica(folder, "phone", transport: gated)
        let second = try Self.replica(folder, "phone", file: "phone", transport: InProcessSyncTransport(hub: hub))
        #expect(first.hubReplicaID == second.hubReplicaID, "one file, one identity")
        try await first.write { try $0.run("INSERT INTO t VALUES ('a', 1)") }
        let late = Task { try await first.push() }
        while gated.applied.current == 0 { try await Task.sleep(for: .milliseconds(5)) }
        // The second syncer pushes the same entry (applied once), pulls past it.
        try await second.sync()
        try await second.write { try $0.run("INSERT INTO t VALUES ('b', 2)") }
        try await second.sync()
        // The first's late answer arrives after the entry was settled.
        gated.open.withLock { $0 = true }
        try await late.value
        try await syncInTurn(first, second)
        #expect(try await Self.rows(first) == ["a=1", "b=2"])
        #expect(try Self.hubRows(hub) == ["a=1", "b=2"])
        #expect(try await first.pendingChangeCount == 0)
    }

    // 3. A replica ID reused on a fresh database.

    @Test func aReinstalledReplicaUnderTheSameNameLosesNoWrite() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        do {
            let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
            try await phone.write { try $0.run("INSERT INTO t VALUES ('before', 1)") }
            try await phone.sync()
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path("phone.sqlite") + suffix) }
        let reinstalled = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
        try await reinstalled.write { try $0.run("INSERT INTO t VALUES ('after', 2)") }
        try await reinstalled.sync()
        #expect(try Self.hubRows(hub) == ["after=2", "before=1"])
        #expect(try await Self.rows(reinstalled) == ["after=2", "before=1"])
        #expect(try await reinstalled.pendingChangeCount == 0)
    }

    @Test func theHubRefusesAnEntryItAppliedWithOtherContent() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
        try await phone.write { try $0.run("INSERT INTO t VALUES ('a', 1)") }
        try await phone.push()
        // The same name and sequence with other bytes, as a second device under one name sends.
        let impostor = try Self.replica(folder, "phone", file: "impostor", transport: InProcessSyncTransport(hub: hub))
        try await impostor.write { try $0.run("INSERT INTO t VALUES ('b', 2)") }
        let entry = try #require(try await impostor.pendingChanges.first)
        let request = SyncPushRequest(
            space: "s", replicaID: phone.hubReplicaID, tables: ["t"],
            schemaFingerprint: try hub.expectedFingerprint(),
            entries: [SyncOutboxEntry(sequence: 1, changeset: entry.changeset.data)])
        #expect(throws: SyncError.duplicateEntry(replicaID: phone.hubReplicaID, sequence: 1)) { try hub.push(request) }
        #expect(try Self.hubRows(hub) == ["a=1"])
        // Under its own incarnation the impostor's write goes through.
        try await impostor.sync()
        #expect(try Self.hubRows(hub) == ["a=1", "b=2"])
    }

    // 4. NULL keys.

    @Test(arguments: [
        ("CREATE TABLE t(id TEXT PRIMARY KEY, v)", "INSERT INTO t VALUES (NULL, 1)", "id"),
        ("CREATE TABLE t(id INT PRIMARY KEY, v)", "INSERT INTO t VALUES (NULL, 1)", "id"),
        ("CREATE TABLE t(id INTEGER PRIMARY KEY DESC, v)", "INSERT INTO t VALUES (NULL, 1)", "id"),
        ("CREATE TABLE t(a TEXT, b TEXT, v, PRIMARY KEY(a, b))", "INSERT INTO t VALUES ('x', NULL, 1)", "b")
    ])
    func aNullKeyIsRefusedAtTheWriteByName(schema: String, insert: String, column: String) async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder, schema: schema)
        let phone = try Self.replica(folder, "phone", schema: schema, transport: InProcessSyncTransport(hub: hub))
        await #expect(throws: SyncError.nullKey(table: "t", column: column)) { try await phone.write { try $0.execute(insert) } }
        #expect(try await phone.database.read { try $0.query("SELECT count(*) FROM t") as Int? } == 0)
        #expect(try await phone.pendingChangeCount == 0)
        // Setting a key to NULL later is refused too.
        let ok = insert.replacingOccurrences(of: "NULL", with: "'k'")
        try await phone.write { try $0.execute(ok) }
        await #expect(throws: SyncError.nullKey(table: "t", column: column)) {
            try await phone.write { try $0.execute("UPDATE t SET \(column) = NULL") }
        }
        try await phone.sync()
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM t") as Int? } == 1)
    }

    // 5. Batches and limits.

    @Test func elevenHundredPendingWritesSyncInBatchesWithinTheHubsLimits() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder, limits: SyncLimits(maximumEntriesPerPush: 7, maximumEntriesPerPull: 3, maximumPullBytes: 200))
        let settings = SyncReplicaSettings(pullPageSize: 500, maximumPushEntries: 7, maximumPushBytes: 1 << 20)
        let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub), settings: settings)
        let laptop = try Self.replica(folder, "laptop", transport: InProcessSyncTransport(hub: hub), settings: settings)
        for n in 0..<110 { try await phone.write { try $0.run("INSERT INTO t VALUES (?, ?)", "k\(n)", n) } }
        #expect(throws: SyncError.self) {
            try hub.push(
                SyncPushRequest(
                    space: "s", replicaID: "x", tables: ["t"], schemaFingerprint: "",
                    entries: Array(
                        repeating: SyncOutboxEntry(sequence: 1, changeset: Data()), count: 8)))
        }
        try await syncInTurn(phone, laptop)
        #expect(try await Self.rows(laptop).count == 110)
        #expect(try await Self.rows(phone) == (try Self.hubRows(hub)))
    }

    @Test func aWriteLargerThanAPushMayCarryIsNamedAndTheRestSyncs() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(
            folder, "phone", transport: InProcessSyncTransport(hub: hub),
            settings: SyncReplicaSettings(maximumPushBytes: 4_096))
        try await phone.write { try $0.run("INSERT INTO t VALUES ('small1', 1)") }
        try await phone.write { try $0.run("INSERT INTO t VALUES ('big', ?)", Data(repeating: 7, count: 10_000)) }
        try await phone.write { try $0.run("INSERT INTO t VALUES ('small2', 2)") }
        let refusal = try #require(await refusalOfSync(phone), "the large write was not reported")
        #expect(refusal.reason == .tooLarge && refusal.sequence == 2)
        #expect(try Self.hubRows(hub) == ["small1=1", "small2=2"])
        let pending = try await phone.pendingChanges
        #expect(pending.count == 1 && pending.first?.refusal?.reason == .tooLarge && pending.first?.tables == ["t"])
        #expect(try await phone.discard(try #require(pending.first)))
        try await phone.sync()
        #expect(try await Self.rows(phone) == ["small1=1", "small2=2"])
    }

    // 6. Triggers that write synced tables, and triggers that keep local state.

    static let triggerSchema = """
        CREATE TABLE t(id TEXT PRIMARY KEY, v);
        CREATE TABLE tag(id TEXT PRIMARY KEY, n INTEGER);
        CREATE TRIGGER counting AFTER INSERT ON t BEGIN
            INSERT INTO tag VALUES ('count', 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER uncounting AFTER DELETE ON t BEGIN UPDATE tag SET n = n - 1 WHERE id = 'count'; END;
        CREATE VIRTUAL TABLE t_fts USING fts5(v, content = 't', content_rowid = 'rowid');
        CREATE TRIGGER t_fts_insert AFTER INSERT ON t BEGIN INSERT INTO t_fts(rowid, v) VALUES (new.rowid, new.v); END;
        CREATE TRIGGER t_fts_delete AFTER DELETE ON t BEGIN INSERT INTO t_fts(t_fts, rowid, v) VALUES ('delete', old.rowid, old.v); END
        """

    /// Both orders of the synced tables: a changeset applies its tables in that order, so the
    /// counter's own change may come before or after the insert that fires the trigger.
    @Test(arguments: [["t", "tag"], ["tag", "t"]])
    func triggersThatWriteSyncedTablesAgreeEverywhereAndLocalIndexesSeeArrivals(tables: [String]) async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder, schema: Self.triggerSchema)
        let phone = try Self.replica(folder, "phone", schema: Self.triggerSchema, tables: tables, transport: InProcessSyncTransport(hub: hub))
        let laptop = try Self.replica(folder, "laptop", schema: Self.triggerSchema, tables: tables, transport: InProcessSyncTransport(hub: hub))
        try await phone.write { try $0.execute("INSERT INTO t VALUES ('a', 'apple pie')") }
        try await laptop.write { try $0.execute("INSERT INTO t VALUES ('b', 'banana bread')") }
        try await syncInTurn(phone, laptop, phone)
        try await laptop.write { try $0.execute("DELETE FROM t WHERE id = 'a'") }
        try await laptop.write { try $0.execute("INSERT INTO t VALUES ('c', 'cherry apple')") }
        try await syncInTurn(laptop, phone)
        let count: @Sendable (Connection) throws -> Int? = { try $0.query("SELECT n FROM tag WHERE id = 'count'") }
        let atHub = try hub.withSpace("s") { try count($0) }
        #expect(try await phone.database.read(count) == atHub)
        #expect(try await laptop.database.read(count) == atHub)
        #expect(try Self.hubRows(hub) == (try await Self.rows(phone)))
        // The FTS index, kept by local triggers, found the rows that arrived by sync.
        for replica in [phone, laptop] {
            let found: [String] = try await replica.database.read { try $0.query("SELECT v FROM t_fts WHERE t_fts MATCH 'apple' ORDER BY v") }
            #expect(found == ["cherry apple"], "\(replica.replicaID)")
            #expect(try await replica.database.read { try $0.query("SELECT count(*) FROM t_fts WHERE t_fts MATCH 'bread'") as Int? } == 1)
        }
    }

    /// A refused entry rolls back, with its transaction, the triggers switched off for it.
    @Test func aRefusedEntryLeavesTheHubsTriggersAsTheyWere() async throws {
        let folder = try SyncFolder()
        let schema = Self.triggerSchema + "; CREATE UNIQUE INDEX t_v ON t(v)"
        let hub = try Self.hub(folder, schema: schema)
        let triggersBefore: [String] = try hub.withSpace("s") { try $0.query("SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        let phone = try Self.replica(folder, "phone", schema: schema, tables: ["t", "tag"], transport: InProcessSyncTransport(hub: hub))
        let laptop = try Self.replica(folder, "laptop", schema: schema, tables: ["t", "tag"], transport: InProcessSyncTransport(hub: hub))
        try await phone.write { try $0.execute("INSERT INTO t VALUES ('a', 'same')") }
        try await laptop.write { try $0.execute("INSERT INTO t VALUES ('b', 'same')") }
        try await phone.sync()
        await #expect(throws: SyncError.self) { try await laptop.sync() }
        #expect(try hub.withSpace("s") { try $0.query("SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") as [String] } == triggersBefore)
        #expect(try hub.withSpace("s") { !$0.isInTransaction })
        #expect(
            try await laptop.database.read { try $0.query("SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") as [String] } == triggersBefore)
    }

    // 7. A table added to the synced list later.

    @Test func aTableAddedToTheListGetsTheHubsEarlierRows() async throws {
        let folder = try SyncFolder()
        let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v); CREATE TABLE tag(id TEXT PRIMARY KEY, v)"
        let hub = try Self.hub(folder, schema: schema)
        let other = try Self.replica(folder, "other", schema: schema, tables: ["t", "tag"], transport: InProcessSyncTransport(hub: hub))
        try await other.write { try $0.execute("INSERT INTO tag VALUES ('red', 1); INSERT INTO t VALUES ('a', 1)") }
        try await other.sync()
        let version1 = try Self.replica(folder, "phone", schema: schema, tables: ["t"], transport: InProcessSyncTransport(hub: hub))
        try await version1.sync()
        #expect(try await Self.rows(version1) == ["a=1"])
        #expect(try await Self.rows(version1, "tag") == [])
        let version2 = try SyncReplica(
            database: version1.database, replicaID: "phone", space: "s", tables: ["t", "tag"],
            transport: InProcessSyncTransport(hub: hub))
        try await version2.sync()
        #expect(try await Self.rows(version2, "tag") == ["red=1"])
        #expect(version2.hubReplicaID == version1.hubReplicaID)
    }

    // 8. A UNIQUE clash between two replicas.

    @Test func aUniqueClashIsAnEntryTheAppDropsAloneWhileEverythingElseSyncs() async throws {
        let folder = try SyncFolder()
        let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v UNIQUE)"
        let (hub, phone, laptop) = try Self.hub(folder, schema: schema, replicas: "phone", "laptop")
        try await phone.write { try $0.run("INSERT INTO t VALUES ('a', 'x@example.com')") }
        try await laptop.write { try $0.run("INSERT INTO t VALUES ('b', 'x@example.com')") }
        try await laptop.write { try $0.run("INSERT INTO t VALUES ('c', 'unrelated')") }
        try await phone.sync()
        let refusal = try #require(await refusalOfSync(laptop), "the clash was not reported")
        #expect(refusal.reason == .constraint && refusal.table == "t" && refusal.key == [.text("b")])
        #expect(try Self.hubRows(hub) == ["a='x@example.com'", "c='unrelated'"])
        // The pull went on around the refused write.
        #expect(try await Self.rows(laptop) == ["a='x@example.com'", "c='unrelated'"])
        let pending = try await laptop.pendingChanges
        #expect(pending.map(\.sequence) == [1] && pending.first?.refusal?.reason == .constraint)
        #expect(try await laptop.discard(try #require(pending.first)))
        try await laptop.sync()
        #expect(try await laptop.pendingChangeCount == 0)
        #expect(try await Self.rows(laptop) == (try Self.hubRows(hub)))
    }

    /// Found by a review's probe: a write on top of a refused one was acknowledged as a no-op (its
    /// row was not at the hub) and lost once the refused write went through. It now waits with it.
    @Test func aWriteOnTopOfARefusedOneWaitsWithItAndArrives() async throws {
        let folder = try SyncFolder()
        let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v UNIQUE, n)"
        let (hub, other, phone) = try Self.hub(folder, schema: schema, replicas: "other", "phone")
        try await other.write { try $0.run("INSERT INTO t VALUES ('o', 'u', 0)") }
        try await other.sync()
        try await phone.write { try $0.run("INSERT INTO t VALUES ('p', 'u', 1)") }
        try await phone.write { try $0.run("UPDATE t SET n = 2 WHERE id = 'p'") }
        try await phone.write { try $0.run("INSERT INTO t VALUES ('q', 'free', 3)") }
        await #expect(throws: SyncError.self) { try await phone.sync() }
        let pending = try await phone.pendingChanges
        #expect(pending.map(\.refusal?.reason) == [.constraint, .dependsOnRefused], "the unrelated write went; the dependent one waits")
        try await other.write { try $0.run("DELETE FROM t WHERE id = 'o'") }
        try await other.sync()
        // Held: a sync does not send the refused write again, nor report it twice ...
        try await phone.sync()
        #expect(try await phone.pendingChangeCount == 2)
        // ... until the app retries it (the clash is gone now).
        #expect(try await phone.retryRefusedChanges() == 2)
        try await phone.sync()
        let query = "SELECT id || quote(v) || quote(n) FROM t ORDER BY id"
        let atHub: [String] = try hub.withSpace("s") { try $0.query(query) }
        #expect(atHub == ["p'u'2", "q'free'3"])
        #expect(try await phone.database.read { try $0.query(query) as [String] } == atHub)
        #expect(try await phone.pendingChangeCount == 0)
    }

    @Test func aWriteOnTopOfOneTooLargeWaitsWithIt() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(
            folder, "phone", transport: InProcessSyncTransport(hub: hub),
            settings: SyncReplicaSettings(maximumPushEntries: 1, maximumPushBytes: 4_096))
        try await phone.write { try $0.run("INSERT INTO t VALUES ('big', ?)", Data(repeating: 7, count: 10_000)) }
        try await phone.write { try $0.run("UPDATE t SET v = 'small now' WHERE id = 'big'") }
        try await phone.write { try $0.run("INSERT INTO t VALUES ('other', 1)") }
        await #expect(throws: SyncError.self) { try await phone.sync() }
        #expect(try await phone.pendingChanges.map(\.refusal?.reason) == [.tooLarge, .dependsOnRefused])
        #expect(try Self.hubRows(hub) == ["other=1"], "the dependent update was not sent alone")
    }

    // 9. A long poll waits on the push that commits, not on a timer.

    @Test func aWaitingPollIsWokenByThePushThatCommits() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
        // The wait's timeout is far beyond anything a loaded machine takes to write and push, so
        // returning before it means the commit woke it.
        let started = ContinuousClock.now
        let waiting = Task { try await hub.waitForVersion(ofSpace: "s", after: 0, timeout: .seconds(300)) }
        try await Task.sleep(for: .milliseconds(100))
        try await phone.write { try $0.run("INSERT INTO t VALUES ('a', 1)") }
        try await phone.push()
        try await waiting.value
        #expect(ContinuousClock.now - started < .seconds(240))
        // A wait that is already satisfied returns at once; one that times out returns too.
        try await hub.waitForVersion(ofSpace: "s", after: 0, timeout: .seconds(20))
        try await hub.waitForVersion(ofSpace: "s", after: 5, timeout: .milliseconds(50))
    }

    /// Issue 66, item 3: a waiting poll is a registered continuation. Two thousand wait on one
    /// space; cancelling half of them removes each alone (the others keep waiting), and one
    /// commit wakes the rest, leaving none registered.
    @Test func twoThousandWaitingPollsCancelAloneAndOneCommitWakesTheRest() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
        let registered = { hub.waitingPolls(inSpace: "s") }
        let waits = (0..<2_000).map { _ in Task { try await hub.waitForVersion(ofSpace: "s", after: 0, timeout: .seconds(300)) } }
        let deadline = ContinuousClock.now + .seconds(120)
        while registered() < 2_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(registered() == 2_000)
        for wait in waits[..<1_000] { wait.cancel() }
        for wait in waits[..<1_000] { try await wait.value }
        #expect(registered() == 1_000, "each cancelled poll left, and only it")
        let started = ContinuousClock.now
        try await phone.write { try $0.run("INSERT INTO t VALUES ('a', 1)") }
        try await phone.push()
        for wait in waits[1_000...] { try await wait.value }
        #expect(ContinuousClock.now - started < .seconds(240), "the commit woke them, not their timeout")
        #expect(registered() == 0)
    }

    // 7. A write the hub's policy dropped, pushed after the replica had pulled the hub's newest
    //    version: acknowledged with a version the pull already passed, it stayed on the replica
    //    (nothing pending, the hub's newest version pulled, its own row shown) until a later pull.

    @Test(arguments: [true, false])
    func aWriteTheHubsPolicyDroppedIsUndoneWhenItsPushIsAnswered(hubWins: Bool) async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        hub.setPolicy(hubWins ? .hubWins : .lastWriterWins, forTable: "t")
        let phone = try Self.replica(folder, "phone", transport: InProcessSyncTransport(hub: hub))
        let laptop = try Self.replica(folder, "laptop", transport: InProcessSyncTransport(hub: hub))
        try await phone.write { try $0.run("INSERT INTO t VALUES ('k', 'phone')") }
        try await phone.sync()
        try await laptop.write { try $0.run("INSERT INTO t VALUES ('k', 'laptop') ON CONFLICT(id) DO NOTHING") }
        try await laptop.pull()
        #expect(try await Self.rows(laptop) == ["k='laptop'"], "a pending write stays on top of what a pull brings")
        try await laptop.push()
        #expect(try await laptop.pendingChangeCount == 0)
        #expect(try Self.hubRows(hub) == [hubWins ? "k='phone'" : "k='laptop'"])
        if hubWins {
            // Nothing more to pull, and the replica already shows what the hub kept.
            #expect(try await laptop.lastPulledVersion == (try hub.version(ofSpace: "s")))
            #expect(try await Self.rows(laptop) == ["k='phone'"])
        }
        try await syncInTurn(laptop, phone)
        #expect(try await Self.rows(laptop) == (try Self.hubRows(hub)))
        #expect(try await Self.rows(phone) == (try Self.hubRows(hub)))
    }

    // 10. A key renamed to one its collation calls equal ('k' to 'K' under NOCASE): the session
    //     recorded an UPDATE setting the key, which the hub refused as damaged, for good.

    @Test(arguments: [
        "UPDATE t SET id = 'K', v = 'renamed' WHERE id = 'k'", "UPDATE t SET id = 'K' WHERE id = 'k'",
        "DELETE FROM t WHERE id = 'k'; INSERT INTO t VALUES ('K', 'renamed')"
    ])
    func aKeyRenamedUnderItsCollationSyncsAsADeleteAndAnInsert(write: String) async throws {
        let schema = "CREATE TABLE t(id TEXT COLLATE NOCASE PRIMARY KEY, v)"
        let folder = try SyncFolder()
        let (hub, phone, laptop) = try Self.hub(folder, schema: schema, replicas: "phone", "laptop")
        try await phone.write { try $0.execute("INSERT INTO t VALUES ('k', 'first'), ('x', 'other')") }
        try await syncInTurn(phone, laptop)
        try await phone.write { try $0.execute(write) }
        try await syncInTurn(phone, laptop)
        #expect(try await phone.pendingChangeCount == 0)
        let hubRows: [String] = try hub.withSpace("s") { try $0.query("SELECT id || '=' || v FROM t ORDER BY id COLLATE BINARY") }
        #expect(hubRows.first?.hasPrefix("K=") == true && hubRows.count == 2, "\(hubRows)")
        for replica in [phone, laptop] {
            #expect(try await replica.database.read { try $0.query("SELECT id || '=' || v FROM t ORDER BY id COLLATE BINARY") as [String] } == hubRows)
        }
    }

    // A re-login (the same file under a new replica ID) after a push whose answer was lost sent
    // the applied write again under the new name, and the hub applied it a second time: an old
    // value over a newer one.

    @Test func aWriteWhoseAnswerWasLostIsNotAppliedAgainAfterAReLogin() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        try await Self.phoneWriteWhoseAnswerIsLostThenLaptopChangesIt(folder, hub)
        // The phone signs in again under a new replica ID, its write still pending.
        let relogged = try Self.replica(folder, "phone-2", file: "phone", transport: InProcessSyncTransport(hub: hub))
        #expect(try await relogged.pendingChangeCount == 1)
        try await relogged.sync()
        #expect(try await relogged.pendingChangeCount == 0)
        #expect(try Self.hubRows(hub) == ["a='new'"])
        #expect(try await Self.rows(relogged) == ["a='new'"])
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 2)
        // Acknowledged under the new name too: a later pull does not take the hub for a restored one.
        try await relogged.write { try $0.execute("INSERT INTO t VALUES ('b', 1)") }
        try await relogged.sync()
        try await relogged.sync()
        #expect(try Self.hubRows(hub) == ["a='new'", "b=1"])
    }

    /// A push naming thousands of former replica IDs (duplicates among them) is looked up under
    /// the newest 8 once each, as a replica keeps them: a client cannot make the hub run a
    /// lookup per name per entry while it holds the space's lock. The real former ID, newest,
    /// still keeps a write whose answer was lost from being applied twice.
    @Test func aPushNamingThousandsOfFormerIDsIsReadForTheNewestEight() async throws {
        let folder = try SyncFolder()
        let hub = try Self.hub(folder)
        /// Pads every push's former IDs with 10,000 names (and repeats), the real ones kept newest.
        struct PadsFormerIDs: HubRelay {
            let hub: SyncHub
            func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
                var padded = request
                let junk = (0..<10_000).map { "stranger-\($0 % 5_000)" }
                padded.formerReplicaIDs = junk + (request.formerReplicaIDs ?? [])
                return try hub.push(padded)
            }
        }
        try await Self.phoneWriteWhoseAnswerIsLostThenLaptopChangesIt(folder, hub)
        let relogged = try Self.replica(folder, "phone-2", file: "phone", transport: PadsFormerIDs(hub: hub))
        try await relogged.sync()
        #expect(try await relogged.pendingChangeCount == 0)
        #expect(try Self.hubRows(hub) == ["a='new'"])
        #expect(try hub.withSpace("s") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 2)
    }

    /// Applies the first push and loses its answer.
    final class LosesFirstAnswer: HubRelay, Sendable {
        let hub: SyncHub
        private let lost = Mutex(false)
        init(hub: SyncHub) { self.hub = hub }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            let response = try hub.push(request)
            if lost.withLock({ lost in
                defer { lost = true }; return !lost
            }) {
                throw SyncError.hubUnreachable(url: "test", reason: "the answer was lost")
            }
            return response
        }
    }

    /// The phone's insert of 'a' is applied but its answer lost (still pending on the phone's
    /// file "phone"); then another device changes the row at the hub to 'new'.
    static func phoneWriteWhoseAnswerIsLostThenLaptopChangesIt(_ folder: SyncFolder, _ hub: SyncHub) async throws {
        let phone = try replica(folder, "phone", transport: LosesFirstAnswer(hub: hub))
        try await phone.sync()
        try await phone.write { try $0.execute("INSERT INTO t VALUES ('a', 'old')") }
        await #expect(throws: SyncError.self) { try await phone.push() }
        let laptop = try replica(folder, "laptop", transport: InProcessSyncTransport(hub: hub))
        try await laptop.sync()
        try await laptop.write { try $0.execute("UPDATE t SET v = 'new' WHERE id = 'a'") }
        try await laptop.sync()
    }
}
