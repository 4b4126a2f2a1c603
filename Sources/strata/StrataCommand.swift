import ArgumentParser
import Foundation
import Strata

@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Strata, a Swift toolkit for SQLite.",
        subcommands: [Tour.self, Query.self]
    )
}

/// Runs one SQL query against a database file and prints the rows.
struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run SQL against a database file and print the rows.")

    @Argument(help: "Path to the database file.") var path: String
    @Argument(help: "The SQL to run.") var sql: String

    func run() throws {
        let connection = try Connection(storageLocation: .onDisk(path), readOnly: true)
        let rows: [String] = try connection.query(sql) { $0.description }
        rows.forEach { print($0) }
    }
}
