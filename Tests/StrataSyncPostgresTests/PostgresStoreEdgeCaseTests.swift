#if Hub
// The PostgreSQL store's edge cases, on a real server: tables named apart only by non-ASCII case
// stay apart, the hub's own triggers on synced tables stay off while entries apply, a backend note
// committed while the hub logs is logged later, a pull is one snapshot while another hub trims,
// and a backend INSERT racing a push of the same key is not written over. (Each test is the one
// that showed a defect a review's probes found.)
import Foundation
import StrataSQift
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresStoreEdgeCaseTests {
    func hubs(_ database: PostgresTestDatabase, _ folder: TemporaryDirectory) throws -> [(String, SyncHub)] {
        [
            ("pg", SyncHub(store: try .postgres(url: database.url))),
            ("sqlite", SyncHub(store: try .sqliteFolder(folder.url.appendingPathComponent("hub"))))
        ]
    }

    @Test func tablesNamedApartOnlyByNonASCIICaseStayApart() async throws {
        let schema = "CREATE TABLE \"Ä\"(id TEXT PRIMARY KEY, v TEXT); CREATE TABLE \"ä\"(id TEXT PRIMARY KEY, v TEXT)"
        let team = try PostgresHubSpace(schema: schema, tables: ["Ä", "ä"])
        // The `v` column of the hub's tables `Ä` and `ä`, each in key order.
        func hubValues() throws -> [[String]] { try ["Ä", "ä"].map { try team.database.texts("SELECT v FROM team.\"\($0)\" ORDER BY id") } }
        let phone = try team.replica("phone")
        try await phone.write { db in
            try db.execute("INSERT INTO \"Ä\" VALUES ('k', 'upper')")
            try db.execute("INSERT INTO \"ä\" VALUES ('k', 'lower')")
        }
        try await syncKeepingRefusals(phone)
        let first = try hubValues()
        #expect(try await phone.pendingChanges.isEmpty)
        #expect(first == [["upper"], ["lower"]])
        try await phone.write { db in
            try db.execute("UPDATE \"ä\" SET v = 'lower2'")
            try db.execute("UPDATE \"Ä\" SET v = 'upper2'")
        }
        try await syncKeepingRefusals(phone)
        let second = try hubValues()
        let phoneRows = try await phone.database.read { try $0.query("SELECT (SELECT v FROM \"Ä\") || ',' || (SELECT v FROM \"ä\")") as String? }
        #expect(phoneRows == "upper2,lower2")
        let laptop = try team.replica("laptop")
        try await laptop.bootstrap()
        let laptopRows = try await laptop.database.read {
            try $0.query("SELECT (SELECT group_concat(v) FROM \"Ä\") || ',' || (SELECT group_concat(v) FROM \"ä\")") as String?
        }
        #expect(second == [["upper2"], ["lower2"]])
        #expect(laptopRows == "upper2,lower2")
    }

    @Test func theHubsTriggersOnSyncedTablesStayOffWhileEntriesApply() async throws {
        let schema = "CREATE TABLE item(id TEXT PRIMARY KEY, v TEXT); CREATE TABLE audit(id TEXT PRIMARY KEY, note TEXT);"
        let hubSchema =
            schema + """
                CREATE TABLE stats(id TEXT PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO stats VALUES ('items', 0);
                CREATE TRIGGER item_audit AFTER INSERT ON item BEGIN
                  INSERT INTO audit VALUES ('audit-' || NEW.id, 'hub'); UPDATE stats SET n = n + 1 WHERE id = 'items';
                END;
                """
        let database = try PostgresTestDatabase()
        let folder = try TemporaryDirectory()
        for (kind, hub) in try hubs(database, folder) {
            try hub.createSpace("team") { try $0.execute(hubSchema) }
            let phone = try makeReplica("phone-\(kind)", in: folder, hub: hub, space: "team", schema: schema, tables: ["item", "audit"])
            try await phone.write { try $0.execute("INSERT INTO item VALUES ('a', 'one')") }
            try await syncKeepingRefusals(phone)
            try await syncKeepingRefusals(phone)
            let p = try await phone.database.read { try $0.query("SELECT id || ':' || note FROM audit ORDER BY id") as [String] }
            var stats = "?"
            if kind == "pg" {
                stats = "\(try database.query("SELECT n FROM team.stats").map { try $0.decode(Int64.self) })"
            } else {
                stats = "\(try hub.withSpace("team") { try $0.query("SELECT n FROM stats") as [Int] })"
            }
            // The hub's trigger writes a synced table: off while entries apply, on both stores.
            #expect(p == [], "\(kind): \(p) (hub stats \(stats))")
        }
    }

    @Test func aBackendNoteCommittedWhileTheHubLogsIsLoggedLater() async throws {
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"
        let team = try PostgresHubSpace(schema: schema, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let phone = try team.replica("phone")
        try await phone.sync()
        let b1 = try database.connect()
        func q(_ sql: String) throws { _ = try b1.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).wait() }
        try q("BEGIN")
        try q("INSERT INTO team.todo VALUES ('y', 'from b1')") // noted id 1, not committed
        _ = try database.query("INSERT INTO team.todo VALUES ('x', 'from b2')") // noted id 2, committed
        try q("SELECT 1 FROM team.todo WHERE id = 'x' FOR UPDATE") // the hub's fetch of x waits for b1
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            do { _ = try hub.version(ofSpace: "team") } catch { Issue.record(error) }
            done.signal()
        }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        try q("COMMIT")
        done.wait()
        _ = try? await b1.close().get()
        try await phone.sync()
        try await phone.sync()
        let rows = try await phone.database.read { try $0.query("SELECT id FROM todo ORDER BY id") as [String] }
        let pg = try database.texts("SELECT id FROM team.todo ORDER BY id")
        #expect(rows == pg)
        #expect(pg == ["x", "y"])
    }

    @Test func aPullIsOneSnapshotWhileAnotherHubTrims() async throws {
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"
        let team = try PostgresHubSpace(schema: schema, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let transport = RecordingTransport(hub: hub)
        let phone = try team.replica("phone", transport: transport)
        for index in 0..<5 { try await phone.write { try $0.run("INSERT INTO todo VALUES (?, 'x')", "r\(index)") } }
        try await phone.sync()
        var request = try #require(transport.pulls.withLock { $0.last })
        request.after = 1; request.afterChain = nil; request.lastAcknowledged = nil
        // What `hub.trimLog(ofSpace:keepingLast: 2)` in another hub process commits, held open.
        let other = try database.connect()
        func q(_ sql: String) throws { _ = try other.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).wait() }
        try q("BEGIN")
        try q("LOCK TABLE team._strata_sync_log IN ACCESS EXCLUSIVE MODE")
        try q("DELETE FROM team._strata_sync_log WHERE version <= 3")
        try q("INSERT INTO team._strata_sync_meta VALUES ('trimmed_through', 3) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        let frozen = request
        let answer = Locked<SyncPullResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            do { let r = try hub.pull(frozen); answer.withLock { $0 = r } } catch { Issue.record(error) }
            done.signal()
        }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        try q("COMMIT")
        done.wait()
        _ = try? await other.close().get()
        let response = try #require(answer.withLock { $0 })
        #expect(response.snapshotNeeded || response.entries.first?.version == 2)
    }

    @Test func aBackendInsertRacingAPushIsNotWrittenOver() async throws {
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"
        let team = try PostgresHubSpace(schema: schema, tables: ["todo"])
        let database = team.database
        team.hub.setPolicy(.hubWins, forTable: "todo")
        let phone = try team.replica("phone")
        try await phone.sync()
        try await phone.write { try $0.execute("INSERT INTO todo VALUES ('k', 'phone')") }
        let backend = try database.connect()
        func q(_ sql: String) throws { _ = try backend.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).wait() }
        try q("BEGIN")
        try q("INSERT INTO team.todo VALUES ('k', 'backend')")
        let push = Task.detached { try await phone.push() }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        try q("COMMIT")
        _ = try await push.value
        _ = try? await backend.close().get()
        try await phone.sync()
        let pg = try database.texts("SELECT title FROM team.todo WHERE id = 'k'")
        let local = try await phone.database.read { try $0.query("SELECT title FROM todo WHERE id = 'k'") as String? }
        #expect(pg == ["backend"])
        #expect(local == "backend") // the hub wins, and corrects the replica
    }
}
#endif
