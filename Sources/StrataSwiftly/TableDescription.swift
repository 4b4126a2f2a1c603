// SQLite.swiftly's vocabulary: table and column descriptions from which SQL is generated, rendered
// by the kernel's one table definition.

import Foundation
import Strata

/// A column's SQL type, as SQLite.swiftly describes it.
public enum ColumnType: Hashable, Sendable {
    /// `INT(size)`; values read back as `Int`.
    case int(size: Int)
    /// `CHAR(size)`; values read back as `String`.
    case char(size: Int)
    /// `BOOL`; values read back as `Bool`.
    case bool

    /// The type as it appears in `CREATE TABLE`.
    public var sqlRepresentation: String {
        switch self {
        case .int(let size): return "INT(\(size))"
        case .char(let size): return "CHAR(\(size))"
        case .bool: return "BOOL"
        }
    }
}

/// One column of a table description.
///
/// ```swift
/// let name = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)
/// name.sqlRepresentation // "name" CHAR(255) NOT NULL
/// ColumnDescription(name: "col1", type: .bool, nullable: true).sqlRepresentation // "col1" BOOL NULL
/// ```
public struct ColumnDescription: Hashable, Sendable {
    /// The column's name, quoted in the generated SQL.
    public let name: String
    /// The column's SQL type, which decides how values read back.
    public let type: ColumnType
    /// Whether the column accepts NULL (`NULL` rather than `NOT NULL`).
    public let nullable: Bool

    /// Describes a column; nothing is created until a table using it is.
    public init(name: String, type: ColumnType, nullable: Bool) {
        self.name = name
        self.type = type
        self.nullable = nullable
    }

    /// The column definition for `CREATE TABLE`, its name quoted.
    public var sqlRepresentation: String { columnDefinition.sql }

    /// The column in the one table definition; SQLite.swiftly spells out `NULL` for a nullable column.
    var columnDefinition: TableDefinition.Column {
        TableDefinition.Column(name, type: type.sqlRepresentation, [nullable ? .null : .notNull()])
    }
}

/// A table's name and columns, from which Strata generates `CREATE TABLE`, `INSERT` and `SELECT`.
///
/// ```swift
/// let contacts = TableDescription(name: "contact", columns: [idColumn, nameColumn])
/// try db.createTable(describedBy: contacts)
/// ```
/// Subclass it to give columns names of their own, as SQLite.swiftly's README does.
// @unchecked Sendable: every stored property is an immutable `let` of a Sendable type, so a
// description can live in a global or static constant; subclasses must keep to `let`s too.
open class TableDescription: @unchecked Sendable {
    /// The table's name, quoted in the generated SQL.
    public let name: String
    /// The columns, in the order given.
    public let columns: [ColumnDescription]

    /// Describes a table; `createTable(describedBy:)` creates it.
    public init(name: String, columns: [ColumnDescription]) {
        self.name = name
        self.columns = columns
    }

    /// The column named `name`, or nil.
    public func column(withName name: String) -> ColumnDescription? {
        columns.first { $0.name == name }
    }

    /// Whether a column is named `name`.
    public func hasColumn(withName name: String) -> Bool {
        column(withName: name) != nil
    }

    /// `CREATE TABLE "name"(...)`.
    public var createTableSQL: SQL {
        TableDefinition(name, columns: columns.map(\.columnDefinition), spaceBeforeColumnList: false).sql
    }
}

/// Why a description-based operation refused its input.
public enum TableDescriptionError: Error, CustomStringConvertible, Equatable {
    /// `insert` was not given a value for this column (every column needs one; pass nil for NULL).
    case missingValue(column: String, table: String)
    /// `insert` was given a key that names no column of the table.
    case unknownColumn(column: String, table: String)
    /// The value cannot be stored in a column of this type.
    case invalidValue(column: String, type: ColumnType, value: String)
    /// `Connection(toNewDatabaseAt:)` found a file already there.
    case databaseAlreadyExists(path: String)
    /// `Connection(toExistingDatabaseAt:)` found no file.
    case databaseNotFound(path: String)

    /// A message saying which input was refused and why.
    public var description: String {
        switch self {
        case .missingValue(let column, let table):
            return "No value for column '\(column)' of table '\(table)'; every column needs a value (nil for NULL)."
        case .unknownColumn(let column, let table):
            return "Table '\(table)' has no column named '\(column)'."
        case .invalidValue(let column, let type, let value):
            return "Value \(value) cannot be stored in column '\(column)' of type \(type.sqlRepresentation)."
        case .databaseAlreadyExists(let path):
            return "A file already exists at \(path); open it with Connection(toExistingDatabaseAt:)."
        case .databaseNotFound(let path):
            return "No database file at \(path); create one with Connection(toNewDatabaseAt:)."
        }
    }
}

extension TableDescriptionError: LocalizedError {
    /// The same message as ``description``.
    public var errorDescription: String? { description }
}
