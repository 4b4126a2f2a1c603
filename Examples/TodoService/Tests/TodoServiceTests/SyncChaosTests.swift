import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Strata
import StrataSync
import Testing

/// StrataSync across processes: a hub process (`strata-sync-hub`) and four replica processes
/// (`strata-sync-chaos-replica`) writing at random over HTTP, while replicas and the hub are killed
/// with SIGKILL at random moments (mid-request included) and restarted. Then every replica syncs
/// until quiet: each equals the hub row for row, every insert the hub acknowledged is there (unless
/// its replica deleted it), and every file passes integrity_check. `STRATA_CHAOS_SECONDS` sets the
/// chaos phase (8 s by default), `STRATA_CHAOS_SEED` replays a run.
@Suite(.serialized) struct SyncChaosTests {
    static let schema = "CREATE TABLE item(id TEXT PRIMARY KEY, owner TEXT NOT NULL, n INTEGER NOT NULL, note TEXT)"

    @Test(.timeLimit(.minutes(5))) func replicasAndHubKilledAtRandomStillConverge() async throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_CHAOS_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(Int64.max))
        let seconds = ProcessInfo.processInfo.environment["STRATA_CHAOS_SECONDS"].flatMap { Double($0) } ?? 8
        do {
            try await Self.run(seed: seed, seconds: seconds)
        } catch {
            Issue.record("sync chaos failed; replay with STRATA_CHAOS_SEED=\(seed): \(error)")
            throw error
        }
    }

    static func run(seed: UInt64, seconds: Double) async throws {
        var random = SplitMix(state: seed)
        let directory = try TemporaryDirectory()
        let folder = directory.url
        let hubFolder = folder.appendingPathComponent("hub")
        do {
            let hub = try SyncHub(directory: hubFolder)
            try hub.createSpace("chaos") { try $0.execute(Self.schema) }
        }
        let hubBinary = try builtBinary("strata-sync-hub")
        let replicaBinary = try builtBinary("strata-sync-chaos-replica")
        let token = "chaos-token"
        // A port nobody listens on: tried until the hub binds one (then kept across restarts).
        var port = 20_000 + Int(random.next() % 40_000)
        func startHub() async throws -> ChaosChild {
            let hub = try ChaosChild(hubBinary, [hubFolder.path, "--port", String(port), "--token", token], log: folder.appendingPathComponent("hub.log"))
            try await waitForHealth(port: port, hub: hub, folder: folder)
            return hub
        }
        var hub: ChaosChild
        var attempt = 0
        while true {
            do {
                hub = try await startHub()
                break
            } catch {
                attempt += 1
                guard attempt < 5 else { throw error }
                port = 20_000 + Int(random.next() % 40_000)
            }
        }
        let names = (1...4).map { "replica-\($0)" }
        func startReplica(_ name: String, _ random: inout SplitMix) throws -> ChaosChild {
            try ChaosChild(
                replicaBinary, [folder.path, name, String(port), token, String(random.next() >> 1)],
                log: folder.appendingPathComponent(name + ".log"))
        }
        var replicas: [String: ChaosChild] = [:]
        for name in names { replicas[name] = try startReplica(name, &random) }
        var kills = (hub: 0, replicas: 0)
        let end = Date().addingTimeInterval(seconds)
        // A run must have an acknowledged insert to prove anything: on a loaded machine the
        // chaos goes on past its time (up to four times as long) until a replica has one.
        let latest = Date().addingTimeInterval(seconds * 4)
        func someInsertAcknowledged() -> Bool { names.contains { chaosLog(folder, $0).contains("\nacked ") || chaosLog(folder, $0).hasPrefix("acked ") } }
        while Date() < end || (!someInsertAcknowledged() && Date() < latest) {
            try await Task.sleep(for: .milliseconds(150 + Int(random.next() % 500)))
            if random.next() % 4 == 0 {
                hub.kill9()
                kills.hub += 1
                try await Task.sleep(for: .milliseconds(Int(random.next() % 300)))
                hub = try await startHub()
            } else {
                let name = names[Int(random.next() % UInt64(names.count))]
                replicas[name]?.kill9()
                kills.replicas += 1
                replicas[name] = try startReplica(name, &random)
            }
            for (name, process) in replicas where !process.isRunning {
                throw ServiceProcessError(message: "\(name) exited by itself: \(chaosLog(folder, name))")
            }
        }
        for process in replicas.values { process.kill9() }
        replicas = [:]
        if !hub.isRunning { hub = try await startHub() }

        // Quiesce: each replica syncs until nothing is pending; rounds until all stand at the hub's
        // newest version.
        let hubFile = hubFolder.appendingPathComponent("chaos.sqlite").path
        var states: [String: String] = [:]
        for _ in 0..<6 {
            for name in names {
                let process = try ChaosChild(
                    replicaBinary, [folder.path, name, String(port), token, "1", "--quiesce"],
                    log: folder.appendingPathComponent(name + "-quiesce.log"))
                process.process.waitUntilExit()
                let lines = chaosLog(folder, name + "-quiesce").split(separator: "\n").filter { $0.hasPrefix("state ") }
                states[name] = lines.last.map(String.init) ?? "none"
            }
            let newest = try hubVersion(hubFile)
            if Set(states.values) == ["state \(newest) 0"] { break }
        }
        let newest = try hubVersion(hubFile)
        #expect(Set(states.values) == ["state \(newest) 0"], "replicas did not quiesce at version \(newest): \(states)")
        hub.kill9()

        let hubConnection = try Connection(storageLocation: .onDisk(hubFile))
        let expected: [String] = try hubConnection.query("SELECT id || '|' || owner || '|' || n || '|' || coalesce(note, '-') FROM item ORDER BY id")
        #expect(try hubConnection.query("PRAGMA integrity_check") as String? == "ok")
        let hubIDs = Set(try hubConnection.query("SELECT id FROM item") as [String])
        var acknowledged = 0
        for name in names {
            let connection = try Connection(storageLocation: .onDisk(folder.appendingPathComponent(name + ".sqlite").path))
            let rows: [String] = try connection.query("SELECT id || '|' || owner || '|' || n || '|' || coalesce(note, '-') FROM item ORDER BY id")
            #expect(rows == expected, "\(name) differs from the hub: \(rows.count) rows against \(expected.count)")
            #expect(try connection.query("PRAGMA integrity_check") as String? == "ok")
            let lines = chaosLog(folder, name).split(separator: "\n")
            let deleting = Set(lines.filter { $0.hasPrefix("deleting ") }.map { String($0.dropFirst("deleting ".count)) })
            let acked = lines.filter { $0.hasPrefix("acked ") }.map { String($0.dropFirst("acked ".count)) }.filter { !deleting.contains($0) }
            acknowledged += acked.count
            let lost = acked.filter { !hubIDs.contains($0) }
            #expect(lost.isEmpty, "\(name): acknowledged inserts missing at the hub: \(lost.prefix(5))")
        }
        print(
            "sync chaos (seed \(seed)): \(kills.hub) hub kills, \(kills.replicas) replica kills, \(expected.count) rows, \(acknowledged) acknowledged inserts checked, hub version \(newest)"
        )
        #expect(acknowledged > 0, "no replica had an insert acknowledged: the run proves nothing")
        // The hub command logs one line per request, naming its space, replica and status.
        let hubLog = chaosLog(folder, "hub")
        #expect(hubLog.contains("[StrataSyncHub] POST /spaces/chaos/push 200"))
        #expect(hubLog.contains("space=chaos"))
    }

    static func waitForHealth(port: Int, hub: ChaosChild, folder: URL) async throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard hub.isRunning else { throw ServiceProcessError(message: "the hub exited: \(chaosLog(folder, "hub"))") }
            if let url = URL(string: "http://127.0.0.1:\(port)/health"),
                let (_, response) = try? await URLSession.shared.data(from: url), (response as? HTTPURLResponse)?.statusCode == 200
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServiceProcessError(message: "the hub did not answer /health within 60 s")
    }

    static func hubVersion(_ path: String) throws -> Int64 {
        let connection = try Connection(storageLocation: .onDisk(path))
        return try connection.query("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = '_strata_sync_log'), 0)") ?? 0
    }
}

private func chaosLog(_ folder: URL, _ name: String) -> String {
    (try? String(contentsOf: folder.appendingPathComponent(name + ".log"), encoding: .utf8)) ?? ""
}
