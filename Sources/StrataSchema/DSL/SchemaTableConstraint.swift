import StrataKernel
import Foundation

/// A table constraint as a schema version declares it, such as `UNIQUE ("a", "b")`.
public struct SchemaTableConstraint: Hashable, Sendable {
    /// The constraint's name, if it has one (needed to drop it later with `dropConstraint(named:)`).
    public var name: String?
    /// The constraint as an SQL fragment (`CHECK (...)`, `UNIQUE (...)`, `FOREIGN KEY ...`).
    public var sql: String

    /// Creates a table constraint.
    public init(_ sql: String, named name: String? = nil) {
        self.sql = sql
        self.name = name
    }

    /// The constraint for `CREATE TABLE`, with `CONSTRAINT "name"` when it is named.
    public var sqlRepresentation: String { constraintDefinition.sql }

    /// The constraint in the one table definition.
    var constraintDefinition: TableDefinition.Constraint {
        name.map { .named($0, .raw(sql)) } ?? .raw(sql)
    }
}
