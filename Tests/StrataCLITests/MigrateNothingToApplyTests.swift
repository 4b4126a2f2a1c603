#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import Strata
import Testing

/// Issue 39, item 8: a migrate run with nothing to apply creates nothing.
@Suite struct MigrateNothingToApplyTests {
    @Test func migratingAMissingDatabaseToZeroCreatesNoFile() throws {
        let sandbox = try Sandbox()
        try sandbox.write("CREATE TABLE cars(id INTEGER PRIMARY KEY);\n", to: "m/001_create_cars.sql")
        let before = try sandbox.snapshot()
        let result = try sandbox.strata("migrate", "new.db", "--dir", "m", "--to", "0")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                new.db is at version 0 (no file yet).
                Nothing to apply; no file was created.
                Pending: 001_create_cars.sql.

                """)
        #expect(try sandbox.snapshot() == before)
        for suffix in ["", "-journal", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: sandbox.path("new.db" + suffix)))
        }
    }

    @Test func migratingAnExistingDatabaseToItsOwnVersionChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.write("CREATE TABLE cars(id INTEGER PRIMARY KEY);\n", to: "m/001_create_cars.sql")
        try sandbox.makeCarsDatabase("old.db")
        let before = try sandbox.snapshot()
        let result = try sandbox.strata("migrate", "old.db", "--dir", "m", "--to", "0")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "old.db is at version 0.\nNow at version 0.\nPending: 001_create_cars.sql.\n")
        #expect(try sandbox.snapshot() == before)
    }
}
#endif
