import ArgumentParser
import Foundation
import Strata
import StrataSync

/// `strata sync`: a StrataSync replica's state, read from its database file.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Inspect a StrataSync replica, write through it and sync it with a hub.",
        subcommands: [SyncStatusCommand.self, SyncWriteCommand.self, SyncNowCommand.self, SyncPendingCommand.self, SyncDiscardCommand.self]
    )
}

/// Where a replica's hub is and what it syncs: the options `strata sync write` and `strata sync
/// now` share.
struct ReplicaOptions: ParsableArguments {
    @Argument(help: "Path to the replica's database file (its synced tables must exist).") var database: String
    @Option(help: "The hub's URL (the strata-sync-hub service).") var hub: String?
    @Option(help: "A folder of hub spaces used directly, in this process, instead of --hub.") var hubFolder: String?
    @Option(help: "The bearer token for --hub.") var token: String?
    @Option(help: "The hub's space.") var space: String
    @Option(help: "This replica's name at the hub (unique per device and database).") var replica: String
    @Option(help: "The synced tables, comma-separated.") var tables: String

    func validate() throws {
        guard (hub == nil) != (hubFolder == nil) else { throw ValidationError("give exactly one of --hub and --hub-folder") }
        guard !tableNames.isEmpty else { throw ValidationError("--tables names no table") }
        if let hub, URL(string: hub)?.scheme == nil { throw ValidationError("--hub must be a URL such as http://127.0.0.1:8080") }
    }

    /// Opens the replica; its transport goes to --hub over HTTP or to --hub-folder in process.
    func open() throws -> SyncReplica {
        let transport: any SyncTransport
        if let hub, let url = URL(string: hub) {
            transport = HTTPSyncTransport(url: url, token: token)
        } else {
            transport = InProcessSyncTransport(hub: try SyncHub(directory: hubFolder ?? "."))
        }
        _ = try DatabaseFile.openExisting(database)
        return try SyncReplica(database: try Database(path: database), replicaID: replica, space: space, tables: tableNames, transport: transport)
    }

    /// Opens the replica, runs `work` on it to its end, then prints the replica's status.
    func runThenPrintStatus(_ work: @escaping @Sendable (SyncReplica) async throws -> Void) throws {
        let replica = try open()
        printStatus(
            try waitFor {
                try await work(replica)
                return try await replica.status
            })
    }

    var tableNames: [String] {
        tables.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// Runs async work to its end from the command's synchronous `run()`, on the main thread, which
/// is not one of the cooperative pool's threads the work needs.
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await work()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    guard let outcome = result.current else { throw CLIError("the sync did not finish") }
    return try outcome.get()
}

func printStatus(_ status: SyncStatus) {
    print("pending changes:    \(status.pendingChangeCount)")
    if status.refusedChangeCount > 0 { print("refused changes:    \(status.refusedChangeCount) (strata sync pending lists them)") }
    print("pulled version:     \(status.lastPulledVersion)")
    print("last error:         \(status.lastError.map(ValueText.singleLine) ?? "none")")
}

/// `strata sync write DB SQL --hub URL ...`: runs SQL through the replica, so its changes are
/// captured, then syncs.
struct SyncWriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Run SQL through a replica (its changes captured in the outbox in the same transaction), then sync with the hub.",
        discussion: "Writes made with `strata query` are not captured: write synced tables through this command or the app's replica."
    )

    @OptionGroup var options: ReplicaOptions
    @Argument(help: "The SQL to run (one transaction; several statements allowed).") var sql: String
    @Flag(help: "Only capture the write; sync later with `strata sync now`.") var noSync = false

    func run() throws {
        let sql = self.sql
        let noSync = self.noSync
        try options.runThenPrintStatus { replica in
            try await replica.write { connection in
                // Statement by statement: a COMMIT or ROLLBACK in the SQL would end the replica's
                // transaction, committing rows the outbox never captures. Such statements (read-only
                // and without result columns: transaction control, settings) are refused before
                // they run; the transaction is then rolled back whole.
                let cursor = connection.statements(in: sql)
                while let statement = try cursor.next() {
                    guard !(statement.isReadOnly && statement.columnCount == 0) else {
                        throw CLIError(
                            "strata sync write runs statements that read or change data, not \(ValueText.singleLine(statement.sql)): nothing was written")
                    }
                    try statement.run()
                }
            }
            if !noSync { try await replica.sync() }
        }
    }
}

/// `strata sync now DB --hub URL ...`: pushes the outbox and pulls until caught up.
struct SyncNowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Push a replica's outbox to the hub and pull until caught up."
    )

    @OptionGroup var options: ReplicaOptions

    func run() throws {
        try options.runThenPrintStatus { try await $0.sync() }
    }
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
        printStatus(try SyncStatus.read(connection))
    }
}

/// `strata sync pending DB ...`: each write waiting for the hub, and the refused ones with why.
struct SyncPendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "List a replica's pending writes: each sequence, its tables, and the hub's refusal where it refused one.",
        discussion: "Refused writes are held, not sent again: drop one with `strata sync discard SEQUENCE`, or every one with `--refused`."
    )

    @OptionGroup var options: ReplicaOptions

    func run() throws {
        let replica = try options.open()
        let changes = try waitFor { try await replica.pendingChanges }
        if changes.isEmpty { print("nothing pending") }
        for change in changes {
            var line = "\(change.sequence)\t\(change.tables.joined(separator: ","))"
            if let refusal = change.refusal { line += "\trefused (\(refusal.reason.rawValue)): " + ValueText.singleLine(refusal.description) }
            print(line)
        }
    }
}

/// `strata sync discard DB SEQUENCE|--refused ...`: undoes pending writes and drops them.
struct SyncDiscardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract: "Undo a pending write (by its sequence, from `strata sync pending`) or every refused one, and drop it from the outbox."
    )

    @OptionGroup var options: ReplicaOptions
    @Argument(help: "The sequence of the write to discard.") var sequence: Int64?
    @Flag(help: "Discard every write the hub refused.") var refused = false

    func validate() throws {
        guard (sequence == nil) == refused else { throw ValidationError("give exactly one of a SEQUENCE and --refused") }
    }

    func run() throws {
        let sequence = self.sequence
        let replica = try options.open()
        let discarded = try waitFor { () -> Int in
            var count = 0
            for change in try await replica.pendingChanges where sequence.map({ $0 == change.sequence }) ?? (change.refusal != nil) {
                if try await replica.discard(change) { count += 1 }
            }
            return count
        }
        if let sequence, discarded == 0 { throw CLIError("no pending write has sequence \(sequence) (strata sync pending lists them)") }
        print("discarded:          \(discarded)")
        printStatus(try waitFor { try await replica.status })
    }
}
