// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import StrataSQift
import InMemoryLogging
import Logging
import Strata
import StrataServer
import Testing

/// The shutdown's "database checkpointed" log line said 0 WAL frames after a TRUNCATE (SQLite
/// reports the emptied WAL); it reports the frames written back now.
@Suite struct ShutdownCheckpointReportTests {
    @Test func theShutdownLogsTheFramesItWroteBack() async throws {
        let test = try TestDatabase()
        defer { test.remove() }
        try await test.database.write { db in
            for index in 0..<100 { try db.run("INSERT INTO items(name) VALUES(?)", "item \(index)") }
        }
        #expect((test.walSize ?? 0) > 0)
        let logs = InMemoryLogHandler()
        let service = DatabaseService(test.database, logger: Logger(label: "report-test") { _ in logs })
        let running = Task { try await service.run() }
        running.cancel() // a shutdown at once: nothing runs, so nothing is interrupted
        try await running.value
        let metadata = try #require(logs.entries.first { $0.message == "database checkpointed" }?.metadata)
        let frames = Int(metadata["db.sqlite.wal_frames"]?.description ?? "")
        #expect((frames ?? 0) > 0, "\(metadata)")
        #expect(metadata["db.sqlite.checkpointed_frames"]?.description == metadata["db.sqlite.wal_frames"]?.description)
        #expect(test.walSize == 0)
    }
}

/// A database its owner already closed: the service's shutdown leaves it closed, refusing work
/// with `DatabaseError.closed`, and does not try to checkpoint a closed writer.
@Suite struct ShutdownOfAClosedDatabaseTests {
    @Test func theShutdownOfAClosedDatabaseKeepsItClosed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database(path: directory.appendingPathComponent("app.sqlite").path)
        try await database.write { try $0.execute("CREATE TABLE t(x)") }
        let logs = InMemoryLogHandler()
        let service = DatabaseService(database, logger: Logger(label: "closed-test") { _ in logs })
        try await database.close()
        let running = Task { try await service.run() }
        running.cancel()
        try await running.value
        #expect(!logs.entries.contains { $0.level == .warning }, "\(logs.entries.map(\.message))")
        await #expect(throws: DatabaseError.closed) { try await database.read { _ in 1 } }
    }
}
#endif
