// Scale out (`strata-sync-bench scale`): two spaces, each with its own pushers sending made
// entries as fast as the hub takes them, served first by one hub process and then by two (each
// space's pushers on its own process), with the CPU each side used: the hub processes,
// PostgreSQL's and this load tool.
import Foundation
import Strata
import StrataSync

#if !canImport(Darwin)
/// CPU seconds (user and system) used so far by a process, from /proc/PID/stat.
func cpuSeconds(of pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return 0 }
    // The command name, field 2, is in parentheses and may hold spaces: fields count after it.
    guard let close = text.utf8.lastIndex(of: UInt8(ascii: ")")) else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// CPU seconds used so far by every process named `name` (PostgreSQL's server and backends;
/// a backend that exited during the run is not counted, so this is a floor).
func cpuSeconds(ofProcessesNamed name: String) -> Double {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
    var total = 0.0
    for entry in entries {
        guard let pid = Int32(entry),
            let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
            comm.utf8.starts(with: name.utf8)
        else { continue }
        total += cpuSeconds(of: pid)
    }
    return total
}

extension SyncBench {
    struct ScaleRow {
        var label: String
        var rates: [Int]
        var hubCores: [Double]
        var postgresCores: Double
        var loadCores: Double
        var total: Int { rates.reduce(0, +) }
    }

    /// `count` single-row outbox entries of a replica named `name` that never syncs, each row
    /// its own (so pushers never touch each other's rows).
    func madeEntries(_ name: String, space: String, count: Int) async throws -> [SyncOutboxEntry] {
        let local = try replica(name, space: space, port: 1)
        for n in 0..<count { try await local.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", "\(name)-\(n)", name, n) } }
        return try await local.database.read { db in
            let rows: [Row] = try db.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
            return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
    }

    /// Two spaces, each with 8 pushers sending made entries in pushes of 100 over HTTP as fast
    /// as the hub answers (no replica writes in the window: the load tool only sends), on one
    /// hub process and then on two (each space's pushers on its own).
    func scaleOut(hubBinary: String, store: [String], hub: SyncHub, label: String, entriesPerPusher: Int) async throws -> [ScaleRow] {
        let logs = folder.appendingPathComponent("scale-logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let run = String(UInt32.random(in: 0 ... .max), radix: 36)
        var rows: [ScaleRow] = []
        for processes in [1, 2] {
            let spaces = (0..<2).map { "scale_\(run)_\(processes)_\($0)" }
            for space in spaces { try hub.createSpace(space) { try $0.execute(Self.schema) } }
            say("scale (\(label)): making \(2 * 8 * entriesPerPusher) entries...")
            var made: [[(String, [SyncOutboxEntry])]] = []
            for space in spaces {
                var pushers: [(String, [SyncOutboxEntry])] = []
                for index in 0..<8 {
                    let name = "p\(index)"
                    pushers.append((name, try await madeEntries(name, space: space, count: entriesPerPusher)))
                }
                made.append(pushers)
            }
            let hubs = try await HubProcesses(binary: hubBinary, store: store, count: processes, logFolder: logs)
            defer { hubs.stop() }
            let fingerprint = try await self.fingerprint(space: spaces[0], port: hubs.ports[0])
            say("scale (\(label)): 2 spaces, 8 pushers each, on \(processes) hub process(es)...")
            let pids = hubs.processes.map(\.processIdentifier)
            let hubBefore = pids.map { cpuSeconds(of: $0) }
            let postgresBefore = cpuSeconds(ofProcessesNamed: "postgres")
            let loadBefore = cpuSeconds(of: getpid())
            let start = ContinuousClock.now
            var rates: [Int] = []
            try await withThrowingTaskGroup(of: (Int, Double).self) { group in
                for (spaceIndex, space) in spaces.enumerated() {
                    guard let url = URL(string: "http://127.0.0.1:\(hubs.ports[spaceIndex % hubs.ports.count])") else { continue }
                    for (name, entries) in made[spaceIndex] {
                        group.addTask {
                            let transport = HTTPSyncTransport(url: url)
                            for batch in stride(from: 0, to: entries.count, by: 100) {
                                _ = try await transport.push(
                                    SyncPushRequest(
                                        space: space, replicaID: name, tables: ["item"], schemaFingerprint: fingerprint,
                                        entries: Array(entries[batch..<min(batch + 100, entries.count)])))
                            }
                            return (spaceIndex, secondsOf(ContinuousClock.now - start))
                        }
                    }
                }
                var finished = [0.0, 0.0]
                for try await (spaceIndex, seconds) in group { finished[spaceIndex] = max(finished[spaceIndex], seconds) }
                rates = finished.map { Int(Double(8 * entriesPerPusher) / $0) }
            }
            let wall = secondsOf(ContinuousClock.now - start)
            let row = ScaleRow(
                label: "\(label), \(processes) hub process\(processes == 1 ? "" : "es")", rates: rates,
                hubCores: zip(pids, hubBefore).map { (cpuSeconds(of: $0) - $1) / wall },
                postgresCores: (cpuSeconds(ofProcessesNamed: "postgres") - postgresBefore) / wall,
                loadCores: (cpuSeconds(of: getpid()) - loadBefore) / wall)
            say("  \(row.rates) changes/s; hub cores \(row.hubCores.map(format)), PostgreSQL \(format(row.postgresCores)), load \(format(row.loadCores))")
            rows.append(row)
        }
        return rows
    }
}
#endif
