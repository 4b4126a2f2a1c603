#if Hub
import Foundation
import StrataSQift
import PostgresNIO
import Strata
import StrataSync
@testable import StrataSyncPostgres
import StrataTestSupport
import Synchronization
import Testing

/// Failures of PostgreSQL that pass (a deadlock, sessions ended as a server restart ends them)
/// fail the request so that it is sent again: never a refusal of the replica's write, and the
/// hub's connections, the listening one too, come back by themselves.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresTransientFailureTests {
    static let schema = "CREATE TABLE note(id TEXT PRIMARY KEY, body TEXT, n INTEGER)"

    @Test func aDeadlockInAPushIsSentAgainNotRefused() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["note"])
        let database = team.database
        let replica = try team.replica("r")
        try await replica.write { try $0.execute("INSERT INTO note(id, body, n) VALUES ('a', 'first', 1)") }
        try await replica.sync()

        // A backend session holds row a, then asks for the space's lock, which the hub holds
        // while it waits for row a: a deadlock. The backend looks for it only after 10 s, so the
        // hub's session (1 s) is the one PostgreSQL ends, with 40P01.
        let backend = try database.connect()
        let logger = database.logger
        _ = try await backend.query("SET deadlock_timeout = '10s'", logger: logger)
        _ = try await backend.query("BEGIN", logger: logger)
        _ = try await backend.query("UPDATE team.note SET n = 2 WHERE id = 'a'", logger: logger)
        try await replica.write { try $0.execute("UPDATE note SET body = 'second' WHERE id = 'a'") }
        let syncing = Task { () -> (any Error)? in
            do { try await replica.sync(); return nil } catch { return error }
        }
        // Until the hub's push waits for row a (a lock not granted), not for the clock: a loaded
        // machine may take longer than any sleep to get the push there.
        for _ in 0..<3_000 {
            // A session of this test's database waiting for a lock (pg_locks is the server's:
            // another suite's waits would end this one early).
            let waiting = try database.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).map { try $0.decode(Int64.self) }
            if waiting.first ?? 0 > 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let key = spaceLockKey("team")
        let locked = Task { _ = try await backend.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger) }
        let failure = await syncing.value
        try await locked.value
        _ = try await backend.query("ROLLBACK", logger: logger)
        try await backend.close()

        #expect(failure is SyncHubStoreUnavailable, "the deadlock should fail the push to be sent again, not: \(String(describing: failure))")
        #expect(try await replica.pendingChanges.allSatisfy { $0.refusal == nil }, "a write was refused for the hub's deadlock")
        try await replica.sync()
        #expect(try await replica.pendingChangeCount == 0)
        let rows = try database.query("SELECT body, n FROM team.note WHERE id = 'a'").map { try $0.decode((String, Int64).self) }
        #expect(rows.map { "\($0.0) \($0.1)" } == ["second 1"])
    }

    @Test func aStatementOnAConnectionTheServerEndedFailsInsteadOfWaitingForever() async throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        var pid: Int32 = 0
        for try await row in try await connection.query("SELECT pg_backend_pid()", logger: database.logger) { pid = try row.decode(Int32.self) }
        _ = try database.query("SELECT pg_terminate_backend(\(pid))")
        for _ in 0..<100 where !connection.isClosed { try await Task.sleep(for: .milliseconds(50)) }
        #expect(connection.isClosed)
        // As a request's ROLLBACK after its session ended: postgres-nio never answers it.
        let link = PostgresLink(connection: connection, logger: database.logger)
        let outcome = Mutex<String?>(nil)
        Thread.detachNewThread {
            let result: String
            do {
                try link.query("ROLLBACK")
                result = "answered"
            } catch is SyncHubStoreUnavailable {
                result = "unavailable"
            } catch {
                result = "\(error)"
            }
            outcome.withLock { $0 = result }
        }
        for _ in 0..<100 where outcome.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(100)) }
        #expect(outcome.withLock { $0 } == "unavailable", "the statement on a closed connection was never answered")
    }

    @Test func endedSessionsFailARequestToBeSentAgainThenTheHubReconnects() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["note"])
        let database = team.database
        let replica = try team.replica("r")
        for round in 0..<5 {
            try await replica.write { try $0.run("INSERT INTO note(id, body, n) VALUES (?, 'x', ?)", "n\(round)", Int64(round)) }
            // Every session of the hub ended, as a server's fast shutdown ends them (57P01).
            try database.endOtherSessions()
            do {
                try await replica.sync()
            } catch let error as SyncHubStoreUnavailable {
                // The hub had not seen its session end yet: the push fails, to be sent again.
                _ = error
            }
            try await replica.sync()
            #expect(try await replica.pendingChangeCount == 0, "round \(round)")
        }
        let count = try database.query("SELECT count(*) FROM team.note").map { try $0.decode(Int64.self) }
        #expect(count == [5])
    }

    @Test func aLongPollStillWakesAfterTheListeningSessionEnded() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["note"], hubCount: 2)
        let second = team.hubs[1]
        let writer = try team.replica("writer")
        try team.database.endOtherSessions()
        // Time to see the sessions end and listen again.
        try await Task.sleep(for: .milliseconds(1_500))
        _ = try? second.version(ofSpace: "team")
        let clock = ContinuousClock()
        let start = clock.now
        async let waited: Void = second.waitForVersion(ofSpace: "team", after: 0, timeout: .seconds(20))
        try await Task.sleep(for: .milliseconds(300))
        try await writer.write { try $0.execute("INSERT INTO note(id, body, n) VALUES ('a', 'b', 1)") }
        do { try await writer.sync() } catch is SyncHubStoreUnavailable { try await writer.sync() }
        try await waited
        #expect(clock.now - start < .seconds(10), "the long poll was not woken by the commit (no one listened)")
        #expect(try second.version(ofSpace: "team") == 1)
    }

    /// Runs `.ci/postgres.sh` with `arguments`; its output goes to a file (a server it starts
    /// must not hold a pipe of this process open) and is returned.
    static func postgresScript(_ arguments: [String], in folder: TemporaryDirectory) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".ci/postgres.sh")
        let output = folder.path("script-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? handle.close() }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path] + arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else { throw SyncError.refused("postgres.sh \(arguments) failed: \(text)") }
        return text
    }

    /// A hub whose PostgreSQL is down when it starts (a deploy that brings the hub up first)
    /// starts, answers "unavailable" (HTTP 503, retried by replicas) meanwhile, and works once
    /// the server is up, with no restart of the hub.
    @Test func aHubStartedWhileItsServerIsDownWorksOnceTheServerIsUp() async throws {
        let folder = try TemporaryDirectory()
        let directory = folder.path("server")
        let started = try Self.postgresScript(["start", directory], in: folder)
        defer { _ = try? Self.postgresScript(["stop", directory], in: folder) }
        let prefix = "export STRATA_POSTGRES_URL="
        let url = try #require(started.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        _ = try Self.postgresScript(["pause", directory], in: folder)

        let hub = SyncHub(store: try .postgres(url: url))
        #expect(throws: SyncHubStoreUnavailable.self) { try hub.createSpace("team") { try $0.execute(Self.schema) } }
        let replica = try makeReplica("r", in: folder, hub: hub, space: "team", schema: Self.schema, tables: ["note"])
        try await replica.write { try $0.execute("INSERT INTO note(id, body, n) VALUES ('a', 'kept', 1)") }
        await #expect(throws: SyncHubStoreUnavailable.self) { try await replica.sync() }
        #expect(try await replica.pendingChangeCount == 1, "a write pushed while the store was down stays pending")

        _ = try Self.postgresScript(["resume", directory], in: folder)
        try hub.createSpace("team") { try $0.execute(Self.schema) }
        try await replica.sync()
        #expect(try await replica.pendingChangeCount == 0)
        #expect(try hub.version(ofSpace: "team") == 1)
    }

    /// Another hub process migrates the space between a request's first look and its write: the
    /// write, under the space's lock, finds the new schema version and the request runs again on
    /// the new definitions, instead of logging a change of the old width.
    @Test func aSpaceMigratedDuringARequestRunsItAgainOnTheNewDefinitions() throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: ["note"])
        let other = team.hub
        let storage = try PostgresHubStorage(url: team.database.url)
        var versionsSeen: [Int] = []
        let written = try storage.withSpace("team") { space -> Int in
            versionsSeen.append(try space.schemaVersion())
            if versionsSeen.count == 1 {
                try other.migrateSpace("team", to: 2) { try $0.execute("ALTER TABLE note ADD COLUMN tag TEXT") }
            }
            return try space.write { try space.schemaVersion() }
        }
        #expect(versionsSeen == [1, 2])
        #expect(written == 2)
        // A failure with the version unchanged is not run again.
        var calls = 0
        #expect(throws: SyncHubStoreUnavailable.self) {
            try storage.withSpace("team") { _ in
                calls += 1
                throw SyncHubStoreUnavailable(reason: "a failure that passes")
            }
        }
        #expect(calls == 1)
    }
}
#endif
