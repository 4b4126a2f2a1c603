// StrataSync over loopback HTTP, measured: `swift run -c release --package-path
// Examples/TodoService strata-sync-bench [SECONDS]`.
// - Latency: 8 replicas each write 10 transactions a second through a running SyncLoop
//   (`startSyncing`, long-poll pulls); a 9th replica observes the table. For every row, the time
//   from just before its write to the observer's delivery of it: p50 and p99.
// - Throughput: the 8 replicas write as fast as they can; changes the hub applied per second,
//   against the hub applying the same kind of single-row entries in process (no HTTP).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Strata
import StrataSync
import Synchronization
import StrataSyncHub

#if !canImport(Darwin)
let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 10
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let schema = "CREATE TABLE item(id TEXT PRIMARY KEY, writer TEXT NOT NULL, at INTEGER NOT NULL)"

func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}
func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

/// A hub on a free loopback port, serving until the process ends.
func startHub(_ hub: SyncHub) async throws -> Int {
    for _ in 0..<10 {
        let port = Int.random(in: 20_000..<60_000)
        let app = Application(router: buildSyncHubRouter(hub: hub), configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let server = Task { try await app.runService() }
        for _ in 0..<200 {
            if let url = URL(string: "http://127.0.0.1:\(port)/health"), let (_, response) = try? await URLSession.shared.data(from: url),
               (response as? HTTPURLResponse)?.statusCode == 200 {
                return port
            }
            if server.isCancelled { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        server.cancel()
    }
    throw SyncError.refused("no free port for the hub")
}

func replica(_ name: String, space: String, port: Int) throws -> SyncReplica {
    let database = try Database(path: folder.appendingPathComponent("\(space)-\(name).sqlite").path)
    try database.executeWrite { try $0.execute(schema) }
    var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!)
    transport.pullWait = .milliseconds(Int(ProcessInfo.processInfo.environment["PULL_WAIT_MS"] ?? "5000") ?? 5000)
    return try SyncReplica(database: database, replicaID: name, space: space, tables: ["item"], transport: transport)
}

let hub = try SyncHub(directory: folder.appendingPathComponent("hub"))
try hub.createSpace("latency") { try $0.execute(schema) }
try hub.createSpace("throughput") { try $0.execute(schema) }
try hub.createSpace("local") { try $0.execute(schema) }
let port = try await startHub(hub)

// Latency.
say("latency: 8 writers at 10 transactions/s for \(seconds) s...")
let observer = try replica("observer", space: "latency", port: port)
let latencies = Mutex<[String: Double]>([:])
let observation = observer.database.observe { db -> [String] in try db.query("SELECT id || ' ' || at FROM item") }
let watching = Task {
    for try await rows in observation {
        let arrived = now()
        latencies.withLock { seen in
            for row in rows {
                let parts = row.split(separator: " ")
                guard parts.count == 2, let at = Int64(parts[1]) else { continue }
                let id = String(parts[0])
                if seen[id] == nil { seen[id] = Double(arrived - at) / 1_000_000 }
            }
        }
    }
}
let observerLoop = observer.startSyncing(interval: .milliseconds(200))
var writers: [SyncReplica] = []
for index in 0..<8 { writers.append(try replica("w\(index)", space: "latency", port: port)) }
let loops = writers.map { $0.startSyncing(interval: .milliseconds(200)) }
let written = Mutex(0)
await withTaskGroup(of: Void.self) { group in
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
                written.withLock { $0 += 1 }
                tick += .milliseconds(100)
                try? await Task.sleep(until: tick, clock: .continuous)
            }
        }
    }
}
let expected = written.withLock { $0 }
let drainEnd = ContinuousClock.now + .seconds(30)
while latencies.withLock({ $0.count }) < expected, ContinuousClock.now < drainEnd { try await Task.sleep(for: .milliseconds(50)) }
for loop in loops { await loop.stop() }
await observerLoop.stop()
watching.cancel()
let measured = latencies.withLock { Array($0.values) }

// Throughput over HTTP.
say("throughput: 8 writers at full speed for \(seconds) s...")
var fast: [SyncReplica] = []
for index in 0..<8 { fast.append(try replica("f\(index)", space: "throughput", port: port)) }
let fastLoops = fast.map { $0.startSyncing(interval: .milliseconds(200)) }
let started = ContinuousClock.now
await withTaskGroup(of: Void.self) { group in
    for (index, writer) in fast.enumerated() {
        group.addTask {
            let end = ContinuousClock.now + .seconds(seconds)
            var n = 0
            while ContinuousClock.now < end {
                n += 1
                let row = n
                _ = try? await writer.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", "f\(index)-\(row)", "f\(index)", row) }
            }
        }
    }
}
var pending = 1
while pending > 0, ContinuousClock.now < started + .seconds(seconds + 60) {
    pending = 0
    for writer in fast { pending += (try? await writer.pendingChangeCount) ?? 0 }
    try await Task.sleep(for: .milliseconds(50))
}
let httpElapsed = ContinuousClock.now - started
for loop in fastLoops { await loop.stop() }
let httpChanges = try hub.withSpace("throughput") { try $0.query("SELECT count(*) FROM item") as Int? } ?? 0
let httpSeconds = Double(httpElapsed.components.seconds) + Double(httpElapsed.components.attoseconds) / 1e18

// The hub's own apply rate: the same single-row entries, pushed in process.
let local = try replica("local", space: "local", port: port)
let entryCount = max(1_000, min(httpChanges, 20_000))
for n in 0..<entryCount { try await local.write { try $0.run("INSERT INTO item VALUES (?, 'l', ?)", "l-\(n)", n) } }
let entries: [SyncOutboxEntry] = try await local.database.read { db in
    let rows: [Row] = try db.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
    return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
}
let fingerprint: String
do {
    _ = try hub.pull(SyncPullRequest(space: "local", replicaID: "x", tables: ["item"], schemaFingerprint: "?", after: 0, limit: 1))
    fingerprint = "?"
} catch SyncError.schemaMismatch(_, let remote) {
    fingerprint = remote
}
let applyStart = ContinuousClock.now
for batch in stride(from: 0, to: entries.count, by: 100) {
    _ = try hub.push(SyncPushRequest(space: "local", replicaID: "local", tables: ["item"], schemaFingerprint: fingerprint,
                                     entries: Array(entries[batch..<min(batch + 100, entries.count)])))
}
let applyElapsed = ContinuousClock.now - applyStart
let applySeconds = Double(applyElapsed.components.seconds) + Double(applyElapsed.components.attoseconds) / 1e18

print("| measure | value |")
print("|---|---:|")
print("| commit to visible on another replica, p50 (8 writers x 10 tx/s, \(measured.count) of \(expected) rows seen) | \(String(format: "%.1f", percentile(measured, 0.5))) ms |")
print("| commit to visible, p99 | \(String(format: "%.1f", percentile(measured, 0.99))) ms |")
print("| push throughput over HTTP, 8 writers at full speed | \(Int(Double(httpChanges) / httpSeconds)) changes/s (\(httpChanges) in \(String(format: "%.1f", httpSeconds)) s) |")
print("| the hub's own apply rate, single-row entries in process | \(Int(Double(entries.count) / applySeconds)) changes/s |")
exit(0)
#else
print("changesets are not available on this platform")
#endif
