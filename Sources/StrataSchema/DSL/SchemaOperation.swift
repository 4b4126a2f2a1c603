import StrataKernel
import Foundation

/// One declared step of a schema version; each has a derived inverse for migrating down.
enum SchemaOperation: Sendable {
    case createTable(SchemaTable)
    case createVirtualTable(SchemaVirtualTable)
    case alterTable(String, [TableAlteration])
    case dropTable(String)
    case renameTable(String, to: String)
    case createIndex(SchemaIndex)
    case dropIndex(String)
    case renameIndex(String, to: String)
    case execute(up: @Sendable (Connection) throws -> Void, down: (@Sendable (Connection) throws -> Void)?)
}

/// One change inside `alterTable`.
enum TableAlteration: Hashable, Sendable {
    case addColumn(SchemaColumn, initialExpr: String?)
    case alterColumn(String, renameTo: String?, changeTypeTo: SchemaColumnType?, setConstraints: [String]?, setValue: String?)
    case dropColumn(String)
    case addConstraint(SchemaTableConstraint)
    case dropConstraint(named: String)
    case dropConstraintClause(String)
    case dropAllConstraints

    /// Whether the change is a plain rename, which `ALTER TABLE ... RENAME COLUMN` performs.
    var isRenameOnly: Bool {
        if case .alterColumn(_, _?, nil, nil, nil) = self { return true }
        return false
    }

    /// Whether `ALTER TABLE ... ADD COLUMN` can perform the change without a rebuild.
    var isPlainAddColumn: Bool {
        guard case .addColumn(let column, nil) = self else { return false }
        let constraints = column.constraints.joined(separator: " ").uppercased()
        // ALTER TABLE ADD COLUMN refuses these; a rebuild does them.
        if constraints.contains("PRIMARY") || constraints.contains("UNIQUE") || constraints.contains("CURRENT_")
            || constraints.contains("DEFAULT (") || constraints.contains("DEFAULT(")
        {
            return false
        }
        return !constraints.contains("NOT NULL") || constraints.contains("DEFAULT")
    }
}

/// A declared step with the declared schema before and after it.
struct PlannedOperation: Sendable {
    let operation: SchemaOperation
    let before: SchemaState
    let after: SchemaState
}
