#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// `strata checkpoint` beside Litestream: no TRUNCATE or RESTART unless forced.
@Suite struct ReplicationCommandTests {
    @Test func checkpointRefusesToResetTheWALUnderLitestream() throws {
        let sandbox = try Sandbox()
        let path = try sandbox.makeBigDatabase("live.db", rows: 20)
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.execute("CREATE TABLE _litestream_lock (id INTEGER); CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)")
        let refused = try sandbox.strata("checkpoint", "live.db")
        #expect(refused.status == 1)
        #expect(refused.errorLines.count == 1 && refused.errorLines[0].contains("would reset the WAL while Litestream replicates it"))
        let passive = try sandbox.strata("checkpoint", "live.db", "--mode", "passive")
        #expect(passive.status == 0, "\(passive.stderr)")
        let forced = try sandbox.strata("checkpoint", "live.db", "--mode", "truncate", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        // And `schema` does not list the replicator's tables.
        let schema = try sandbox.strata("schema", "live.db")
        #expect(!schema.stdout.contains("_litestream"))
    }
}
#endif
