import Foundation
import StrataSQift
import Strata
import StrataSync
import XCTest

/// API.md section 7's Sync block as a Swift 5 client writes it.
final class SyncSwift5Tests: XCTestCase {
    func testTheDocumentedFlowCompilesAndSyncs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync5-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hubFolder = folder.appendingPathComponent("hub")
        let hub = try SyncHub(directory: hubFolder)
        try hub.createSpace("team") { db in try db.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)") }
        hub.setPolicy(.lastWriterWins, forTable: "todo")
        hub.setPolicy(.custom { (conflict: SyncConflict) -> ConflictResolution in conflict.kind == .data ? .replace : .omit }, forTable: "todo")
        let database = try Database(storageLocation: .onDisk(folder.appendingPathComponent("phone.sqlite").path))
        try database.executeWrite { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)") }
        let replica = try SyncReplica(
            database: database, replicaID: "phone-1", space: "team",
            tables: ["todo"], transport: InProcessSyncTransport(hub: hub))
        try await replica.write { db in try db.run("INSERT INTO todo(id, title) VALUES (?, ?)", UUID().uuidString, "milk") }
        try await replica.sync()
        let pending: Int = try await replica.pendingChangeCount
        let hubVersion: Int64 = try await replica.lastPulledVersion
        XCTAssertEqual(pending, 0)
        XCTAssertEqual(hubVersion, 1)
        let errors: [SyncError] = [.tableNeedsGlobalKey(table: "t"), .schemaMismatch(local: "a", remote: "b"), .unknownSpace("x"), .refused("no")]
        XCTAssertEqual(errors.count, 4)
        let network = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:8080")!, token: "secret")
        XCTAssertEqual(network.url.absoluteString, "http://127.0.0.1:8080")
    }
}
