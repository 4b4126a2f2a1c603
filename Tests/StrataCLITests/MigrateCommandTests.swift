#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

@Suite struct MigrateCommandTests {
    /// Three good migrations in `migrations/`.
    func writeMigrations(in sandbox: Sandbox) throws {
        try sandbox.write("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n", to: "migrations/001_create_cars.sql")
        try sandbox.write("CREATE INDEX cars_by_name ON cars(name);\nINSERT INTO cars(name) VALUES('Audi');\n", to: "migrations/002_index_cars.sql")
        try sandbox.write("ALTER TABLE cars ADD COLUMN price INTEGER;\n", to: "migrations/003_add_price.sql")
        try sandbox.write("Notes about the migrations are ignored.\n", to: "migrations/README.md")
    }

    func versions(in path: String) throws -> [String] {
        try Connection(storageLocation: .onDisk(path)).query("SELECT identifier FROM strata_migrations ORDER BY rowid")
    }

    @Test func createsTheDatabaseAndAppliesEachVersionInOrder() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                app.db is at version 0.
                Applying version 1: 001_create_cars.sql
                Applying version 2: 002_index_cars.sql
                Applying version 3: 003_add_price.sql
                Now at version 3.
                Pending: none.

                """)
        #expect(try versions(in: sandbox.path("app.db")) == ["001_create_cars", "002_index_cars", "003_add_price"])
        let again = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(again.stdout == "app.db is at version 3.\nNow at version 3.\nPending: none.\n")
    }

    @Test func toStopsAtAVersionAndListsWhatIsPending() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--to", "1")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("Now at version 1.\nPending: 002_index_cars.sql, 003_add_price.sql.\n"))
        #expect(try versions(in: sandbox.path("app.db")) == ["001_create_cars"])
        let past = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--to", "4")
        #expect(past.status != 0)
        #expect(past.errorLines == ["strata: --to 4 is past the newest migration file (version 3)"])
    }

    @Test func dryRunListsAndChangesNothing() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        let fresh = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--dry-run")
        #expect(fresh.status == 0)
        #expect(
            fresh.stdout.contains(
                "Would apply version 1: 001_create_cars.sql\nWould apply version 2: 002_index_cars.sql\nWould apply version 3: 003_add_price.sql\n"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("app.db")))

        _ = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--to", "1")
        let before = try sandbox.snapshot()
        let partial = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--dry-run")
        #expect(
            partial.stdout == """
                app.db is at version 1.
                Would apply version 2: 002_index_cars.sql
                Would apply version 3: 003_add_price.sql
                Pending: none.
                Dry run: nothing was changed.

                """)
        #expect(try sandbox.snapshot() == before)
    }

    @Test func aFailingThirdStepLeavesVersionTwo() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        try sandbox.write("ALTER TABLE cars ADD COLUMN price INTEGER;\nINSERT INTO no_such_table VALUES(1);\n", to: "migrations/003_add_price.sql")
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status != 0)
        #expect(result.stdout.contains("Applying version 3: 003_add_price.sql\n"))
        #expect(result.errorLines == ["strata: 003_add_price.sql failed: statement 2: no such table: no_such_table; the database stays at version 2"])
        let path = sandbox.path("app.db")
        #expect(try versions(in: path) == ["001_create_cars", "002_index_cars"])
        // Version 3's first statement was rolled back with it.
        let columns: [String] = try Connection(storageLocation: .onDisk(path)).query("SELECT name FROM pragma_table_info('cars')")
        #expect(columns == ["id", "name"])
    }

    @Test func aFailingFirstStepLeavesNoFileBehind() throws {
        let sandbox = try Sandbox()
        try sandbox.write("CREATE TABLE oops(;\n", to: "migrations/001_broken.sql")
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status != 0)
        #expect(result.errorLines == ["strata: 001_broken.sql failed: statement 1: near \";\": syntax error; the database stays at version 0"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("app.db")))
    }

    @Test(arguments: [
        (["001_a.sql", "003_c.sql"], "strata: gap in migrations: no version 2 between 001_a.sql and 003_c.sql"),
        (["002_b.sql"], "strata: gap in migrations: no version 1 before 002_b.sql"),
        (["001_a.sql", "002_b.sql", "002_c.sql"], "strata: duplicate migration version 2: 002_b.sql and 002_c.sql"),
        (["001_a.sql", "01_b.sql"], "strata: duplicate migration version 1: 001_a.sql and 01_b.sql"),
        (["001_a.sql", "add_b.sql"], "strata: migration file add_b.sql is not named NNN_name.sql"),
        (["000_a.sql"], "strata: migration file 000_a.sql has version 0; versions start at 1")
    ])
    func badDirectoriesAreRefusedBeforeAnythingRuns(files: [String], message: String) throws {
        let sandbox = try Sandbox()
        for (index, file) in files.enumerated() { try sandbox.write("CREATE TABLE t\(index)(x);\n", to: "migrations/\(file)") }
        let before = try sandbox.snapshot()
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status != 0)
        #expect(result.errorLines == [message])
        #expect(try sandbox.snapshot() == before)
    }

    /// Issue 67: a database an earlier strata (or SQift's `Migrator`) migrated keeps its history.
    @Test func aDatabaseMigratedThroughSchemaMigrationsKeepsItsHistory() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        let path = sandbox.path("app.db")
        let files = ["001_create_cars.sql", "002_index_cars.sql"]
        try Migrator(connection: Connection(storageLocation: .onDisk(path)), desiredSchemaVersion: 2).runMigrationsIfNecessary(
            migrationSQLForSchemaVersion: { version in
                (try? String(contentsOfFile: sandbox.path("migrations/" + files[Int(version) - 1]), encoding: .utf8)) ?? ""
            })
        let dryRun = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--dry-run")
        #expect(dryRun.stdout.hasPrefix("app.db is at version 2.\nWould apply version 3: 003_add_price.sql\n"), "\(dryRun.stdout)")
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                app.db is at version 2.
                Recorded 2 version(s) from schema_migrations in strata_migrations.
                Applying version 3: 003_add_price.sql
                Now at version 3.
                Pending: none.

                """)
        #expect(try versions(in: path) == ["001_create_cars", "002_index_cars", "003_add_price"])
        let audis: Int? = try Connection(storageLocation: .onDisk(path)).query("SELECT count(*) FROM cars WHERE name = 'Audi'")
        #expect(audis == 1, "version 2 ran once, not again")
        let old: [Int64] = try Connection(storageLocation: .onDisk(path)).query("SELECT version FROM schema_migrations ORDER BY version")
        #expect(old == [1, 2])
    }

    /// A file that commits the transaction itself is recorded before the migrator's own COMMIT
    /// fails: the run reports the version the database really reached, and keeps the new file.
    @Test func aFileThatCommitsItselfIsReportedAtTheVersionReached() throws {
        let sandbox = try Sandbox()
        try sandbox.write("CREATE TABLE a(x);\nCOMMIT;\n", to: "m/001_a.sql")
        try sandbox.write("CREATE TABLE b(x);\n", to: "m/002_b.sql")
        let result = try sandbox.strata("migrate", "new.db", "--dir", "m", "--to", "1")
        #expect(result.status != 0)
        #expect(result.errorLines == ["strata: 001_a.sql failed: cannot commit - no transaction is active; the database stays at version 1"])
        #expect(FileManager.default.fileExists(atPath: sandbox.path("new.db")))
        #expect(try versions(in: sandbox.path("new.db")) == ["001_a"])
        let next = try sandbox.strata("migrate", "new.db", "--dir", "m")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.hasPrefix("new.db is at version 1.\nApplying version 2: 002_b.sql\n"))
    }

    @Test func renamingAnAppliedFileIsRefused() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        _ = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--to", "2")
        try FileManager.default.moveItem(atPath: sandbox.path("migrations/002_index_cars.sql"), toPath: sandbox.path("migrations/002_cars_index.sql"))
        let before = try sandbox.snapshot()
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status != 0)
        #expect(
            result.errorLines == [
                "strata: app.db has 002_index_cars applied, but no file in migrations is named 002_index_cars.sql (an applied file keeps its name); nothing was changed"
            ])
        #expect(try sandbox.snapshot() == before)
    }

    @Test func aDatabaseNewerThanTheFilesIsRefused() throws {
        let sandbox = try Sandbox()
        try writeMigrations(in: sandbox)
        _ = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        try FileManager.default.removeItem(atPath: sandbox.path("migrations/003_add_price.sql"))
        let before = try sandbox.snapshot()
        let result = try sandbox.strata("migrate", "app.db", "--dir", "migrations")
        #expect(result.status != 0)
        #expect(result.errorLines == ["strata: app.db is at version 3, newer than the newest migration file (version 2); nothing was changed"])
        #expect(try sandbox.snapshot() == before)
        let dryRun = try sandbox.strata("migrate", "app.db", "--dir", "migrations", "--dry-run")
        #expect(dryRun.status != 0)
    }
}
#endif
