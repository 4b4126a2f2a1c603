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
        // A TRUNCATE checkpoint empties the WAL before SQLite reports on it, so it always says
        // "0 of 0"; a PASSIVE one first counts the frames (and copies those it can, as the
        // truncate would), once the truncate is known to be allowed.
        if !force { try connection.refuseUnsafeCheckpoint(mode: mode.checkpointMode) }
        let counted = mode == .truncate ? try connection.checkpoint(mode: .passive) : nil
        var result = try connection.checkpoint(mode: mode.checkpointMode, force: force)
        if let counted, counted.logFrames < 0 { result = counted }
        guard result.logFrames >= 0 else {
            let journalMode: String = try connection.query("PRAGMA journal_mode") ?? "unknown"
            print("\(database) is not in WAL mode (journal mode \(journalMode)); there is nothing to checkpoint.")
            return
        }
        if let counted, mode == .truncate {
            // The truncate succeeded, so every frame the WAL held is in the database file.
            print("Checkpoint (truncate): \(counted.logFrames) of \(counted.logFrames) WAL frames written back; the WAL is truncated.")
        } else {
            print("Checkpoint (\(mode.rawValue)): \(result.checkpointedFrames) of \(result.logFrames) WAL frames written back.")
        }
        let walAfter = DatabaseFile.fileSize(database + "-wal")
        print("WAL size: \(CheckCommand.bytes(walBefore ?? 0)) before, \(CheckCommand.bytes(walAfter ?? 0)) after.")
    }
}
