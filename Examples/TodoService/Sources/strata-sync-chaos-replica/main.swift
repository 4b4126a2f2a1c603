// Tests only: one replica process of the cross-process chaos test (SyncChaosTests). It writes at
// random through a replica of the hub at PORT over HTTP and syncs every few writes, until killed;
// with --quiesce it syncs until nothing is pending and prints where it stands.
// usage: strata-sync-chaos-replica FOLDER REPLICA-ID PORT TOKEN SEED [--quiesce]
// Printed (unbuffered, so the test reads what had happened when the process died):
//   acked ID     an inserted row the hub has acknowledged (a sync succeeded after the insert)
//   deleting ID  this replica is about to delete its own row ID (printed first: a kill may come
//                between the commit and any later line)
//   state V P    (--quiesce) the pulled hub version and the pending count
import Foundation
import Strata
import StrataSync

#if !canImport(Darwin)
let arguments = CommandLine.arguments
guard arguments.count >= 6, let port = Int(arguments[3]), let seed = UInt64(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: strata-sync-chaos-replica FOLDER REPLICA-ID PORT TOKEN SEED [--quiesce]\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let replicaID = arguments[2]
let token = arguments[4]
let quiesce = arguments.contains("--quiesce")

/// splitmix64: a seeded generator, so a failing run can be replayed.
struct Random: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

do {
    let database = try Database(path: folder.appendingPathComponent(replicaID + ".sqlite").path)
    // Top-level code picks the synchronous forms, which block this thread as the program wants.
    try database.writeWithoutTransaction {
        try $0.execute("CREATE TABLE IF NOT EXISTS item(id TEXT PRIMARY KEY, owner TEXT NOT NULL, n INTEGER NOT NULL, note TEXT)")
    }
    guard let url = URL(string: "http://127.0.0.1:\(port)") else { exit(64) }
    var transport = HTTPSyncTransport(url: url, token: token)
    transport.attempts = 2
    let replica = try SyncReplica(database: database, replicaID: replicaID, space: "chaos", tables: ["item"], transport: transport)
    if quiesce {
        var synced = false
        for _ in 0..<50 {
            do {
                try await replica.sync()
                if try await replica.pendingChangeCount == 0 { synced = true; break }
            } catch {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let status = try await replica.status
        say("state \(status.lastPulledVersion) \(status.pendingChangeCount)")
        exit(synced ? 0 : 1)
    }
    var random = Random(state: seed)
    var unacknowledged: [String] = []
    var own: [String] = try database.read { try $0.query("SELECT id FROM item WHERE owner = ?", replicaID) }
    var step = 0
    while true {
        step += 1
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            let id = "\(replicaID)-\(step)-\(UUID().uuidString.prefix(8))"
            try await replica.write { try $0.run("INSERT INTO item(id, owner, n, note) VALUES (?, ?, 0, ?)", id, replicaID, "made by \(replicaID) ' \u{301}") }
            unacknowledged.append(id)
            own.append(id)
        case 4..<7:
            // Rows every replica writes: conflicts on the same row and column.
            let shared = "shared-\(Int.random(in: 0..<6, using: &random))"
            let n = Int.random(in: 0..<1000, using: &random)
            try await replica.write {
                try $0.run(
                    "INSERT INTO item(id, owner, n, note) VALUES (?, 'shared', ?, ?) ON CONFLICT(id) DO UPDATE SET n = excluded.n, note = excluded.note",
                    shared, n, replicaID)
            }
        case 7:
            if let id = own.randomElement(using: &random) {
                say("deleting \(id)")
                try await replica.write { try $0.run("DELETE FROM item WHERE id = ?", id) }
                own.removeAll { $0 == id }
            }
        default:
            do {
                let sent = unacknowledged
                try await replica.sync()
                for id in sent { say("acked \(id)") }
                unacknowledged.removeFirst(sent.count)
            } catch {
                // The hub is down or was killed mid-request: the outbox keeps everything.
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0..<15, using: &random)))
    }
} catch {
    FileHandle.standardError.write(Data("strata-sync-chaos-replica \(replicaID): \(error)\n".utf8))
    exit(1)
}
#else
print("changesets are not available on this platform")
#endif
