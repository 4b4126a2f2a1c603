import ArgumentParser
import Foundation
import Strata

/// `strata checkpoint`: copies a WAL database's log back into the database file.
struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Checkpoint a WAL database (write the log back into the database file)."
    )

    /// The checkpoint modes of `sqlite3_wal_checkpoint_v2`.
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case passive, full, restart, truncate

        var checkpointMode: Connection.CheckpointMode {
            switch self {
            case .passive: return .passive
            case .full: return .full
            case .restart: return .restart
            case .truncate: return .truncate
            }
        }
    }

    @Argument(help: "Path to an existing database file.") var database: String
    @Option(help: "passive, full, restart or truncate (as Strata's checkpoint(mode:) defaults).") var mode: Mode = .truncate
    @Flag(help: "Run a restart or truncate checkpoint even while Litestream replicates the database.") var force = false

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        let walBefore = DatabaseFile.fileSize(database + "-wal")
        // Counted, so a TRUNCATE reports the frames it wrote back rather than the emptied WAL's
        // 0 of 0 (the guards refuse an unforced truncate under a replicator before anything runs).
        let result = try connection.checkpointCountingFrames(mode: mode.checkpointMode, force: force)
        guard result.logFrames >= 0 else {
            let journalMode: String = try connection.query("PRAGMA journal_mode") ?? "unknown"
            print("\(database) is not in WAL mode (journal mode \(journalMode)); there is nothing to checkpoint.")
            return
        }
        if mode == .truncate {
            // The truncate succeeded, so every frame the WAL held is in the database file.
            print("Checkpoint (truncate): \(result.logFrames) of \(result.logFrames) WAL frames written back; the WAL is truncated.")
        } else {
            print("Checkpoint (\(mode.rawValue)): \(result.checkpointedFrames) of \(result.logFrames) WAL frames written back.")
        }
        let walAfter = DatabaseFile.fileSize(database + "-wal")
        print("WAL size: \(CheckCommand.bytes(walBefore ?? 0)) before, \(CheckCommand.bytes(walAfter ?? 0)) after.")
    }
}
