// A `DatabaseMigrator` run on a `Database`'s writer (the migrator lives in Schema, below
// Concurrency, and knows only connections).
import StrataKernel
import StrataSchema
import Foundation

extension DatabaseMigrator {
    /// Runs the migrations not applied yet on the database's writer; returns their names.
    @discardableResult
    public func migrate(_ database: Database) async throws -> [String] {
        let migrator = self
        return try await database.writeWithoutTransaction { try migrator.migrate($0) }
    }
}
