import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema

// Migrator forms as SQift code writes them, in Swift 5 mode.
@Suite struct SQiftMigratorBehaviourTests {
    @Test func migratorForms() throws {
        let db = try Connection()
        let migrator = Migrator(connection: db, desiredSchemaVersion: 2)
        #expect(migrator.migrationRequired)
        let v = try migrator.runMigrationsIfNecessary(
            migrateDatabaseToSchemaVersion: { version, connection in
                try connection.execute("CREATE TABLE t\(version)(a)")
            },
            willMigrateToSchemaVersion: { _ in },
            didMigrateToSchemaVersion: { _ in }
        )
        #expect(v == 2)
        #expect(migrator.currentSchemaVersion == 2)
        #expect(migrator.migrationTableExists)
        try migrator.createMigrationTable()
    }
}
