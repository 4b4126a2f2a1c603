import ArgumentParser
import Foundation
import Strata

/// `strata dump`: the database as SQL text, through `Connection.dump(to:tables:)`.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print a database as SQL text: schema, rows, then indexes, views and triggers.",
        discussion: """
            The text loads into an empty database (`sqlite3 new.db < dump.sql`, or \
            Connection.restore(fromDumpAt:)) and gives the same content. Objects are sorted by \
            name and rows by rowid or primary key, so the same database always prints the same \
            text. Rows are written as they are read: memory stays constant.
            """
    )

    @Argument(help: "Path to the database to dump.") var database: String
    @Option(
        help: ArgumentHelp(
            "Only these tables or views (comma-separated, or repeat the option), with their indexes and triggers.",
            valueName: "names"))
    var tables: [String] = []
    @Option(name: [.short, .long], help: ArgumentHelp("Write the dump to this file instead of standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        let names = tables.flatMap { $0.split(separator: ",").map(String.init) }
        do {
            if let output {
                try connection.dump(to: URL(fileURLWithPath: output), tables: names.isEmpty ? nil : names)
            } else {
                var stream = StandardOutputStream()
                try connection.dump(to: &stream, tables: names.isEmpty ? nil : names)
                stream.output.flush()
            }
        } catch let error as DumpError {
            throw CLIError(error.description)
        }
    }
}

/// Standard output as a `TextOutputStream`, buffered.
private struct StandardOutputStream: TextOutputStream {
    let output = StandardOutput()
    mutating func write(_ string: String) { output.write(string) }
}
