// What a DatabaseMigrator run saw its migrations do that a later step's failure may come from:
// tables made from a declaration as it is *now* (a record's `createTable`), which on a fresh
// install already hold what later migrations add ("duplicate column name").
import StrataKernel
import Foundation

/// Per connection: the migration running now, and the tables the migrations of this run made from
/// a live declaration. The layer that makes such tables (StrataRecords) notes them; the migrator
/// explains a later failure with them, naming the declaration and the frozen form to use.
package final class MigrationTrail {
    /// One table made from a live declaration.
    struct LiveDefinition {
        let migration: String
        let table: String
        let maker: String
        let frozenForm: String
    }

    package static let slot = ConnectionSlot { MigrationTrail() }

    /// The migration running now; nil outside a migrator's run.
    private(set) var running: String?
    private var definitions: [LiveDefinition] = []

    /// Notes, when a migration is running, that `maker` (`Bookmark.createTable`) created `table`
    /// from the declaration as it is now; `frozenForm(migration)` says how to freeze it instead.
    package func noteLiveDefinition(table: String, maker: String, frozenForm: (String) -> String) {
        guard let running else { return }
        definitions.append(LiveDefinition(migration: running, table: table, maker: maker, frozenForm: frozenForm(running)))
    }

    /// Starts a migrator's run: nothing noted yet.
    func begin() { definitions = [] }

    /// Runs `body` as the migration `identifier`; an `SQLiteError` that a live definition of an
    /// earlier migration of this run may explain comes back with the explanation appended.
    func run(_ identifier: String, _ body: () throws -> Void) throws {
        // Restored after: a migration may run another migrator on the same connection.
        let enclosing = running
        running = identifier
        defer { running = enclosing }
        do {
            try body()
        } catch let error as SQLiteError {
            throw explained(error, in: identifier)
        }
    }

    private func explained(_ error: SQLiteError, in migration: String) -> SQLiteError {
        let message = error.message.lowercased()
        guard message.contains("duplicate column name") || message.contains("already exists") else { return error }
        let earlier = definitions.filter { $0.migration != migration }
        guard !earlier.isEmpty else { return error }
        var explained = error
        for definition in earlier {
            explained.message +=
                " (migration \(definition.migration.debugDescription) created table \(definition.table.debugDescription) with"
                + " \(definition.maker), which makes the table as it is declared now, with every column added since, so a fresh"
                + " install fails here: register \(definition.migration.debugDescription) as the SQL it ran when it shipped, which"
                + " \(definition.frozenForm) prints)"
        }
        return explained
    }
}
