// The strata command-line tool: each command is a thin layer over the library (the kernel's
// statement cursor for scripts, its introspection reader for `schema`).

import ArgumentParser
import Foundation
import Strata

/// The `strata` command: everyday work on SQLite files, done through Strata's own API.
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Strata, a Swift toolkit for SQLite: query, inspect, migrate and maintain database files.",
        version: StrataVersion.current,
        subcommands: commonSubcommands + changesetSubcommands
    )

    static let commonSubcommands: [ParsableCommand.Type] = [
        Tour.self, QueryCommand.self, SchemaCommand.self, MigrateCommand.self, BackupCommand.self,
        CheckCommand.self, CheckpointCommand.self, VacuumCommand.self, WatchCommand.self, DumpCommand.self
    ]

    static let changesetSubcommands: [ParsableCommand.Type] = [DiffCommand.self, ApplyCommand.self, SyncCommand.self]
}

/// Runs the command line; every failure becomes one line on standard error and a non-zero exit.
///
/// argument-parser's own `main()` prints usage after a parse error and the error's full
/// `description` otherwise; a tool used in scripts wants one line that names the problem.
@main
enum StrataMain {
    static func main() {
        do {
            var command = try StrataCommand.parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            // The command already reported what it found (`check` listing problems).
            Foundation.exit(exit.rawValue)
        } catch {
            let code = StrataCommand.exitCode(for: error)
            if code == .success {
                StrataCommand.exit(withError: error) // --help and friends print to stdout
            }
            printError(oneLineMessage(for: error))
            Foundation.exit(code.rawValue)
        }
    }

    /// The message for `error`, on one line.
    static func oneLineMessage(for error: Error) -> String {
        let message: String
        switch error {
        case let error as CLIError: message = error.message
        case let error as SQLiteError: message = error.message
        case let error as MigratorError: message = error.description
        case let error as ReplicationError: message = error.description
        default:
            let parsed = StrataCommand.message(for: error)
            message = parsed.isEmpty ? "\(error)" : parsed + usageHint
        }
        return message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Where to read more after a usage error.
    static var usageHint: String {
        let words = CommandLine.arguments.dropFirst().prefix { !$0.hasPrefix("-") }
        let subcommand = words.first.flatMap { name in
            StrataCommand.configuration.subcommands.contains { $0.configuration.commandName == name } ? name : nil
        }
        return " (see 'strata\(subcommand.map { " \($0)" } ?? "") --help')"
    }
}

/// Prints `message` to standard error, prefixed with the tool's name, after what standard
/// output holds (so a failure follows the progress it interrupts, even through a pipe).
func printError(_ message: String) {
    fflush(nil)
    FileHandle.standardError.write(Data("strata: \(message)\n".utf8))
}
