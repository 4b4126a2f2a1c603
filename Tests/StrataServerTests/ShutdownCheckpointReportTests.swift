import Foundation
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
        running.cancel()   // a shutdown at once: nothing runs, so nothing is interrupted
        try await running.value
        let metadata = try #require(logs.entries.first { $0.message == "database checkpointed" }?.metadata)
        let frames = Int(metadata["db.sqlite.wal_frames"]?.description ?? "")
        #expect((frames ?? 0) > 0, "\(metadata)")
        #expect(metadata["db.sqlite.checkpointed_frames"]?.description == metadata["db.sqlite.wal_frames"]?.description)
        #expect(test.walSize == 0)
    }
}
