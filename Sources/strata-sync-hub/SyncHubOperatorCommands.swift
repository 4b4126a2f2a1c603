// strata-sync-hub's operator tools beside serving: `migrate` (one additive step on a deployed
// space), `spaces` (what a store holds), `rules` and `token` (SyncHubRulesCommands.swift). Dispatched on the first argument, so that
// `strata-sync-hub FOLDER ...` and its --help stay what they were.
#if Hub
import ArgumentParser
import Foundation
import StrataSync
import StrataSyncPostgres

@main
enum SyncHubMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "migrate": await SyncHubMigrateCommand.main(Array(arguments.dropFirst()))
        case "spaces": await SyncHubSpacesCommand.main(Array(arguments.dropFirst()))
        case "rules": await SyncHubRulesCommand.main(Array(arguments.dropFirst()))
        case "token": await SyncHubTokenCommand.main(Array(arguments.dropFirst()))
        default: await SyncHubCommand.main(arguments)
        }
    }
}

/// Where an operator command finds the spaces: an existing folder, or PostgreSQL.
struct SyncHubStoreOptions: ParsableArguments {
    @Argument(help: "The hub's folder of spaces; not with --postgres.")
    var folder: String?

    @Option(help: ArgumentHelp("The spaces are in PostgreSQL at this URL instead of a folder.", valueName: "url"))
    var postgres: String?

    func validate() throws {
        if (folder == nil) == (postgres == nil) {
            throw ValidationError("give the hub's folder of spaces, or --postgres URL (one of them)")
        }
    }

    /// The hub over the store. A folder must exist: a command that would make an empty one
    /// has been given the wrong path.
    func hub() throws -> SyncHub {
        if let postgres { return SyncHub(store: try .postgres(url: postgres)) }
        let folder = folder ?? "."
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no folder of spaces at \(folder)")
        }
        return try SyncHub(directory: URL(fileURLWithPath: folder))
    }
}

struct SyncHubMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync-hub migrate",
        abstract: "Move a deployed space to its next schema version with one additive step.",
        discussion: """
            The step (SQL in FILE) may add tables, add columns with a default or NULL, and add indexes; \
            it is refused, with the space as it was, when it drops, renames or changes anything, or adds \
            a key column (the checks of SyncHub.migrateSpace). Replicas on the earlier version go on \
            syncing the columns they know. Hub processes serving the space may keep running: they \
            read the new version at their next request. --dry-run runs the same checks and prints \
            the plan (and, on PostgreSQL, the statements it would run); nothing changes.

            Example:
              strata-sync-hub migrate hub --space team --step add-note.sql --dry-run
            """
    )

    @OptionGroup var store: SyncHubStoreOptions

    @Option(help: ArgumentHelp("The space to migrate.", valueName: "space"))
    var space: String

    @Option(help: ArgumentHelp("The SQL file of the step.", valueName: "file"))
    var step: String

    @Flag(help: "Check the step and print the plan; change nothing.")
    var dryRun = false

    func run() async throws {
        let sql: String
        do {
            sql = try String(contentsOfFile: step, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read the step \(step): \(error.localizedDescription)")
        }
        let hub = try store.hub()
        let current = try hub.schemaVersion(ofSpace: space)
        let plan = try hub.migrateSpace(space, to: current + 1, dryRun: dryRun) { try $0.execute(sql) }
        let verb = dryRun ? "would move" : "moved"
        print("space \(plan.space): \(verb) from schema version \(plan.fromVersion) to \(plan.toVersion)\(dryRun ? " (dry run: nothing changed)" : "")")
        if plan.additions.isEmpty { print("  (the step adds nothing to the synced tables)") }
        for change in plan.additions { print("  " + change) }
        if !plan.storeStatements.isEmpty {
            print(dryRun ? "PostgreSQL statements it would run:" : "PostgreSQL statements run:")
            for statement in plan.storeStatements { print("  " + statement + ";") }
        }
    }
}

struct SyncHubSpacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync-hub spaces",
        abstract: "List the spaces of a hub's store: schema version, version, log length, replicas and rules.",
        discussion: """
            VERSION is the newest version the hub gave; LOG the entries its log holds now (fewer \
            once trimmed); REPLICAS the replicas (each incarnation) whose writes the hub applied; \
            RULES the version of the space's sync rules, or none (every replica syncs it all).
            """
    )

    @OptionGroup var store: SyncHubStoreOptions

    func run() async throws {
        let summaries = try store.hub().spaceSummaries()
        var rows = [["SPACE", "SCHEMA", "VERSION", "LOG", "REPLICAS", "RULES"]]
        for summary in summaries {
            rows.append([
                summary.name, String(summary.schemaVersion), String(summary.version), String(summary.logEntries), String(summary.replicas),
                summary.rulesVersion.map { String($0) } ?? "none"
            ])
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == 0
                    ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }
            print(cells.joined(separator: "  "))
        }
        if summaries.isEmpty { print("(no spaces)") }
    }
}
#endif
