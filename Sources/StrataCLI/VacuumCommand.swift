import ArgumentParser
import Foundation
import Strata

/// `strata vacuum`: rebuilds a database compactly, in place or into a new file.
struct VacuumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum",
        abstract: "Rebuild a database to reclaim free pages, in place or into a new file (--into)."
    )

    @Argument(help: "Path to an existing database file.") var database: String
    @Option(help: ArgumentHelp("Write the compacted copy to this new file instead of rebuilding in place.", valueName: "path")) var into: String?

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        let before = try size(of: connection)
        if let into {
            if try DatabaseFile.checkNotDirectory(into) {
                throw CLIError("\(into) already exists; VACUUM INTO writes a new file")
            }
            // A VACUUM INTO that fails leaves a partial file (which a rerun would refuse as
            // existing): remove what it created. SQLite has closed the file once the statement ends.
            let written = try NewDatabaseFiles(at: into).removingCreated {
                // The target is an expression, so the path is bound, not spliced into the SQL.
                try connection.run("VACUUM INTO ?", into)
                return try size(of: DatabaseFile.openExisting(into))
            }
            print("Wrote \(into): \(CheckCommand.bytes(written)); \(database) is \(CheckCommand.bytes(before)).")
        } else {
            try connection.execute("VACUUM")
            print("Vacuumed \(database): \(CheckCommand.bytes(before)) -> \(CheckCommand.bytes(try size(of: connection))).")
        }
    }

    /// The database's size by its pages (the file may also have a WAL beside it).
    private func size(of connection: Connection) throws -> Int64 {
        let pageCount: Int64 = try connection.query("PRAGMA page_count") ?? 0
        let pageSize: Int64 = try connection.query("PRAGMA page_size") ?? 0
        return pageCount * pageSize
    }
}
