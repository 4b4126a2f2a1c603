#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// A backend's plain SQL on a space's PostgreSQL tables reaches every replica.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresBackendWriteTests {
    static let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0, score REAL, data BLOB)"

    func rows(_ replica: SyncReplica) async throws -> [String] {
        try await replica.database.read {
            try $0.query(
                """
                SELECT id || '|' || quote(title) || '|' || done || '|' || CASE WHEN score IS NULL THEN 'NULL' WHEN score > 1e308 THEN 'Inf' ELSE score END
                       || '|' || quote(data) FROM todo ORDER BY id
                """) as [String]
        }
    }

    @Test func insertsUpdatesAndDeletesABackendMakesArePulledByEveryReplica() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let phone = try team.replica("phone")
        let laptop = try team.replica("laptop")
        try await phone.write { try $0.execute("INSERT INTO todo(id, title) VALUES ('a', 'from phone'), ('b', 'to delete'), ('c', 'rekey')") }
        try await phone.sync()
        #expect(try hub.version(ofSpace: "team") == 1)

        _ = try database.query("INSERT INTO team.todo (id, title, done, score, data) VALUES ('d', 'from backend', 1, 'Infinity', '\\x00ff')")
        _ = try database.query("UPDATE team.todo SET title = 'edited', done = 2 WHERE id = 'a'")
        _ = try database.query("DELETE FROM team.todo WHERE id = 'b'")
        _ = try database.query("UPDATE team.todo SET id = 'c2' WHERE id = 'c'")
        // Inserted and deleted before the hub looked: nothing to tell.
        _ = try database.query("INSERT INTO team.todo (id, title) VALUES ('gone', 'x')")
        _ = try database.query("DELETE FROM team.todo WHERE id = 'gone'")

        try await phone.sync()
        try await laptop.sync()
        let expected = ["a|'edited'|2|NULL|NULL", "c2|'rekey'|0|NULL|NULL", "d|'from backend'|1|Inf|X'00FF'"]
        let phoneRows = try await rows(phone), laptopRows = try await rows(laptop)
        #expect(phoneRows == expected, "\(phoneRows)")
        #expect(laptopRows == expected, "\(laptopRows)")
        // One entry for the backend's writes, and no second one for the hub's own applies.
        #expect(try hub.version(ofSpace: "team") == 2)
        let log = try database.query("SELECT version, replica FROM team._strata_sync_log ORDER BY version").map { try $0.decode((Int64, String).self) }
        #expect(log.map { $0.1.hasPrefix("phone") } == [true, false] && log.last?.1 == "_postgres", "\(log)")
        #expect(try database.query("SELECT count(*) FROM team._strata_sync_backend").first?.decode(Int64.self) == 0)

        // A replica's write after the backend's goes through as usual and is not noted again.
        try await laptop.write { try $0.execute("UPDATE todo SET title = 'laptop' WHERE id = 'd'") }
        try await laptop.sync()
        try await phone.sync()
        #expect(try await rows(phone).last == "d|'laptop'|1|Inf|X'00FF'")
        #expect(try hub.version(ofSpace: "team") == 3)
        #expect(try database.query("SELECT count(*) FROM team._strata_sync_backend").first?.decode(Int64.self) == 0)
    }

    @Test func aLongPollWakesOnABackendWrite() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let clock = ContinuousClock()
        let start = clock.now
        async let waited: Void = hub.waitForVersion(ofSpace: "team", after: 0, timeout: .seconds(60))
        try await Task.sleep(for: .milliseconds(300))
        _ = try database.query("INSERT INTO team.todo (id, title) VALUES ('x', 'y')")
        try await waited
        #expect(clock.now - start < .seconds(20))
        #expect(try hub.version(ofSpace: "team") == 1)
    }
}
#endif
