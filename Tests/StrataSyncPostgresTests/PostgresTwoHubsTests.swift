#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// Two hubs (two stores, each with its own connections, as two processes would have) on one
/// PostgreSQL database.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresTwoHubsTests {
    static let schema = "CREATE TABLE note(id TEXT PRIMARY KEY, body TEXT, n INTEGER)"

    @Test func concurrentPushesThroughTwoHubsGetDenseVersionsInCommitOrderAndConverge() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["note"], hubCount: 2)
        let (database, first, second) = (team.database, team.hubs[0], team.hubs[1])
        let replicas = try (0..<4).map { index in try team.replica("r\(index)", through: team.hubs[index % 2]) }
        let writes = 12
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, replica) in replicas.enumerated() {
                group.addTask {
                    for step in 0..<writes {
                        try await replica.write { db in
                            try db.run("INSERT INTO note(id, body, n) VALUES (?, ?, ?)", "r\(index)-\(step)", "from \(index)", Int64(step))
                            // A shared row every replica changes: its last value is one of theirs.
                            try db.run(
                                "INSERT INTO note(id, body, n) VALUES ('shared', ?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body, n = excluded.n",
                                "from \(index)", Int64(step))
                        }
                        if step % 3 == 2 { try await replica.sync() }
                    }
                    try await replica.sync()
                }
            }
            try await group.waitForAll()
        }
        for replica in replicas { try await replica.sync() }
        let versions = try database.query("SELECT version FROM team._strata_sync_log ORDER BY version").map { try $0.decode(Int64.self) }
        #expect(versions == Array(1...Int64(versions.count)))
        #expect(versions.count == 4 * writes)
        #expect(try first.version(ofSpace: "team") == Int64(versions.count))
        #expect(try second.version(ofSpace: "team") == Int64(versions.count))
        // Each entry's chain extends the one before it: the log is one history.
        let hubRows = try database.query("SELECT id, body, n FROM team.note ORDER BY id").map { try $0.decode((String, String, Int64).self) }
        #expect(hubRows.count == 4 * writes + 1)
        for replica in replicas {
            let rows = try await replica.database.read { db -> [String] in
                try db.query("SELECT id || '|' || body || '|' || n FROM note ORDER BY id")
            }
            #expect(rows == hubRows.map { "\($0.0)|\($0.1)|\($0.2)" })
            #expect(try await replica.pendingChangeCount == 0)
        }
    }

    @Test func aLongPollOnOneHubWakesWhenTheOtherCommits() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["note"], hubCount: 2)
        let second = team.hubs[1]
        let writer = try team.replica("writer")
        let clock = ContinuousClock()
        let start = clock.now
        async let waited: Void = second.waitForVersion(ofSpace: "team", after: 0, timeout: .seconds(60))
        try await Task.sleep(for: .milliseconds(300))
        try await writer.write { try $0.execute("INSERT INTO note(id, body, n) VALUES ('a', 'b', 1)") }
        try await writer.sync()
        try await waited
        #expect(clock.now - start < .seconds(20))
        #expect(try second.version(ofSpace: "team") == 1)
    }
}
#endif
