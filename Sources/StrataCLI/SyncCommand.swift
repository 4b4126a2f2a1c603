import ArgumentParser
import Foundation
import Strata
import StrataSync

/// `strata sync`: a StrataSync replica's state, read from its database file.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Inspect a StrataSync replica, write through it and sync it with a hub.",
        subcommands: [
            SyncStatusCommand.self, SyncWriteCommand.self, SyncNowCommand.self, SyncPendingCommand.self, SyncDiscardCommand.self,
            SyncSubscriptionsCommand.self, SyncSubscribeCommand.self, SyncUnsubscribeCommand.self
        ]
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
    @Option(
        name: .customLong("as-user"),
        help: "With --hub-folder: sync as this user, under the space's rules, as a token naming the user would (to try rules locally).")
    var user: String?
    @Option(
        name: .customLong("claim"), parsing: .singleValue,
        help: ArgumentHelp("With --as-user: a string claim, auth.<name> in rules (repeatable).", valueName: "name=value"))
    var claims: [String] = []
    @Option(
        name: .customLong("list-claim"), parsing: .singleValue,
        help: ArgumentHelp("With --as-user: one value of a list claim, IN auth.<name> in rules (repeatable).", valueName: "name=value"))
    var listClaims: [String] = []

    func validate() throws {
        guard (hub == nil) != (hubFolder == nil) else { throw ValidationError("give exactly one of --hub and --hub-folder") }
        if user != nil, hubFolder == nil { throw ValidationError("--as-user is for --hub-folder; over --hub the token names the user") }
        if user == nil, !(claims.isEmpty && listClaims.isEmpty) { throw ValidationError("--claim and --list-claim need --as-user") }
        _ = try identity()
        guard !tableNames.isEmpty else { throw ValidationError("--tables names no table") }
        if let hub, URL(string: hub)?.scheme == nil { throw ValidationError("--hub must be a URL such as http://127.0.0.1:8080") }
    }

    /// Opens the replica; its transport goes to --hub over HTTP or to --hub-folder in process.
    func open() throws -> SyncReplica {
        let transport: any SyncTransport
        if let hub, let url = URL(string: hub) {
            transport = HTTPSyncTransport(url: url, token: token)
        } else {
            let hub = try SyncHub(directory: hubFolder ?? ".")
            transport = try identity().map { InProcessSyncTransport(hub: hub, identity: $0) } ?? InProcessSyncTransport(hub: hub)
        }
        _ = try DatabaseFile.openExisting(database)
        return try SyncReplica(database: try Database(path: database), replicaID: replica, space: space, tables: tableNames, transport: transport)
    }

    /// Opens the replica, runs `work` on it to its end, then prints the replica's status. While
    /// it runs, each step of a first sync's progress is printed as it is noted.
    func runThenPrintStatus(_ work: @escaping @Sendable (SyncReplica) async throws -> Void) throws {
        let replica = try open()
        let tables = tableNames
        let (status, firstSyncRows) = try waitFor { () -> (SyncStatus, Int?) in
            let firstSync = try await replica.status.lastPulledVersion == 0
            let watcher = Task {
                var last: SyncProgress?
                for try await status in replica.statusUpdates() {
                    guard let progress = status.progress, progress != last, progress.totalRows != nil else { continue }
                    last = progress
                    print("progress:           " + describe(progress))
                }
            }
            defer { watcher.cancel() }
            try await work(replica)
            let status = try await replica.status
            guard firstSync, status.lastPulledVersion > 0 else { return (status, nil) }
            // The first sync finished: how many rows it brought.
            let rows = try await replica.database.read { connection in
                try tables.reduce(0) { $0 + (try connection.query("SELECT count(*) FROM " + quoteIdentifier($1)) ?? 0) }
            }
            return (status, rows)
        }
        printStatus(status)
        if let firstSyncRows { print("first sync:         \(firstSyncRows) row\(firstSyncRows == 1 ? "" : "s")") }
    }

    /// The identity `--as-user` and its claims name (nil: a trusted caller that sees every row).
    func identity() throws -> SyncIdentity? {
        guard let user else { return nil }
        var lists: [String: [String]] = [:]
        for (name, value) in try SubscriptionArguments.pairs(listClaims, option: "list-claim") { lists[name, default: []].append(value) }
        let strings = Dictionary(try SubscriptionArguments.pairs(claims, option: "claim"), uniquingKeysWith: { _, last in last })
        return SyncIdentity(user: user, claims: strings, listClaims: lists)
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

/// `3 of 7 rows (priority 2)`.
func describe(_ progress: SyncProgress) -> String {
    "\(progress.rows) of \(progress.totalRows.map(String.init) ?? "?") rows" + (progress.phase.map { " (priority \($0))" } ?? "")
}

func printStatus(_ status: SyncStatus) {
    print("pending changes:    \(status.pendingChangeCount)")
    // A first sync that stopped halfway: how far it came.
    if let progress = status.progress { print("first sync:         stopped at " + describe(progress)) }
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

/// `strata sync subscriptions DB ...`: what part of its view the replica asks for.
struct SyncSubscriptionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List a replica's subscriptions (none: it holds its whole view).")

    @OptionGroup var options: ReplicaOptions

    func run() throws {
        let replica = try options.open()
        let subscriptions = try waitFor { try await replica.subscriptions }
        if subscriptions.isEmpty { print("no subscriptions: the whole view") }
        for subscription in subscriptions { print(subscription.description) }
    }
}

/// The bucket and parameter values `subscribe` and `unsubscribe` take.
struct SubscriptionArguments: ParsableArguments {
    @Argument(help: "The bucket, as the space's rules name it.") var bucket: String
    @Option(name: .customLong("param"), parsing: .singleValue, help: ArgumentHelp("A parameter column's text value (repeatable).", valueName: "name=text"))
    var texts: [String] = []
    @Option(
        name: .customLong("integer"), parsing: .singleValue, help: ArgumentHelp("A parameter column's integer value (repeatable).", valueName: "name=n"))
    var integers: [String] = []

    /// Each `NAME=VALUE`, split at the first `=` scalar.
    static func pairs(_ values: [String], option: String) throws -> [(String, String)] {
        try values.map { text in
            guard let pair = splitNameValueArgument(text) else { throw ValidationError("--\(option) takes NAME=VALUE, not \(text.debugDescription)") }
            return pair
        }
    }

    func subscription(priority: Int = 0) throws -> SyncSubscription {
        var parameters: [String: SyncValue] = [:]
        for (name, value) in try Self.pairs(texts, option: "param") { parameters[name] = .text(value) }
        for (name, value) in try Self.pairs(integers, option: "integer") {
            guard let number = Int64(value) else { throw ValidationError("--integer \(name): \(value.debugDescription) is not an integer") }
            parameters[name] = .integer(number)
        }
        return SyncSubscription(bucket: bucket, parameters: parameters, priority: priority)
    }

    func validate() throws { _ = try subscription() }
}

/// `strata sync subscribe DB BUCKET [--param k=v]... --hub URL ...`: asks for part of the view.
struct SyncSubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe a replica to a bucket's instances with these parameter values; the next sync moves their rows in.",
        discussion: "Once a replica subscribes to a bucket it holds only the instances its subscriptions name; buckets no subscription names stay whole.")

    @OptionGroup var options: ReplicaOptions
    @OptionGroup var subscription: SubscriptionArguments
    @Option(help: "Above 0, these rows arrive first in a sync (higher first).") var priority = 0
    @Flag(help: "Only record the subscription; sync later with `strata sync now`.") var noSync = false

    func run() throws {
        let wanted = try subscription.subscription(priority: priority)
        let noSync = self.noSync
        try options.runThenPrintStatus { replica in
            try await replica.subscribe(wanted)
            if !noSync { try await replica.sync() }
        }
    }
}

/// `strata sync unsubscribe DB BUCKET [--param k=v]... | --all --hub URL ...`: drops a subscription.
struct SyncUnsubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe",
        abstract: "Drop a replica's subscription (or every one with --all); the next sync moves its rows out.")

    @OptionGroup var options: ReplicaOptions
    @Argument(help: "The bucket, as the space's rules name it.") var bucket: String?
    @Option(name: .customLong("param"), parsing: .singleValue, help: ArgumentHelp("A parameter column's text value (repeatable).", valueName: "name=text"))
    var texts: [String] = []
    @Option(
        name: .customLong("integer"), parsing: .singleValue, help: ArgumentHelp("A parameter column's integer value (repeatable).", valueName: "name=n"))
    var integers: [String] = []
    @Flag(help: "Drop every subscription: the replica holds its whole view again.") var all = false
    @Flag(help: "Only drop it; sync later with `strata sync now`.") var noSync = false

    func validate() throws {
        guard (bucket == nil) == all else { throw ValidationError("give a bucket or --all") }
    }

    func run() throws {
        var arguments = SubscriptionArguments()
        arguments.bucket = bucket ?? ""
        arguments.texts = texts
        arguments.integers = integers
        let dropping = all ? nil : try arguments.subscription()
        let noSync = self.noSync
        try options.runThenPrintStatus { replica in
            if let dropping {
                // Whatever its priority: the bucket and values name it.
                let matching = try await replica.subscriptions.filter { $0.bucket == dropping.bucket && $0.parameters == dropping.parameters }
                guard !matching.isEmpty else { throw CLIError("the replica has no subscription \(dropping) (strata sync subscriptions lists them)") }
                for subscription in matching { try await replica.unsubscribe(subscription) }
            } else {
                try await replica.setSubscriptions([])
            }
            if !noSync { try await replica.sync() }
        }
    }
}
