#if Hub
import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// The chaos test (`STRATA_CHAOS_TESTS=1`, with the server of `.ci/postgres.sh`): three
/// `strata-sync-hub --postgres` processes on one database, four `strata-sync-writer` replica
/// processes writing over HTTP across them, hubs SIGKILLed and restarted at random, and
/// PostgreSQL itself restarted once (fast shutdown) mid-run. At quiescence every replica equals
/// the PostgreSQL table row for row, every write a writer committed is there (or a later write of
/// its own removed it), the hub refused none, and the log is dense with no entry twice.
/// `STRATA_CHAOS_SEED` replays a run; the seed is in every failure's message.
@Suite(
    .enabled(
        if: PostgresServer.isSet && ProcessInfo.processInfo.environment["STRATA_CHAOS_TESTS"] == "1",
        "set STRATA_CHAOS_TESTS=1 (and start a server with .ci/postgres.sh)"),
    .serialized)
struct PostgresChaosTests {
    @Test func hubsKilledAndTheServerRestartedLoseNoWrite() async throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        FileHandle.standardError.write(Data("chaos: seed \(seed) (replay with STRATA_CHAOS_SEED=\(seed))\n".utf8))
        let run = try ChaosRun(seed: seed)
        defer { run.stopEverything() }
        do {
            try await run.runAndCheck()
        } catch {
            Issue.record("chaos seed \(seed): \(error)")
        }
    }
}

/// One chaos run's processes, folder and database.
final class ChaosRun {
    /// How long the writers write (the chaos runs as long); draining and checking follow.
    static let writeSeconds = 40.0
    let seed: UInt64
    let comment: Comment
    let database: PostgresTestDatabase
    let folder: TemporaryDirectory
    let ports: [Int]
    var hubs: [ChildProcess?]
    var writers: [ChildProcess] = []
    var random: SeededRandom
    let clock = ContinuousClock()

    init(seed: UInt64) throws {
        self.seed = seed
        comment = "chaos seed \(seed)"
        random = SeededRandom(seed: seed)
        database = try PostgresTestDatabase()
        folder = try TemporaryDirectory()
        ports = try unusedLocalPorts(count: 3)
        hubs = [nil, nil, nil]
    }

    func runAndCheck() async throws {
        let schema = folder.path("schema.sql")
        try "CREATE TABLE item(id TEXT PRIMARY KEY, v TEXT)".write(toFile: schema, atomically: true, encoding: .utf8)
        // The first hub makes the space; the others start once it exists.
        try await startHub(0, extra: ["--create", "chaos", "--schema", schema])
        try await startHub(1)
        try await startHub(2)
        let urls = ports.map { "http://127.0.0.1:\($0)" }
        for index in 0..<4 {
            // Each writer starts at another hub (the list rotated), so the load is spread.
            let rotated = (0..<3).map { urls[(index + $0) % 3] }.joined(separator: ",")
            let process = ChildProcess()
            process.executableURL = try builtExecutable(named: "strata-sync-writer")
            process.arguments = ["--http", rotated, folder.url.path, "w\(index)", String(seed &+ UInt64(index)), String(ChaosRun.writeSeconds)]
            _ = FileManager.default.createFile(atPath: folder.path("w\(index).out"), contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path("w\(index).out")))
            process.standardError = try logHandle("w\(index).err")
            try process.run()
            writers.append(process)
        }

        // The chaos, while the writers write: a hub killed and restarted every second or few,
        // and the server restarted once, somewhere in the middle.
        let start = clock.now
        let restartAt = Duration.seconds(ChaosRun.writeSeconds * Double(random.int(30...60)) / 100)
        var restartedServer = false
        var kills = 0
        while clock.now - start < .seconds(ChaosRun.writeSeconds - 3) {
            try await Task.sleep(for: .milliseconds(random.int(800...2_500)))
            if !restartedServer, clock.now - start >= restartAt {
                try await restartServer()
                restartedServer = true
                continue
            }
            let victim = random.int(0...2)
            if let process = hubs[victim] {
                kill(process.processIdentifier, SIGKILL)
                await waitForExit(process, timeout: .seconds(10))
                kills += 1
            }
            // Down for a while, so replicas meet a dead hub and move on.
            try await Task.sleep(for: .milliseconds(random.int(100...1_500)))
            try await startHub(victim)
        }
        if !restartedServer { try await restartServer() }

        // Quiescence: the writers end their writes and sync until nothing of theirs is pending.
        for (index, writer) in writers.enumerated() {
            await waitForExit(writer, timeout: .seconds(150))
            #expect(
                !writer.isRunning && writer.terminationStatus == 0,
                "\(comment): writer w\(index) did not drain: \(tail("w\(index).err"))")
        }
        let versionRows = try database.query("SELECT coalesce(max(version), 0) FROM chaos._strata_sync_log")
        let hubVersion = try versionRows.first?.decode(Int64.self) ?? -1
        // Every replica pulls what the others pushed after it drained.
        var replicas: [SyncReplica] = []
        for index in 0..<4 {
            let file = try Database(storageLocation: .onDisk(folder.path("w\(index).sqlite")))
            guard let url = URL(string: "http://127.0.0.1:\(ports[index % 3])") else { throw SyncError.refused("no URL") }
            let replica = try SyncReplica(
                database: file, replicaID: "w\(index)", space: "chaos", tables: ["item"],
                transport: HTTPSyncTransport(url: url))
            try await replica.sync()
            #expect(try await replica.pendingChangeCount == 0, "\(comment): w\(index) has writes pending")
            #expect(try await replica.lastPulledVersion == hubVersion, "\(comment): w\(index) did not pull to \(hubVersion)")
            replicas.append(replica)
        }

        // Every replica is PostgreSQL's table, row for row.
        let rows = try database.query("SELECT id, v FROM chaos.item ORDER BY id COLLATE \"C\"").map { try $0.decode((String, String).self) }
        let atHub = rows.map { "\($0.0)=\($0.1)" }
        for (index, replica) in replicas.enumerated() {
            let local: [String] = try await replica.database.read { try $0.query("SELECT id || '=' || v FROM item ORDER BY id") }
            #expect(local == atHub, "\(comment): w\(index) differs from PostgreSQL (\(local.count) rows, \(atHub.count) there)")
        }

        // Every committed write is there, unless a later write of the same writer removed it.
        var expected: [String: String?] = [:]
        var shared: [String: Set<String>] = [:]
        var refusals: [String] = []
        var writes = 0
        for index in 0..<4 {
            let printed = try String(contentsOfFile: folder.path("w\(index).out"), encoding: .utf8)
            for line in printed.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
                switch parts.first {
                case "put" where parts.count == 3: expected[parts[1]] = .some(parts[2]); writes += 1
                case "del" where parts.count == 2: expected[parts[1]] = .some(nil); writes += 1
                case "shared" where parts.count == 3: shared[parts[1], default: []].insert(parts[2]); writes += 1
                case "refused": refusals.append(String(line))
                default: break
                }
            }
        }
        #expect(refusals.isEmpty, "\(comment): the hubs refused writes: \(refusals.prefix(5))")
        let hubRows = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        var lost: [String] = []
        for (id, value) in expected where hubRows[id] != value { lost.append("\(id): wrote \(value ?? "deleted"), hub has \(hubRows[id] ?? "none")") }
        #expect(lost.isEmpty, "\(comment): \(lost.count) writes lost, e.g. \(lost.prefix(5))")
        for (id, values) in shared {
            #expect(hubRows[id].map(values.contains) == true, "\(comment): \(id) is \(hubRows[id] ?? "none"), which no writer wrote")
        }
        let strays = hubRows.keys.filter { expected[$0] == nil && shared[$0] == nil }
        #expect(strays.isEmpty, "\(comment): rows no writer wrote: \(strays.prefix(5))")

        // The log: versions 1...n, each once; each replica's entry logged once.
        let log = try database.query("SELECT count(*), count(DISTINCT version), coalesce(min(version), 0) FROM chaos._strata_sync_log")
            .map { try $0.decode((Int64, Int64, Int64).self) }
        #expect(
            log.first.map { $0.0 == hubVersion && $0.1 == hubVersion && $0.2 == 1 } == true,
            "\(comment): the log is not 1...\(hubVersion) each once: \(log)")
        let twice = try database.query(
            """
            SELECT count(*) FROM (SELECT replica, sequence FROM chaos._strata_sync_log GROUP BY 1, 2 HAVING count(*) > 1) AS d
            """
        ).map { try $0.decode(Int64.self) }
        #expect(twice == [0], "\(comment): entries logged twice: \(twice)")
        // The run did what it claims: many writes, several kills, all through.
        #expect(writes > 400 && kills >= 5, "\(comment): only \(writes) writes and \(kills) hub kills")
        FileHandle.standardError.write(Data("chaos: seed \(seed): \(writes) writes, \(hubVersion) versions, \(kills) hub kills, 1 server restart\n".utf8))
    }

    func logHandle(_ name: String) throws -> FileHandle {
        let path = folder.path(name)
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        return handle
    }

    func tail(_ name: String) -> String {
        let text = (try? String(contentsOfFile: folder.path(name), encoding: .utf8)) ?? ""
        return String(text.suffix(1_500))
    }

    /// Starts hub `index` on its port and waits until it answers; tried again while it exits
    /// early (the server may be restarting).
    func startHub(_ index: Int, extra: [String] = []) async throws {
        for _ in 0..<20 {
            let process = ChildProcess()
            process.executableURL = try builtExecutable(named: "strata-sync-hub")
            process.arguments = ["--postgres", database.url, "--port", String(ports[index]), "--log-level", "warning", "--insecure"] + extra
            let log = try logHandle("hub\(index).log")
            process.standardOutput = log
            process.standardError = log
            try process.run()
            hubs[index] = process
            let deadline = clock.now + .seconds(15)
            while clock.now < deadline, process.isRunning {
                if let url = URL(string: "http://127.0.0.1:\(ports[index])/health"),
                    let (_, response) = try? await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 2)),
                    (response as? HTTPURLResponse)?.statusCode == 200
                {
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            await waitForExit(process, timeout: .seconds(5))
            try await Task.sleep(for: .milliseconds(300))
        }
        throw SyncError.refused("hub \(index) never started: \(tail("hub\(index).log"))")
    }

    /// PostgreSQL restarted with a fast shutdown (every session ended), on the same port and folder.
    func restartServer() async throws {
        guard let dir = ProcessInfo.processInfo.environment["STRATA_POSTGRES_DIR"] else {
            throw SyncError.refused("STRATA_POSTGRES_DIR is unset: the test cannot restart the server")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".ci/postgres.sh")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, "restart", dir]
        let log = try logHandle("postgres-restart.log")
        process.standardOutput = log
        process.standardError = log
        let started = clock.now
        try process.run()
        await waitForExit(process, timeout: .seconds(120))
        guard !process.isRunning else { throw SyncError.refused("the server's restart did not end in 120 s: \(tail("postgres-restart.log"))") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SyncError.refused(
                """
                the server's restart ended with status \(process.terminationStatus) (\(process.terminationReason == .uncaughtSignal ? "signal" : "exit")) \
                after \(clock.now - started): \(tail("postgres-restart.log"))
                """)
        }
    }

    func waitForExit(_ process: ChildProcess, timeout: Duration) async {
        let deadline = clock.now + timeout
        while process.isRunning, clock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
    }

    /// Every process this run started, ended (hubs and writers alike).
    func stopEverything() {
        for process in hubs.compactMap({ $0 }) + writers where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

#endif
