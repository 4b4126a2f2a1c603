#if Hub
import Foundation
import StrataSQift
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// A transport to a hub that keeps every request it sends and can send each push twice (a
/// retried push whose first answer was lost).
final class RecordingTransport: SyncTransport, Sendable {
    let hub: SyncHub
    let pushTwice: Bool
    let pushes = Locked<[SyncPushRequest]>([])
    let pulls = Locked<[SyncPullRequest]>([])
    init(hub: SyncHub, pushTwice: Bool = false) { self.hub = hub; self.pushTwice = pushTwice }
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        pushes.withLock { $0.append(request) }
        if pushTwice { _ = try hub.push(request) }
        return try hub.push(request)
    }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        pulls.withLock { $0.append(request) }
        return try hub.pull(request)
    }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try hub.snapshot(request) }
}

@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresHubStoreTests {
    static let todo = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)"

    @Test func aSpaceIsASchemaOfPostgresTablesWithTheMappedTypes() throws {
        let database = try PostgresTestDatabase()
        let hub = SyncHub(store: try .postgres(url: database.url))
        try hub.createSpace("team") { db in
            try db.execute(
                """
                CREATE TABLE item(id TEXT PRIMARY KEY, n INTEGER NOT NULL, r REAL, t VARCHAR(20), b BLOB, d NUMERIC, x, f DOUBLE PRECISION,
                                  "we""ird" TEXT);
                CREATE TABLE pair(a INTEGER, b TEXT, v TEXT, PRIMARY KEY (b, a))
                """)
        }
        let rows = try database.query(
            """
            SELECT table_name::text, column_name::text, data_type::text, is_nullable::text FROM information_schema.columns
            WHERE table_schema = 'team' ORDER BY table_name, ordinal_position
            """)
        var columns: [String] = []
        for row in rows {
            let (table, column, type, nullable) = try row.decode((String, String, String, String).self)
            columns.append("\(table).\(column) \(type) \(nullable)")
        }
        #expect(
            columns.filter { !$0.hasPrefix("_strata_sync_") } == [
                "item.id text NO", "item.n bigint NO", "item.r double precision YES", "item.t text YES", "item.b bytea YES",
                "item.d numeric YES", "item.x bytea YES", "item.f double precision YES", "item.we\"ird text YES",
                "pair.a bigint NO", "pair.b text NO", "pair.v text YES"
            ])
        let keys = try database.query(
            """
            SELECT k.column_name::text FROM information_schema.table_constraints c
            JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema
            WHERE c.table_schema = 'team' AND c.table_name = 'pair' AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position
            """
        ).map { try $0.decode(String.self) }
        #expect(keys == ["b", "a"])
        let defaults = try database.query(
            """
            SELECT column_name::text, column_default::text FROM information_schema.columns
            WHERE table_schema = 'dflt' AND column_default IS NOT NULL ORDER BY ordinal_position
            """)
        #expect(defaults.isEmpty)
        try hub.createSpace("dflt") { db in
            try db.execute(
                "CREATE TABLE d(id TEXT PRIMARY KEY, a INTEGER DEFAULT 0, b TEXT DEFAULT 'it''s', c REAL DEFAULT (-1.5e3), e TEXT DEFAULT CURRENT_TIMESTAMP, f INTEGER DEFAULT 1.5)"
            )
        }
        var carried: [String] = []
        for row in try database.query(
            """
            SELECT column_name::text, column_default::text FROM information_schema.columns
            WHERE table_schema = 'dflt' AND table_name = 'd' AND column_default IS NOT NULL ORDER BY ordinal_position
            """)
        {
            let (column, value) = try row.decode((String, String).self)
            carried.append(column + "=" + value)
        }
        // Literals carried over; CURRENT_TIMESTAMP and a real in an INTEGER column are not.
        #expect(carried.map { $0.prefix { $0 != "=" } } == ["a", "b", "c"], "\(carried)")
        #expect(carried.first == "a=0" && carried.dropFirst().first == "b='it''s'::text", "\(carried)")
        #expect(throws: SyncError.self) { try hub.createSpace("team") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY)") } }
        #expect(throws: PostgresHubError.self) { try hub.createSpace("nokey") { try $0.execute("CREATE TABLE t(a TEXT)") } }
        #expect(throws: PostgresHubError.self) { try hub.createSpace("pg_mine") { try $0.execute("CREATE TABLE t(id TEXT PRIMARY KEY)") } }
        let long = String(repeating: "é", count: 40)
        #expect(throws: PostgresHubError.invalidIdentifier(long, reason: "it is 80 bytes long; PostgreSQL keeps 63")) {
            try hub.createSpace("longname") { try $0.execute("CREATE TABLE \"\(long)\"(id TEXT PRIMARY KEY)") }
        }
        // A refused space leaves nothing behind.
        #expect(try database.query("SELECT 1 FROM pg_namespace WHERE nspname IN ('nokey', 'longname')").isEmpty)
        #expect(throws: SyncError.unknownSpace("nokey")) { try hub.version(ofSpace: "nokey") }
    }

    @Test func twoReplicasSyncThroughPostgresAndABackendReadsTheRows() async throws {
        let team = try PostgresHubSpace(schema: Self.todo, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let phone = try team.replica("phone")
        let laptop = try team.replica("laptop")
        try await phone.write { try $0.run("INSERT INTO todo(id, title) VALUES (?, ?)", "a", "milk") }
        try await phone.sync()
        try await laptop.sync()
        #expect(try await laptop.database.read { try $0.query("SELECT title FROM todo WHERE id = 'a'") as String? } == "milk")
        try await laptop.write { try $0.run("UPDATE todo SET done = 1 WHERE id = 'a'") }
        try await laptop.sync()
        try await phone.sync()
        #expect(try await phone.database.read { try $0.query("SELECT done FROM todo WHERE id = 'a'") as Int? } == 1)
        #expect(try hub.version(ofSpace: "team") == 2)
        let row = try #require(try database.query("SELECT title, done FROM team.todo WHERE id = 'a'").first)
        let (title, done) = try row.decode((String, Int64).self)
        #expect(title == "milk" && done == 1)
        let versions = try database.query("SELECT version FROM team._strata_sync_log ORDER BY version").map { try $0.decode(Int64.self) }
        #expect(versions == [1, 2])
        // A new replica starts from a snapshot the store builds from its tables.
        let tablet = try team.replica("tablet")
        try await tablet.bootstrap()
        #expect(try await tablet.lastPulledVersion == 2)
        #expect(try await tablet.database.read { try $0.query("SELECT done FROM todo WHERE id = 'a'") as Int? } == 1)
    }

    /// Two replicas change the same row while offline; the second to push meets the first's.
    func contend(
        _ policy: SyncPolicy, phoneWrite: String, laptopWrite: String
    ) async throws
        -> (hub: [String], phone: [String], laptop: [String], database: PostgresTestDatabase, laptopPending: [SyncPendingChange])
    {
        let team = try PostgresHubSpace(schema: Self.todo, tables: ["todo"])
        let database = team.database
        team.hub.setPolicy(policy, forTable: "todo")
        let phone = try team.replica("phone")
        let laptop = try team.replica("laptop")
        try await phone.write { try $0.execute("INSERT INTO todo(id, title) VALUES ('a', 'first')") }
        try await phone.sync()
        try await laptop.sync()
        try await phone.write { try $0.execute(phoneWrite) }
        try await laptop.write { try $0.execute(laptopWrite) }
        try await syncKeepingRefusals(phone)
        try await syncKeepingRefusals(laptop)
        try await syncKeepingRefusals(phone)
        func titles(_ replica: SyncReplica) async throws -> [String] {
            try await replica.database.read { try $0.query("SELECT id || '=' || coalesce(title, 'NULL') FROM todo ORDER BY id") as [String] }
        }
        let hubRows = try database.texts("SELECT id || '=' || coalesce(title, 'NULL') FROM team.todo ORDER BY id")
        return (hubRows, try await titles(phone), try await titles(laptop), database, try await laptop.pendingChanges)
    }

    @Test func lastWriterWinsKeepsTheLaterPush() async throws {
        let result = try await contend(.lastWriterWins, phoneWrite: "UPDATE todo SET title = 'phone'", laptopWrite: "UPDATE todo SET title = 'laptop'")
        #expect(result.hub == ["a=laptop"])
        #expect(result.phone == ["a=laptop"])
        #expect(result.laptop == ["a=laptop"])
    }

    @Test func hubWinsKeepsTheHubsRowAndCorrectsTheReplica() async throws {
        let result = try await contend(.hubWins, phoneWrite: "UPDATE todo SET title = 'phone'", laptopWrite: "UPDATE todo SET title = 'laptop'")
        #expect(result.hub == ["a=phone"])
        #expect(result.phone == ["a=phone"])
        #expect(result.laptop == ["a=phone"])
    }

    @Test func aDeleteAfterAnUpdateDeletesUnderLastWriterWinsAndAnUpdateAfterADeleteIsDropped() async throws {
        let deleted = try await contend(.lastWriterWins, phoneWrite: "UPDATE todo SET title = 'phone'", laptopWrite: "DELETE FROM todo")
        #expect(deleted.hub == [])
        #expect(deleted.phone == [])
        let dropped = try await contend(.lastWriterWins, phoneWrite: "DELETE FROM todo", laptopWrite: "UPDATE todo SET title = 'laptop'")
        #expect(dropped.hub == [])
        #expect(dropped.laptop == [])
        let hubWins = try await contend(.hubWins, phoneWrite: "UPDATE todo SET title = 'phone'", laptopWrite: "DELETE FROM todo")
        #expect(hubWins.hub == ["a=phone"])
        #expect(hubWins.laptop == ["a=phone"])
    }

    @Test func aCustomPolicyThatAbortsRefusesTheEntryByName() async throws {
        let result = try await contend(
            .custom { _ in .abort }, phoneWrite: "UPDATE todo SET title = 'phone'",
            laptopWrite: "UPDATE todo SET title = 'laptop'")
        #expect(result.hub == ["a=phone"])
        #expect(result.laptopPending.count == 1)
        #expect(result.laptopPending.first?.refusal?.reason == .policy)
        let inserts = try await contend(
            .custom { conflict in conflict.kind == .conflict ? .replace : .omit },
            phoneWrite: "INSERT INTO todo(id, title) VALUES ('b', 'phone')",
            laptopWrite: "INSERT INTO todo(id, title) VALUES ('b', 'laptop')")
        #expect(inserts.hub == ["a=first", "b=laptop"])
        #expect(inserts.phone == ["a=first", "b=laptop"])
    }

    @Test func aRetriedPushIsAppliedOnceAndOtherBytesUnderTheSameSequenceAreRefused() async throws {
        let team = try PostgresHubSpace(schema: Self.todo, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let transport = RecordingTransport(hub: hub, pushTwice: true)
        let phone = try team.replica("phone", transport: transport)
        for index in 0..<5 {
            try await phone.write { try $0.run("INSERT INTO todo(id, title) VALUES (?, ?)", "r\(index)", "t\(index)") }
        }
        try await phone.sync()
        #expect(try await phone.pendingChangeCount == 0)
        #expect(try hub.version(ofSpace: "team") == 5)
        #expect(try database.query("SELECT count(*) FROM team._strata_sync_log").first?.decode(Int64.self) == 5)
        #expect(try database.query("SELECT count(*) FROM team._strata_sync_applied").first?.decode(Int64.self) == 5)
        let sent = try #require(transport.pushes.withLock { $0.first })
        var other = sent
        other.entries = [SyncOutboxEntry(sequence: sent.entries[0].sequence, changeset: sent.entries[1].changeset)]
        #expect(throws: SyncError.duplicateEntry(replicaID: sent.replicaID, sequence: sent.entries[0].sequence)) { try hub.push(other) }
        #expect(try hub.version(ofSpace: "team") == 5)
        // A pull that claims a history the hub never had: the hub was restored from a copy.
        let pulled = try #require(transport.pulls.withLock { $0.last })
        var stranger = pulled
        stranger.after = 3
        stranger.afterChain = 12345
        #expect(try hub.pull(stranger).hubRolledBack == true)
        stranger.afterChain = try #require(try database.query("SELECT chain FROM team._strata_sync_log WHERE version = 3").first?.decode(Int64.self))
        #expect(try hub.pull(stranger).hubRolledBack == false)
        #expect(try hub.pull(stranger).entries.map(\.version) == [4, 5])
    }

    @Test func aTrimmedLogSendsNewReplicasToASnapshot() async throws {
        let team = try PostgresHubSpace(schema: Self.todo, tables: ["todo"])
        let hub = team.hub
        let phone = try team.replica("phone")
        for index in 0..<4 { try await phone.write { try $0.run("INSERT INTO todo(id, title) VALUES (?, 'x')", "r\(index)") } }
        try await phone.sync()
        #expect(try hub.trimLog(ofSpace: "team", keepingLast: 1) == 3)
        #expect(try hub.trimLog(ofSpace: "team", keepingLast: 1) == 0)
        #expect(try hub.version(ofSpace: "team") == 4)
        let laptop = try team.replica("laptop")
        try await laptop.sync()
        #expect(try await laptop.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 4)
        #expect(try await laptop.lastPulledVersion == 4)
        try await laptop.write { try $0.run("DELETE FROM todo WHERE id = 'r0'") }
        try await laptop.sync()
        try await phone.sync()
        #expect(try await phone.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == 3)
        #expect(try hub.version(ofSpace: "team") == 5)
    }
}
#endif
