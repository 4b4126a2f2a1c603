import ArgumentParser
import Foundation
import Strata
#if !canImport(Darwin)
import StrataSync

/// `strata sync`: a StrataSync replica's state, read from its database file.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Inspect a StrataSync replica.",
        subcommands: [SyncStatusCommand.self]
    )
}

/// `strata sync status DB`: the outbox, the pulled version and the last error.
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a replica's pending changes, pulled hub version and last sync error."
    )

    @Argument(help: "Path to a replica's database file.") var database: String

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        guard try connection.schemaReader.table(named: "_strata_sync_outbox") != nil else {
            throw CLIError("\(database) is not a StrataSync replica (it has no outbox)")
        }
        let status = try SyncStatus.read(connection)
        print("pending changes:    \(status.pendingChangeCount)")
        print("pulled version:     \(status.lastPulledVersion)")
        print("last error:         \(status.lastError.map(ValueText.singleLine) ?? "none")")
    }
}
#endif
