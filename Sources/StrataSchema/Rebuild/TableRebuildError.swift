import StrataKernel
import Foundation

/// Why ``Connection/rebuildTable(named:definition:copying:tableOptions:)`` refused or undid a rebuild.
///
/// Whenever this error is thrown the database is exactly as it was before the call.
public enum TableRebuildError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The table to rebuild does not exist in the main schema.
    case noSuchTable(String)
    /// The table is a virtual table (FTS5, R*Tree, ...), whose module keeps its rows: it cannot be
    /// rebuilt by copying rows. Drop it and create it again with its new definition.
    case virtualTable(String, module: String)
    /// The table is a shadow table, where a virtual table keeps its data; only its virtual
    /// table may change it.
    case shadowTable(String)
    /// The rebuild ran inside an open transaction while `PRAGMA foreign_keys` was on. Dropping the
    /// old table would then fire `ON DELETE` actions on child rows, and the pragma cannot change
    /// inside a transaction. Turn foreign keys off before the transaction, for example with
    /// ``Connection/withForeignKeysDisabled(_:)``.
    case foreignKeysEnabledInTransaction(table: String)
    /// An index of the table names a column the new table does not have.
    case indexDoesNotFit(index: String, table: String)
    /// A view that mentions the table selects a column the new table does not have.
    case viewDoesNotFit(view: String, table: String)
    /// After the rebuild, rows referencing the table (or rows of the table) lost their parent.
    case foreignKeysViolated(table: String, violations: [ForeignKeyViolation])

    /// A message saying why the rebuild was refused or undone.
    public var description: String {
        switch self {
        case .noSuchTable(let table):
            return Self.refusal(table, "no such table")
        case .virtualTable(let table, let module):
            return Self.refusal(
                table,
                "it is a virtual table (USING \(module)), whose rows the module keeps; "
                    + "drop it and create it again instead")
        case .shadowTable(let table):
            return Self.refusal(table, "it is a shadow table, where a virtual table keeps its data")
        case .foreignKeysEnabledInTransaction(let table):
            return "Cannot \(table.isEmpty ? "turn foreign keys off" : "rebuild table \"\(table)\"") inside a transaction while foreign keys are on: "
                + "turn foreign keys off before beginning the transaction (Connection.withForeignKeysDisabled)"
        case .indexDoesNotFit(let index, let table):
            return Self.refusal(table, "index \"\(index)\" names a column the new definition lacks; drop or change the index first")
        case .viewDoesNotFit(let view, let table):
            return Self.refusal(table, "view \"\(view)\" selects a column the new definition lacks; drop or change the view first")
        case .foreignKeysViolated(let table, let violations):
            return "Rebuilding table \"\(table)\" would violate foreign keys, so it was rolled back: "
                + violations.map(\.description).joined(separator: "; ")
        }
    }

    /// Every refusal names the table the same way, so callers can match on the opening words.
    private static func refusal(_ table: String, _ reason: String) -> String {
        "Cannot rebuild table \"\(table)\": \(reason)"
    }

    /// The same message as ``description``.
    public var errorDescription: String? { description }
}
