// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The README's StrataSync example, word for word between the markers; it runs last in
// `READMEExamples.everyExampleRunsAsPrintedInOrder`, in that test's folder.
import Foundation
import Strata
import StrataSync

extension READMEExamples {
    func syncExample24() async throws {
        // README:begin 14
        let hub = try SyncHub(directory: URL(fileURLWithPath: "hub"))
        try hub.createSpace("team") { db in try db.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)") }
        hub.setPolicy(.lastWriterWins, forTable: "todo")      // or .hubWins, or .custom { conflict in ... }
        let database = try Database(path: "phone.sqlite")
        try await database.write { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)") }
        let replica = try SyncReplica(database: database, replicaID: "phone-1", space: "team",
                                      tables: ["todo"], transport: InProcessSyncTransport(hub: hub))
        try await replica.write { db in try db.run("INSERT INTO todo(id, title) VALUES (?, ?)", UUID().uuidString, "milk") }
        try await replica.sync()                               // push the outbox, then pull until caught up
        print(try await replica.pendingChangeCount, try await replica.lastPulledVersion)   // 0 1
        // README:end
    }
}
