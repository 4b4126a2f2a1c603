import StrataKernel
import Foundation

/// A table as a schema version declares it (Squeal's `Table`): the shape `Schema.migrate` builds
/// when migrating up and rebuilds when migrating down.
///
/// ```swift
/// let contacts = AppSchema.versions.last?.tableNamed("contacts")
/// print(contacts?.columnNames) // Optional(["id", "name", "email", "url"])
/// ```
public struct SchemaTable: Hashable, Sendable {
    /// The table's name, unquoted.
    public var name: String
    /// The columns, in order.
    public var columns: [SchemaColumn]
    /// The table constraints, in order.
    public var constraints: [SchemaTableConstraint]

    /// Creates a table declaration.
    public init(name: String, columns: [SchemaColumn] = [], constraints: [SchemaTableConstraint] = []) {
        self.name = name
        self.columns = columns
        self.constraints = constraints
    }

    /// The column names, in order.
    public var columnNames: [String] { columns.map(\.name) }

    /// The column with this name (case-insensitive), if any.
    public func columnNamed(_ name: String) -> SchemaColumn? {
        columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The text between the parentheses of `CREATE TABLE`: column definitions, then constraints.
    public var definitionSQL: String { tableDefinition.bodySQL }

    /// The full `CREATE TABLE` statement.
    public var createSQL: String { tableDefinition.sql }

    /// The table in the one table definition.
    var tableDefinition: TableDefinition {
        TableDefinition(name, columns: columns.map(\.columnDefinition), constraints: constraints.map(\.constraintDefinition))
    }
}
