// The measurements of strata-sync-bench, for a hub in this process or hub processes on either store.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import PostgresNIO
import Strata
import StrataSync
import StrataSyncHub
import StrataSyncPostgres
import Synchronization

#if !canImport(Darwin)
func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

func format(_ value: Double) -> String { String(format: "%.1f", value) }

func secondsOf(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Whether a hub answers `/health` on `port`.
func hubAnswers(_ port: Int) async -> Bool {
    guard let url = URL(string: "http://127.0.0.1:\(port)/health"),
        let (_, response) = try? await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 2))
    else { return false }
    return (response as? HTTPURLResponse)?.statusCode == 200
}

/// A hub on a free loopback port in this process, serving until the process ends.
func startHub(_ hub: SyncHub) async throws -> Int {
    for _ in 0..<10 {
        let port = Int.random(in: 20_000..<60_000)
        let app = Application(router: buildSyncHubRouter(hub: hub), configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let server = Task { try await app.runService() }
        for _ in 0..<200 {
            if await hubAnswers(port) { return port }
            if server.isCancelled { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        server.cancel()
    }
    throw SyncError.refused("no free port for the hub")
}

/// `strata-sync-hub` processes on loopback ports, ended with SIGTERM.
final class HubProcesses {
    private(set) var processes: [Process] = []
    private(set) var ports: [Int] = []

    /// Starts `count` hubs with `store` (the folder, or `--postgres URL`) and waits until each answers.
    init(binary: String, store: [String], count: Int, logFolder: URL) async throws {
        for index in 0..<count {
            var started = false
            for _ in 0..<10 where !started {
                let port = Int.random(in: 20_000..<60_000)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = store + ["--port", String(port), "--log-level", "warning", "--max-pull-wait", "30", "--insecure"]
                let log = logFolder.appendingPathComponent("hub-\(index)-\(port).log")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                let handle = try FileHandle(forWritingTo: log)
                process.standardOutput = handle
                process.standardError = handle
                try process.run()
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline, process.isRunning, !started {
                    if await hubAnswers(port) { started = true } else { try await Task.sleep(for: .milliseconds(50)) }
                }
                if started {
                    processes.append(process)
                    ports.append(port)
                } else if process.isRunning {
                    process.terminate()
                    process.waitUntilExit()
                }
            }
            guard started else { stop(); throw SyncError.refused("hub \(index) never answered (logs in \(logFolder.path))") }
        }
    }

    func stop() {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
        processes = []
    }
}

/// When each row reached the observer, by id, in ms after its write began.
final class Arrivals: Sendable {
    let seen = Mutex<[String: Double]>([:])
}

/// The workloads, each on its own space, with replicas in a temporary folder.
struct SyncBench {
    static let schema = "CREATE TABLE item(id TEXT PRIMARY KEY, writer TEXT NOT NULL, at INTEGER NOT NULL)"
    let seconds: Double
    let folder: URL

    init(seconds: Double) throws {
        self.seconds = seconds
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func removeFolder() { try? FileManager.default.removeItem(at: folder) }

    func replica(_ name: String, space: String, port: Int, maximumPushEntries: Int = 500) throws -> SyncReplica {
        let database = try Database(path: folder.appendingPathComponent("\(space)-\(name).sqlite").path)
        try database.write { try $0.execute(Self.schema) }
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw SyncError.refused("no URL for port \(port)") }
        var transport = HTTPSyncTransport(url: url)
        transport.pullWait = .milliseconds(Int(ProcessInfo.processInfo.environment["PULL_WAIT_MS"] ?? "5000") ?? 5000)
        return try SyncReplica(
            database: database, replicaID: name, space: space, tables: ["item"], transport: transport,
            settings: SyncReplicaSettings(maximumPushEntries: maximumPushEntries))
    }

    struct Latency { var p50: Double; var p99: Double; var seen: Int; var expected: Int }

    /// 8 writers at 10 transactions a second (writer i on hub i mod the hubs), an observer on the
    /// first hub: commit to visible, p50 and p99.
    func latency(space: String, ports: [Int]) async throws -> Latency {
        say("latency (\(space)): 8 writers at 10 transactions/s for \(seconds) s on \(ports.count) hub(s)...")
        let observer = try replica("observer", space: space, port: ports[0])
        let latencies = Arrivals()
        let observation = observer.database.observe { db -> [String] in try db.query("SELECT id || ' ' || at FROM item") }
        let watching = Task {
            for try await rows in observation {
                let arrived = now()
                latencies.seen.withLock { seen in
                    for row in rows {
                        // The id and the time are ASCII without spaces: the row splits at its one space.
                        let parts = row.utf8.split(separator: UInt8(ascii: " "))
                        guard parts.count == 2, let at = Int64(String(decoding: parts[1], as: UTF8.self)) else { continue }
                        let id = String(decoding: parts[0], as: UTF8.self)
                        if seen[id] == nil { seen[id] = Double(arrived - at) / 1_000_000 }
                    }
                }
            }
        }
        let observerLoop = observer.startSyncing(interval: .milliseconds(200))
        var writers: [SyncReplica] = []
        for index in 0..<8 { writers.append(try replica("w\(index)", space: space, port: ports[index % ports.count])) }
        let loops = writers.map { $0.startSyncing(interval: .milliseconds(200)) }
        let seconds = self.seconds
        let expected = await withTaskGroup(of: Int.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    let end = ContinuousClock.now + .seconds(seconds)
                    var tick = ContinuousClock.now
                    var n = 0
                    while ContinuousClock.now < end {
                        n += 1
                        let id = "w\(index)-\(n)"
                        let at = now()
                        _ = try? await writer.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", id, "w\(index)", at) }
                        tick += .milliseconds(100)
                        try? await Task.sleep(until: tick, clock: .continuous)
                    }
                    return n
                }
            }
            return await group.reduce(0, +)
        }
        let drainEnd = ContinuousClock.now + .seconds(30)
        while latencies.seen.withLock({ $0.count }) < expected, ContinuousClock.now < drainEnd { try await Task.sleep(for: .milliseconds(50)) }
        for loop in loops { await loop.stop() }
        await observerLoop.stop()
        watching.cancel()
        let measured = latencies.seen.withLock { Array($0.values) }
        return Latency(p50: percentile(measured, 0.5), p99: percentile(measured, 0.99), seen: measured.count, expected: expected)
    }

    struct Throughput { var changes: Int; var seconds: Double; var rate: Int { Int(Double(changes) / seconds) } }

    /// 8 writers at full speed (spread over the hubs), more than any hub applies: the entries
    /// the hub applied during the run's seconds, after a warm-up of a second; `applied` reads
    /// how many entries the hub has applied. (Waiting for the backlog instead would measure the
    /// backlog's size.)
    func throughput(space: String, ports: [Int], applied: @escaping @Sendable () throws -> Int64) async throws -> Throughput {
        say("throughput (\(space)): 8 writers at full speed for \(seconds) s on \(ports.count) hub(s)...")
        var fast: [SyncReplica] = []
        for index in 0..<8 {
            fast.append(try replica("f\(index)", space: space, port: ports[index % ports.count], maximumPushEntries: 100))
        }
        let fastLoops = fast.map { $0.startSyncing(interval: .milliseconds(200)) }
        let seconds = self.seconds
        let window = Task { () throws -> Throughput in
            try await Task.sleep(for: .seconds(1))
            let before = try applied()
            let start = ContinuousClock.now
            try await Task.sleep(for: .seconds(seconds))
            let after = try applied()
            return Throughput(changes: Int(after - before), seconds: secondsOf(ContinuousClock.now - start))
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, writer) in fast.enumerated() {
                group.addTask {
                    let end = ContinuousClock.now + .seconds(seconds + 1)
                    var n = 0
                    while ContinuousClock.now < end {
                        n += 1
                        let row = n
                        _ = try? await writer.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", "f\(index)-\(row)", "f\(index)", row) }
                    }
                }
            }
        }
        let result = try await window.value
        say("  measured; stopping the writers' loops (each ends its push in flight)...")
        for loop in fastLoops { await loop.stop() }
        return result
    }

    /// The outbox entries of `count` single-row writes made by a replica that never syncs.
    func singleRowEntries(space: String, count: Int) async throws -> [SyncOutboxEntry] {
        let local = try replica("local", space: space, port: 1)
        for n in 0..<count { try await local.write { try $0.run("INSERT INTO item VALUES (?, 'l', ?)", "l-\(n)", n) } }
        return try await local.database.read { db in
            let rows: [Row] = try db.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
            return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
    }

    /// The hub's apply rate in this process: `count` single-row entries in pushes of 100.
    func applyRate(hub: SyncHub, space: String, count: Int) async throws -> Int {
        let entries = try await singleRowEntries(space: space, count: count)
        let fingerprint: String
        do {
            _ = try hub.pull(SyncPullRequest(space: space, replicaID: "x", tables: ["item"], schemaFingerprint: "?", after: 0, limit: 1))
            fingerprint = "?"
        } catch SyncError.schemaMismatch(_, let remote) {
            fingerprint = remote
        }
        let start = ContinuousClock.now
        for batch in stride(from: 0, to: entries.count, by: 100) {
            _ = try hub.push(
                SyncPushRequest(
                    space: space, replicaID: "local", tables: ["item"], schemaFingerprint: fingerprint,
                    entries: Array(entries[batch..<min(batch + 100, entries.count)])))
        }
        return Int(Double(entries.count) / secondsOf(ContinuousClock.now - start))
    }

    /// The floor under the PostgreSQL store's apply: the same rows as plain multi-row INSERTs of
    /// 100 (each its own transaction, as each push is) into a table of the space table's definition.
    func postgresInsertFloor(url: String, likeSpace space: String, count: Int) async throws -> Int {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw SyncError.refused("not a postgres:// URL: \(url)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password,
            database: database.isEmpty ? user : database, tls: .disable)
        var logger = Logger(label: "strata-sync-bench")
        logger.logLevel = .critical
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            let table = "\"strata_bench_floor\".\"item\""
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"strata_bench_floor\" CASCADE"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \"strata_bench_floor\""), logger: logger)
            // The space names here are the benchmark's own: lowercase letters, digits and underscores.
            let source = "\"" + space + "\".\"item\""
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (LIKE \(source) INCLUDING ALL)"), logger: logger)
            let start = ContinuousClock.now
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
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "INSERT INTO \(table) (id, writer, at) VALUES " + rows.joined(separator: ", "),
                        binds: binds), logger: logger)
            }
            let rate = Int(Double(count) / secondsOf(ContinuousClock.now - start))
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"strata_bench_floor\" CASCADE"), logger: logger)
            try await connection.close()
            return rate
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The same latency and throughput work on a SQLite folder hub process, one PostgreSQL hub
    /// process and three on the same PostgreSQL; then PostgreSQL's apply beside its INSERT floor.
    func compareStores(hubBinary: String, postgresURL: String) async throws {
        let logs = folder.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let hubFolder = folder.appendingPathComponent("hub")
        let sqliteHub = try SyncHub(directory: hubFolder)
        let postgresHub = SyncHub(store: try .postgres(url: postgresURL))
        // Spaces named for this run, so a database used before does not matter.
        let run = String(UInt32.random(in: 0 ... .max), radix: 36)
        struct Configuration { var label: String; var hub: SyncHub; var store: [String]; var processes: Int }
        let configurations = [
            Configuration(label: "SQLite folder, 1 hub process", hub: sqliteHub, store: [hubFolder.path], processes: 1),
            Configuration(label: "PostgreSQL, 1 hub process", hub: postgresHub, store: ["--postgres", postgresURL], processes: 1),
            Configuration(label: "PostgreSQL, 3 hub processes", hub: postgresHub, store: ["--postgres", postgresURL], processes: 3)
        ]
        var rows: [String] = []
        for (index, configuration) in configurations.enumerated() {
            let latencySpace = "bench_\(run)_latency_\(index)", throughputSpace = "bench_\(run)_throughput_\(index)"
            for space in [latencySpace, throughputSpace] { try configuration.hub.createSpace(space) { try $0.execute(Self.schema) } }
            let hubs = try await HubProcesses(binary: hubBinary, store: configuration.store, count: configuration.processes, logFolder: logs)
            defer { hubs.stop() }
            let latency = try await self.latency(space: latencySpace, ports: hubs.ports)
            let hub = configuration.hub
            let throughput = try await self.throughput(space: throughputSpace, ports: hubs.ports) {
                try hub.version(ofSpace: throughputSpace)
            }
            say("  p50 \(format(latency.p50)) ms, p99 \(format(latency.p99)) ms, \(throughput.rate) changes/s; stopping the hubs...")
            rows.append(
                "| \(configuration.label) | \(format(latency.p50)) | \(format(latency.p99)) | \(latency.seen) of \(latency.expected) | \(throughput.rate) |")
        }
        let count = 5_000
        say("apply: \(count) single-row entries in pushes of 100, in process, on each store...")
        let sqliteApplySpace = "bench_\(run)_apply_sqlite", postgresApplySpace = "bench_\(run)_apply_postgres"
        try sqliteHub.createSpace(sqliteApplySpace) { try $0.execute(Self.schema) }
        try postgresHub.createSpace(postgresApplySpace) { try $0.execute(Self.schema) }
        let sqliteApply = try await applyRate(hub: sqliteHub, space: sqliteApplySpace, count: count)
        say("  SQLite store: \(sqliteApply) changes/s")
        let postgresApply = try await applyRate(hub: postgresHub, space: postgresApplySpace, count: count)
        say("  PostgreSQL store: \(postgresApply) changes/s")
        let floor = try await postgresInsertFloor(url: postgresURL, likeSpace: postgresApplySpace, count: count)
        say("  floor: \(floor) rows/s")
        print("| store and hub processes | commit to visible p50 (ms) | p99 (ms) | rows seen | push throughput (changes/s) |")
        print("|---|---:|---:|---:|---:|")
        for row in rows { print(row) }
        print("")
        print("| in process, \(count) single-row changes in batches of 100 | changes/s |")
        print("|---|---:|")
        print("| the hub's apply, SQLite folder store (one transaction and fsync per push of 100) | \(sqliteApply) |")
        print("| the hub's apply, PostgreSQL store | \(postgresApply) |")
        print("| floor: plain multi-row `INSERT` of the same rows into a table of the same definition, 100 per statement | \(floor) |")
    }
}
#endif
