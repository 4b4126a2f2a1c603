// Tests only: a replica process for StrataSync's crash and chaos tests.
//
//   strata-sync-writer FOLDER REPLICA-ID
//     writes rows through a replica of the hub in FOLDER and syncs every few writes, printing
//     each committed id, until it is killed (the crash test).
//   strata-sync-writer --http URL[,URL...] FOLDER REPLICA-ID SEED SECONDS
//     writes for SECONDS through a replica in FOLDER that syncs over HTTP with the hubs at the
//     URLs (moving to the next when one does not answer), then syncs until nothing is pending and
//     exits (the chaos test). Each line it prints is a write that had committed locally.
//   strata-sync-writer --die-after-apply FOLDER REPLICA-ID ROWS
//     writes ROWS rows and pushes them to the hub in FOLDER, which applies and commits them; the
//     process SIGKILLs itself before the answer reaches the replica.
import Foundation
import StrataSQift
import Strata
import StrataSync
import Synchronization

let arguments = CommandLine.arguments
if arguments.count == 7, arguments[1] == "--http" {
    await runOverHTTP(urls: arguments[2], folder: arguments[3], replicaID: arguments[4], seed: arguments[5], seconds: arguments[6])
}
if arguments.count == 5, arguments[1] == "--die-after-apply" {
    await dieAfterApply(folder: URL(fileURLWithPath: arguments[2]), replicaID: arguments[3], rows: Int(arguments[4]) ?? 0)
}
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: strata-sync-writer FOLDER REPLICA-ID | --http URL[,URL...] FOLDER REPLICA-ID SEED SECONDS\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let replicaID = arguments[2]
do {
    let replica = try crashReplica(folder: folder, replicaID: replicaID) { $0 }
    var n = 0
    while true {
        n += 1
        let id = "\(replicaID)-\(n)-\(UUID().uuidString.prefix(8))"
        let value = n
        try await replica.write { try $0.run("INSERT INTO item(id, n) VALUES (?, ?)", id, value) }
        // Unbuffered, so what the test reads is what had committed when the process died.
        FileHandle.standardOutput.write(Data("wrote \(id)\n".utf8))
        if n % 3 == 0 { try await replica.sync() }
    }
} catch {
    FileHandle.standardError.write(Data("strata-sync-writer: \(error)\n".utf8))
    exit(1)
}

/// Several hubs as one transport: a request goes to the current hub, and to the next one when
/// that one does not answer (as a load balancer in front of hub processes would do).
final class FailoverTransport: SyncTransport {
    let hubs: [HTTPSyncTransport]
    let current = Mutex(0)

    init(hubs: [HTTPSyncTransport]) { self.hubs = hubs }

    func attempt<T>(_ body: (HTTPSyncTransport) async throws -> T) async throws -> T {
        let start = current.withLock { $0 }
        var lastError: (any Error)?
        for offset in 0..<hubs.count {
            let index = (start + offset) % hubs.count
            do {
                let result = try await body(hubs[index])
                current.withLock { $0 = index }
                return result
            } catch let error as SyncError {
                guard case .hubUnreachable = error else { throw error }
                lastError = error
            }
        }
        throw lastError ?? SyncError.hubUnreachable(url: "", reason: "no hub")
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await attempt { try await $0.push(request) } }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await attempt { try await $0.pull(request) } }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await attempt { try await $0.snapshot(request) } }
}

/// The crash tests' replica: REPLICA-ID.sqlite in FOLDER (WAL, table `item`), syncing space
/// `crash` with the hub in FOLDER/hub through `transport` made from the in-process one.
func crashReplica<Transport: SyncTransport>(
    folder: URL, replicaID: String, transport: (InProcessSyncTransport) -> Transport
) throws -> SyncReplica {
    let hub = try SyncHub(directory: folder.appendingPathComponent("hub"))
    let database = try Database(storageLocation: .onDisk(folder.appendingPathComponent(replicaID + ".sqlite").path))
    try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS item(id TEXT PRIMARY KEY, n INTEGER)") }
    return try SyncReplica(
        database: database, replicaID: replicaID, space: "crash", tables: ["item"], transport: transport(InProcessSyncTransport(hub: hub)))
}

/// The in-process hub's answer never reaches the replica: SIGKILL once the hub has applied and
/// committed the push, before `push` returns (a hub process killed between apply and answer).
struct DyingTransport: SyncTransport {
    let hub: InProcessSyncTransport

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let response = try await hub.push(request)
        say("applied \(response.acknowledged.count) at version \(response.hubVersion)")
        kill(getpid(), SIGKILL)
        return response
    }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await hub.pull(request) }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await hub.snapshot(request) }
}

/// `strata-sync-writer --die-after-apply FOLDER REPLICA-ID ROWS`: writes ROWS rows through a
/// replica of the hub in FOLDER (space `crash`), then pushes them through ``DyingTransport``.
func dieAfterApply(folder: URL, replicaID: String, rows: Int) async -> Never {
    do {
        let replica = try crashReplica(folder: folder, replicaID: replicaID) { DyingTransport(hub: $0) }
        for n in 0..<rows {
            try await replica.write { try $0.run("INSERT INTO item(id, n) VALUES (?, ?)", "\(replicaID)-\(n)", n) }
        }
        try await replica.push()
        FileHandle.standardError.write(Data("strata-sync-writer: the push returned; it should have died first\n".utf8))
        exit(2)
    } catch {
        FileHandle.standardError.write(Data("strata-sync-writer: \(error)\n".utf8))
        exit(1)
    }
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func runOverHTTP(urls: String, folder: String, replicaID: String, seed: String, seconds: String) async -> Never {
    guard let seedValue = UInt64(seed), let duration = Double(seconds) else {
        FileHandle.standardError.write(Data("strata-sync-writer: SEED and SECONDS must be numbers\n".utf8))
        exit(64)
    }
    var hubs: [HTTPSyncTransport] = []
    for text in urls.split(separator: ",") {
        guard let url = URL(string: String(text)) else {
            FileHandle.standardError.write(Data("strata-sync-writer: not a URL: \(text)\n".utf8))
            exit(64)
        }
        var transport = HTTPSyncTransport(url: url)
        transport.attempts = 2
        hubs.append(transport)
    }
    do {
        let database = try Database(storageLocation: .onDisk(URL(fileURLWithPath: folder).appendingPathComponent(replicaID + ".sqlite").path))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS item(id TEXT PRIMARY KEY, v TEXT)") }
        let replica = try SyncReplica(
            database: database, replicaID: replicaID, space: "chaos", tables: ["item"],
            transport: FailoverTransport(hubs: hubs))
        var random = SeededGenerator(state: seedValue)
        var live: [String] = []
        let deadline = Date().addingTimeInterval(duration)
        var n = 0
        // Each write is printed once committed: `put ID VALUE`, `del ID`, or `shared ID VALUE`
        // for the rows every writer changes.
        while Date() < deadline {
            n += 1
            let value = "\(replicaID):\(n)"
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 5 || live.isEmpty {
                let id = "\(replicaID)-\(n)"
                try await replica.write { try $0.run("INSERT INTO item(id, v) VALUES (?, ?)", id, value) }
                live.append(id)
                say("put \(id) \(value)")
            } else if roll < 7 {
                let id = live[Int.random(in: 0..<live.count, using: &random)]
                try await replica.write { try $0.run("UPDATE item SET v = ? WHERE id = ?", value, id) }
                say("put \(id) \(value)")
            } else if roll < 8 {
                let id = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                try await replica.write { try $0.run("DELETE FROM item WHERE id = ?", id) }
                say("del \(id)")
            } else {
                let id = "shared-\(Int.random(in: 0..<4, using: &random))"
                try await replica.write {
                    try $0.run("INSERT INTO item(id, v) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET v = excluded.v", id, value)
                }
                say("shared \(id) \(value)")
            }
            if n % 4 == 0 { _ = await syncOnce(replica) }
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...30, using: &random)))
        }
        // Until everything this replica wrote is at a hub (the hubs may still be restarting).
        let drainDeadline = Date().addingTimeInterval(90)
        while Date() < drainDeadline {
            if await syncOnce(replica), try await replica.pendingChangeCount == 0 {
                say("drained")
                exit(0)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        FileHandle.standardError.write(Data("strata-sync-writer: writes still pending after 90 s\n".utf8))
        exit(1)
    } catch {
        FileHandle.standardError.write(Data("strata-sync-writer: \(error)\n".utf8))
        exit(1)
    }
}

/// One sync; a refusal is printed (the test counts them: a hub must never refuse these writes),
/// any other failure goes to stderr and the next sync tries again. Returns whether it succeeded.
func syncOnce(_ replica: SyncReplica) async -> Bool {
    do {
        try await replica.sync()
        return true
    } catch SyncError.entryRefused(let refusal) {
        say("refused \(refusal)")
    } catch {
        FileHandle.standardError.write(Data("strata-sync-writer: sync failed: \(error)\n".utf8))
    }
    return false
}
