// Tests only: a replica process for StrataSync's crash test. It writes rows through a replica of
// the hub in FOLDER and syncs every few writes, printing each committed id, until it is killed.
// usage: strata-sync-writer FOLDER REPLICA-ID
import Foundation
import Strata
import StrataSync

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: strata-sync-writer FOLDER REPLICA-ID\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let replicaID = arguments[2]
do {
    let hub = try SyncHub(directory: folder.appendingPathComponent("hub"))
    let database = try Database(storageLocation: .onDisk(folder.appendingPathComponent(replicaID + ".sqlite").path))
    try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS item(id TEXT PRIMARY KEY, n INTEGER)") }
    let replica = try SyncReplica(database: database, replicaID: replicaID, space: "crash", tables: ["item"],
                                  transport: InProcessSyncTransport(hub: hub))
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
