// Where in a migration an SQLite error happened. The error stays an `SQLiteError` (code,
// extended code and failing SQL unchanged), so code that catches SQLiteError from a migrator,
// SQift's included, still does; its message is opened with the migration and the step:
// `migration "v2", statement 1: duplicate column name: rating`.
import StrataKernel
import Foundation

extension SQLiteError {
    /// The same error, its message opened with `context` (the migration, and where in it).
    func inMigration(_ context: String) -> SQLiteError {
        var named = self
        named.message = context + ": " + message
        return named
    }
}

/// Runs `body`; an `SQLiteError` it throws is rethrown with `context` opening its message.
func namingMigration<T>(_ context: @autoclosure () -> String, _ body: () throws -> T) rethrows -> T {
    do {
        return try body()
    } catch let error as SQLiteError {
        throw error.inMigration(context())
    }
}

extension Connection {
    /// Runs the statements of a migration's SQL in order, as `execute` does; an `SQLiteError`
    /// names the migration (`context`) and the statement that failed, counted from 1.
    func executeMigrationSQL(_ sql: SQL, context: String) throws {
        let cursor = statements(in: sql)
        var number = 1
        do {
            while let statement = try cursor.next() {
                try statement.run()
                number += 1
            }
        } catch let error as SQLiteError {
            throw error.inMigration("\(context), statement \(number)")
        }
    }
}
