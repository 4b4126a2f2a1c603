import ArgumentParser
import Foundation
import Strata

/// `strata migrate`: applies `NNN_name.sql` files through `DatabaseMigrator`, one transaction each.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply NNN_name.sql migration files in order, each in its own transaction.",
        discussion: """
            Applied files are recorded in strata_migrations by name without .sql (as \
            DatabaseMigrator does), so a file keeps its name once applied. A database migrated by \
            SQift's Migrator or an earlier strata (versions in schema_migrations) keeps that history: \
            version N there counts as the Nth file. The database file is created when missing and \
            a version is to be applied. A gap or a duplicate number in the files, or a database \
            newer than the files, is refused before anything runs; a failing file leaves the \
            database at the last version that succeeded.
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
        let migrator = directory.migrator
        let existed = try DatabaseFile.checkNotDirectory(database)
        if dryRun {
            let current = existed ? try version(of: try DatabaseFile.openExisting(database), migrator, directory) : 0
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
            let reached = try apply(directory, migrator: migrator, target: target)
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

    /// Runs the migrations up to `target`, one transaction per file; returns the version reached.
    private func apply(_ directory: MigrationDirectory, migrator: DatabaseMigrator, target: UInt64) throws -> UInt64 {
        let connection: Connection
        let current: UInt64
        do {
            connection = try DatabaseFile.openOrCreate(database)
            current = try version(of: connection, migrator, directory)
            try refuseNewer(current: current, target: target, latest: directory.latestVersion)
        } catch {
            throw MigrationFailure(error: error, reached: 0)
        }
        print("\(database) is at version \(current).")
        guard current < target else { return current }
        do {
            let adopted = try migrator.adoptSchemaMigrationsHistory(connection)
            if !adopted.isEmpty {
                print("Recorded \(adopted.count) version(s) from schema_migrations in strata_migrations.")
            }
        } catch {
            throw MigrationFailure(error: error, reached: current)
        }
        for version in (current + 1)...target {
            let file = name(of: version, in: directory)
            print("Applying version \(version): \(file)")
            let identifier = MigrationDirectory.identifier(ofFileNamed: file)
            do {
                try migrator.migrate(connection, upTo: identifier)
            } catch {
                var reason = (error as? SQLiteError)?.message ?? StrataMain.oneLineMessage(for: error)
                // The file is named already: of the migrator's `migration "…", ` only the
                // statement is kept (`statement 2: no such table: t`).
                let named = "migration \(identifier.debugDescription)"
                if reason.hasPrefix(named + ", ") || reason.hasPrefix(named + ": ") { reason.removeFirst(named.count + 2) }
                // Read, not assumed: a file that ends the transaction itself (a COMMIT in its SQL)
                // is recorded before the migrator's own COMMIT fails.
                let reached = (try? self.version(of: connection, migrator, directory)) ?? version - 1
                throw MigrationFailure(
                    error: CLIError("\(file) failed: \(reason); the database stays at version \(reached)"),
                    reached: reached
                )
            }
        }
        return target
    }

    /// The version `connection`'s database is at: how many files, from the first, are recorded as
    /// applied in `strata_migrations` or (SQift's store) `schema_migrations`.
    /// - Throws: `CLIError` for a recorded name no file has, or a file applied before an earlier one.
    private func version(of connection: Connection, _ migrator: DatabaseMigrator, _ directory: MigrationDirectory) throws -> UInt64 {
        let sqiftVersion = Migrator(connection: connection, desiredSchemaVersion: 0).currentSchemaVersion
        if sqiftVersion > directory.latestVersion {
            try refuseNewer(current: sqiftVersion, target: directory.latestVersion, latest: directory.latestVersion)
        }
        let recorded = try migrator.appliedIdentifiers(connection)
        let applied = Set(recorded).union(try migrator.schemaMigrationsHistory(connection))
        let known = Set(migrator.migrationIdentifiers)
        let unknown = recorded.filter { !known.contains($0) }
        if !unknown.isEmpty {
            let newest = unknown.compactMap { MigrationDirectory.version(ofFileNamed: $0 + ".sql") }.max() ?? 0
            if newest > directory.latestVersion {
                try refuseNewer(current: newest, target: directory.latestVersion, latest: directory.latestVersion)
            }
            throw CLIError(
                "\(database) has \(unknown[0]) applied, but no file in \(dir) is named \(unknown[0]).sql (an applied file keeps its name); nothing was changed"
            )
        }
        let identifiers = migrator.migrationIdentifiers
        var current = 0
        while current < identifiers.count, applied.contains(identifiers[current]) { current += 1 }
        if let later = identifiers.dropFirst(current).first(where: { applied.contains($0) }) {
            throw CLIError(
                "\(database) has \(later) applied but not \(identifiers[current]), which comes before it; nothing was changed")
        }
        return UInt64(current)
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
