import StrataKernel
import Foundation

/// Why ``Schema/migrate(_:toVersion:options:)`` or ``Schema/reset(_:)`` did not migrate
/// (Squeal's `SquealMigrationError`). When it is thrown, the database is exactly as before.
public enum SchemaMigrationError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The schema asks for something Strata does not do.
    case unimplemented(feature: String)
    /// The database's `user_version` is newer than every declared version: it was migrated by newer code.
    case unknownDatabaseVersion(dbVersion: Int)
    /// No declared path leads between the two versions (an undeclared version, or a step that
    /// cannot be undone).
    case unreachableDatabaseVersion(fromVersion: Int, toVersion: Int)
    /// After migrating, rows referred to missing parents; the migration was rolled back.
    case foreignKeysViolated(violations: [ForeignKeyViolation])
    /// The declaration itself is inconsistent (a step names a table or column no version declared,
    /// versions out of order, ...).
    case invalidSchema(reason: String)
    /// Run inside the caller's transaction with `PRAGMA foreign_keys` on (which cannot change
    /// inside a transaction), a step would drop a table that other tables reference: the drop's
    /// implicit `DELETE` would fire their `ON DELETE` actions, deleting rows the migration does not
    /// name. The migration was rolled back. Turn foreign keys off before beginning the transaction
    /// (``Connection/withForeignKeysDisabled(_:)``), or migrate outside a transaction.
    case foreignKeysEnabledInTransaction(table: String)

    /// A message saying why the migration did not run.
    public var description: String {
        switch self {
        case .unimplemented(let feature):
            return Self.notMigrated("\(feature) is not supported")
        case .unknownDatabaseVersion(let version):
            return Self.notMigrated(
                "the database is at version \(version), newer than every version this schema declares; "
                    + "it was migrated by newer code")
        case .unreachableDatabaseVersion(let from, let to):
            return Self.notMigrated(
                "cannot migrate from version \(from) to version \(to): "
                    + "one of them is not declared, or a step between them cannot be undone (give its execute block a down: block)")
        case .foreignKeysViolated(let violations):
            return Self.rolledBack("foreign keys violated: " + violations.map(\.description).joined(separator: "; "))
        case .invalidSchema(let reason):
            return "Invalid schema declaration: \(reason)"
        case .foreignKeysEnabledInTransaction(let table):
            return Self.rolledBack(
                "dropping table \"\(table)\" inside a transaction while foreign keys are on "
                    + "would fire the ON DELETE actions of the tables that reference it; turn foreign keys off before beginning "
                    + "the transaction (Connection.withForeignKeysDisabled), or migrate outside a transaction")
        }
    }

    /// One opening for the refusals and one for the undone migrations, so the two read apart.
    private static func notMigrated(_ reason: String) -> String { "Schema migration: " + reason }
    private static func rolledBack(_ reason: String) -> String { "Schema migration rolled back: " + reason }

    /// The same message as ``description``.
    public var errorDescription: String? { description }

    func inVersion(_ version: Int) -> SchemaMigrationError {
        if case .invalidSchema(let reason) = self { return .invalidSchema(reason: "version \(version): \(reason)") }
        return self
    }
}
