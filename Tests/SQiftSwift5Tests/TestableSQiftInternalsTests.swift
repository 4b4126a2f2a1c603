import Foundation
@testable import StrataSQift
import Testing

// SQift's own suite reaches a few internals with `@testable import SQift`; ported by changing
// the import to `@testable import StrataSQift`, it finds them under the same names.
@Suite struct TestableSQiftInternalsTests {
    @Test func thePoolsQueuesMoveBetweenAvailableAndBusy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqift-internals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pool.sqlite").path
        try Connection(storageLocation: .onDisk(path)).execute("CREATE TABLE t(x)")
        let pool = ConnectionPool(storageLocation: .onDisk(path))
        pool.availableConnections.removeAll()
        let queue = try pool.dequeueConnectionForUse()
        #expect(!pool.availableConnections.contains(queue))
        #expect(pool.busyConnections.contains(queue))
        pool.enqueueConnectionForReuse(queue)
        #expect(pool.availableConnections.contains(queue))
        #expect(!pool.busyConnections.contains(queue))
    }

    @Test func theMigratorMakesItsTableOnce() throws {
        let connection = try Connection()
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 1)
        #expect(!migrator.migrationTableExists)
        try migrator.createMigrationTable()
        try migrator.createMigrationTable()
        #expect(migrator.migrationTableExists)
        #expect(try connection.query("SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations'") as Int? == 1)
    }
}
