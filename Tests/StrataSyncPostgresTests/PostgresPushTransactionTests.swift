#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import Testing

/// Issue 66, item 1: a push's entries applied in one PostgreSQL transaction, a savepoint each: a
/// refused entry leaves the others applied, versions stay dense, and two hubs given the same
/// push at once apply each entry once (the space's advisory lock and the applied record).
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresPushTransactionTests {
    static let schema = "CREATE TABLE item(id TEXT PRIMARY KEY, writer TEXT NOT NULL, n INTEGER UNIQUE)"

    /// The outbox entries of `rows` single-row inserts by a replica that never syncs.
    static func entries(_ name: String, in team: PostgresHubSpace, rows: [(String, Int)]) async throws -> [SyncOutboxEntry] {
        let replica = try team.replica(name)
        for (id, n) in rows { try await replica.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", id, name, n) } }
        return try await replica.database.read { db in
            let rows: [Row] = try db.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
            return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
    }

    static func fingerprint(_ hub: SyncHub) throws -> String {
        do {
            _ = try hub.pull(SyncPullRequest(space: "team", replicaID: "x", tables: ["item"], schemaFingerprint: "?", after: 0, limit: 1))
            return "?"
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
    }

    @Test func aRefusedEntryLeavesTheOthersOfItsPushApplied() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["item"])
        let (database, hub) = (team.database, team.hub)
        let fingerprint = try Self.fingerprint(hub)
        let first = try await Self.entries("a", in: team, rows: [("a", 5)])
        _ = try hub.push(SyncPushRequest(space: "team", replicaID: "a", tables: ["item"], schemaFingerprint: fingerprint, entries: first))
        // b2 takes the UNIQUE n that a holds: refused alone, in the middle of the push.
        let entries = try await Self.entries("b", in: team, rows: [("b1", 1), ("b2", 5), ("b3", 3), ("b4", 4)])
        let push = SyncPushRequest(space: "team", replicaID: "b", tables: ["item"], schemaFingerprint: fingerprint, entries: entries)
        let response = try hub.push(push)
        #expect(response.acknowledged == [entries[0].sequence, entries[2].sequence, entries[3].sequence])
        #expect(response.refused?.map(\.sequence) == [entries[1].sequence])
        #expect(response.refused?.first?.reason == .constraint)
        #expect(response.versions == [2, 3, 4])
        #expect(response.hubVersion == 4)
        let rows = try database.texts("SELECT id FROM team.item ORDER BY id")
        #expect(rows == ["a", "b1", "b3", "b4"])
        let versions = try database.query("SELECT version FROM team._strata_sync_log ORDER BY version").map { try $0.decode(Int64.self) }
        #expect(versions == [1, 2, 3, 4])
        // Sent again (an answer lost): answered from the applied records, nothing applied twice.
        let again = try hub.push(push)
        #expect(again.acknowledged == response.acknowledged && again.versions == response.versions)
        #expect(try database.query("SELECT count(*) FROM team._strata_sync_log").first?.decode(Int64.self) == 4)
    }

    @Test func twoHubsGivenTheSamePushAtOnceApplyEachEntryOnce() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["item"], hubCount: 2)
        let (database, hubs) = (team.database, team.hubs)
        let fingerprint = try Self.fingerprint(hubs[0])
        let entries = try await Self.entries("r", in: team, rows: (0..<60).map { ("r\($0)", $0) })
        let push = SyncPushRequest(space: "team", replicaID: "r", tables: ["item"], schemaFingerprint: fingerprint, entries: entries)
        let answers = try await withThrowingTaskGroup(of: SyncPushResponse.self) { group in
            for index in 0..<4 { group.addTask { try hubs[index % 2].push(push) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for answer in answers {
            #expect(answer.acknowledged == entries.map(\.sequence))
            #expect(answer.versions == Array(1...60))
        }
        #expect(try database.query("SELECT count(*) FROM team._strata_sync_log").first?.decode(Int64.self) == 60)
        #expect(try database.query("SELECT count(*) FROM team.item").first?.decode(Int64.self) == 60)
    }

    /// The hub's apply rate on PostgreSQL in this process, as `strata-sync-bench` measures it
    /// (5,000 single-row entries in pushes of 100), beside the floor (the same rows in plain
    /// multi-row INSERTs of 100). A measurement, not a check: run with STRATA_SYNC_APPLY_RATE=1.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_SYNC_APPLY_RATE"] != nil, "a measurement: STRATA_SYNC_APPLY_RATE=1"))
    func applyRate() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["item"])
        let (database, hub) = (team.database, team.hub)
        let fingerprint = try Self.fingerprint(hub)
        let count = 5_000
        let entries = try await Self.entries("l", in: team, rows: (0..<count).map { ("l-\($0)", $0) })
        let start = ContinuousClock.now
        for batch in stride(from: 0, to: count, by: 100) {
            _ = try hub.push(
                SyncPushRequest(
                    space: "team", replicaID: "l", tables: ["item"], schemaFingerprint: fingerprint,
                    entries: Array(entries[batch..<min(batch + 100, count)])))
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        #expect(try database.query("SELECT count(*) FROM team.item").first?.decode(Int64.self) == Int64(count))
        let floorSeconds = try Self.insertFloor(database, count: count)
        print("apply rate: \(Int(Double(count) / seconds)) changes/s; floor: \(Int(Double(count) / floorSeconds)) rows/s")
    }

    /// Seconds to insert `count` rows like the space's into a table of the same definition, as
    /// plain multi-row INSERTs of 100 (the floor under the store's apply).
    static func insertFloor(_ database: PostgresTestDatabase, count: Int) throws -> Double {
        let connection = try database.connect()
        defer { _ = try? connection.close().wait() }
        _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE floor (LIKE team.item INCLUDING ALL)"), logger: database.logger).wait()
        let floorStart = ContinuousClock.now
        for batch in stride(from: 0, to: count, by: 100) {
            var binds = PostgresBindings()
            var rows: [String] = []
            for n in batch..<min(batch + 100, count) {
                let base = binds.count
                binds.append("l-\(n)")
                binds.append("l")
                binds.append(Int64(n))
                rows.append("($\(base + 1), $\(base + 2), $\(base + 3))")
            }
            _ = try connection.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO floor (id, writer, n) VALUES " + rows.joined(separator: ", "),
                    binds: binds), logger: database.logger
            ).wait()
        }
        let floorElapsed = ContinuousClock.now - floorStart
        let floorSeconds = Double(floorElapsed.components.seconds) + Double(floorElapsed.components.attoseconds) / 1e18
        return floorSeconds
    }
}
#endif
