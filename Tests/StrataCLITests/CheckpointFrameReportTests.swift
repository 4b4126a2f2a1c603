import Foundation
import StrataSQift
import Strata
import Testing

/// `strata checkpoint` in its default TRUNCATE mode reports the WAL frames it wrote back (it said
/// "0 of 0 WAL frames written back" however much it wrote back, as SQLite reports the emptied WAL).
@Suite struct CheckpointFrameReportTests {
    @Test func aTruncateCheckpointReportsTheFramesItWroteBack() throws {
        let sandbox = try Sandbox()
        let (connection, lines) = try sandbox.checkpointRewrittenBigDatabase()
        defer { withExtendedLifetime(connection) {} }
        let prefix = "Checkpoint (truncate): ", suffix = " WAL frames written back; the WAL is truncated."
        let first = lines.first ?? ""
        #expect(first.hasPrefix(prefix) && first.hasSuffix(suffix), "\(first)")
        let counts = first.dropFirst(prefix.count).dropLast(suffix.count).components(separatedBy: " of ").compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] > 0 && counts[0] == counts[1], "\(first)")
        #expect(lines.last?.hasSuffix(", 0 bytes after.") == true)
    }
}

extension Sandbox {
    /// `strata checkpoint big.db`, in its default mode, on a 200-row big.db in WAL mode whose rows
    /// were all just rewritten: expects it to succeed with two lines and returns them, with the
    /// connection that rewrote the rows (still open, as it was during the checkpoint).
    func checkpointRewrittenBigDatabase() throws -> (connection: Connection, lines: [String]) {
        try makeBigDatabase("big.db", rows: 200)
        let connection = try Connection(storageLocation: .onDisk(path("big.db")))
        try connection.execute("UPDATE t SET v = randomblob(400)")
        let result = try strata("checkpoint", "big.db")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        return (connection, lines)
    }
}
