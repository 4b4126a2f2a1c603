#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
import Foundation
import Strata
import StrataSync
import Testing
import StrataTestSupport

/// A replica process killed with SIGKILL while it writes and pushes: after a restart nothing it
/// committed is missing from both its outbox and the hub, and nothing is applied twice.
@Suite struct SyncCrashTests {
    static func writerBinary() throws -> URL { try builtExecutable(named: "strata-sync-writer") }

    @Test func aKilledReplicaLosesNothingAndDuplicatesNothing() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("crash") { try $0.execute("CREATE TABLE item(id TEXT PRIMARY KEY, n INTEGER)") }
        let binary = try Self.writerBinary()
        for round in 0..<4 {
            let process = ChildProcess()
            process.executableURL = binary
            process.arguments = [folder.url.path, "writer"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Let it write and push for a while (a different moment each round), then SIGKILL.
            try await Task.sleep(for: .milliseconds(150 + 70 * round))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(printed.contains("wrote "), "round \(round): the writer wrote nothing before it was killed")
        }
        // The replica reopened, as the app would after a crash.
        let database = try Database(path: folder.path("writer.sqlite"))
        let replica = try SyncReplica(
            database: database, replicaID: "writer", space: "crash", tables: ["item"],
            transport: InProcessSyncTransport(hub: hub))
        let local: [String] = try await database.read { try $0.query("SELECT id FROM item ORDER BY id") }
        let atHubBefore: [String] = try hub.withSpace("crash") { try $0.query("SELECT id FROM item ORDER BY id") }
        #expect(Set(atHubBefore).isSubset(of: Set(local)), "the hub has rows the replica lost")
        if Set(local) != Set(atHubBefore) { #expect(try await replica.pendingChangeCount > 0, "local rows neither at the hub nor in the outbox") }
        try await replica.sync()
        let atHub: [String] = try hub.withSpace("crash") { try $0.query("SELECT id FROM item ORDER BY id") }
        #expect(atHub == local)
        #expect(try await replica.pendingChangeCount == 0)
        let duplicates = try hub.withSpace("crash") {
            try $0.query("SELECT count(*) FROM (SELECT replica, sequence FROM _strata_sync_log GROUP BY 1, 2 HAVING count(*) > 1)") as Int?
        }
        #expect(duplicates == 0)
        #expect(try hub.withSpace("crash") { try $0.query("PRAGMA integrity_check") as String? } == "ok")
        #expect(try await database.read { try $0.query("PRAGMA integrity_check") as String? } == "ok")
        #expect(local.count > 4)
    }

    /// The hub applies and commits a push, and its process dies before the answer reaches the
    /// replica: the rows are on disk at the hub, the replica still holds them, and sending them
    /// again is answered without applying anything twice.
    @Test func aHubKilledBetweenApplyAndAnswerKeepsThePushAndAppliesItOnce() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("crash") { try $0.execute("CREATE TABLE item(id TEXT PRIMARY KEY, n INTEGER)") }
        let process = ChildProcess()
        process.executableURL = try Self.writerBinary()
        process.arguments = ["--die-after-apply", folder.url.path, "writer", "12"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, "it died by SIGKILL: \(printed)")
        #expect(printed.contains("applied 12"), "the hub applied the push before the kill: \(printed)")
        // The hub's file, opened again: the 12 rows were committed before the answer.
        let reopened = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        #expect(try reopened.withSpace("crash") { try $0.query("SELECT count(*) FROM item") as Int? } == 12)
        let database = try Database(path: folder.path("writer.sqlite"))
        let replica = try SyncReplica(
            database: database, replicaID: "writer", space: "crash", tables: ["item"],
            transport: InProcessSyncTransport(hub: reopened))
        #expect(try await replica.pendingChangeCount == 12, "the answer was lost, so the replica still holds its writes")
        try await replica.sync()
        #expect(try await replica.pendingChangeCount == 0)
        #expect(try reopened.withSpace("crash") { try $0.query("SELECT count(*) FROM item") as Int? } == 12)
        #expect(try reopened.withSpace("crash") { try $0.query("SELECT count(*) FROM _strata_sync_log") as Int? } == 12, "nothing applied twice")
    }
}
#endif
