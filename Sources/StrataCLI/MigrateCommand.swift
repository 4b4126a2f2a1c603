import ArgumentParser
import Foundation
import Strata

/// `strata migrate`: applies `NNN_name.sql` files through `Migrator`, one transaction each.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply NNN_name.sql migration files in order, each in its own transaction.",
        discussion: """
            Applied versions are recorded in schema_migrations (as SQift's Migrator does). The \
            database file is created when missing and a version is to be applied. A gap or a duplicate number in the files, or a \
            database newer than the files, is refused before anything runs; a failing file leaves \
            the database at the last version that succeeded.
            """
    )

    @Argument(help: "Path to the database file (created when missing and there is something to apply).") var database: String
    @Option(help: "The directory holding the NNN_name.sql files.") var dir: String
    @Option(help: ArgumentHelp("Migrate up to this version instead of the newest file.", valueName: "version")) var to: UInt64?
    @Flag(help: "List what would run and change nothing.") var dryRun = false

    func run() throws {
        let directory = try MigrationDirectory(path: dir)
        let target = to ?? directory.latestVersion
        guard target <= directory.latestVersion else {
            throw CLIError("--to \(target) is past the newest migration file (version \(directory.latestVersion))")
        }
        let existed = try DatabaseFile.checkNotDirectory(database)
        if dryRun {
            let current = existed ? Migrator(connection: try DatabaseFile.openExisting(database), desiredSchemaVersion: target).currentSchemaVersion : 0
            try refuseNewer(current: current, target: target, latest: directory.latestVersion)
            print("\(database) is at version \(current)\(existed ? "" : " (no file yet)").")
            if current == target { print("Nothing to apply.") }
            for version in (current + 1)..<(target + 1) {
                print("Would apply version \(version): \(name(of: version, in: directory))")
            }
            printPending(after: target, in: directory)
            print("Dry run: nothing was changed.")
            return
        }

        // A run with nothing to apply changes nothing, so it creates no file either.
        if !existed && target == 0 {
            print("\(database) is at version 0 (no file yet).")
            print("Nothing to apply; no file was created.")
            printPending(after: target, in: directory)
            return
        }

        do {
            let reached = try apply(directory, target: target)
            print("Now at version \(reached).")
            printPending(after: target, in: directory)
        } catch let failure as MigrationFailure {
            // The connection is closed by now; a file this run created and left empty goes away.
            if !existed, failure.reached == 0 { removeDatabaseFiles() }
            throw failure.error
        }
    }

    /// A failed run, and the version the database stays at.
    private struct MigrationFailure: Error {
        let error: Error
        let reached: UInt64
    }

    /// Runs the migrations up to `target`; returns the version reached.
    private func apply(_ directory: MigrationDirectory, target: UInt64) throws -> UInt64 {
        let connection: Connection
        do {
            connection = try DatabaseFile.openOrCreate(database)
        } catch {
            throw MigrationFailure(error: error, reached: 0)
        }
        let migrator = Migrator(connection: connection, desiredSchemaVersion: target)
        let current = migrator.currentSchemaVersion
        do {
            try refuseNewer(current: current, target: target, latest: directory.latestVersion)
        } catch {
            throw MigrationFailure(error: error, reached: current)
        }
        print("\(database) is at version \(current).")
        var running: UInt64 = 0
        do {
            try migrator.runMigrationsIfNecessary(
                migrationSQLForSchemaVersion: { directory.file(for: $0)?.sql ?? "" },
                willMigrateToSchemaVersion: { version in
                    running = version
                    print("Applying version \(version): \(name(of: version, in: directory))")
                }
            )
        } catch {
            let reached = migrator.currentSchemaVersion
            let reason = (error as? SQLiteError)?.message ?? StrataMain.oneLineMessage(for: error)
            throw MigrationFailure(
                error: CLIError("\(name(of: running, in: directory)) failed: \(reason); the database stays at version \(reached)"),
                reached: reached
            )
        }
        return migrator.currentSchemaVersion
    }

    /// Refuses a database past the files, or past `--to` (there is no migrating down).
    private func refuseNewer(current: UInt64, target: UInt64, latest: UInt64) throws {
        if current > latest {
            throw CLIError("\(database) is at version \(current), newer than the newest migration file (version \(latest)); nothing was changed")
        }
        if current > target {
            throw CLIError("\(database) is at version \(current), past --to \(target); migrate does not go down")
        }
    }

    private func name(of version: UInt64, in directory: MigrationDirectory) -> String {
        directory.file(for: version)?.name ?? "version \(version)"
    }

    private func printPending(after version: UInt64, in directory: MigrationDirectory) {
        let pending = directory.files.filter { $0.version > version }.map(\.name)
        print(pending.isEmpty ? "Pending: none." : "Pending: \(pending.joined(separator: ", ")).")
    }

    /// Removes a database file this run created when not even version 1 could be applied.
    private func removeDatabaseFiles() {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: database + suffix)
        }
    }
}
