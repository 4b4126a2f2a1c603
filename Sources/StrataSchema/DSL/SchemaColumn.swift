import StrataKernel
import Foundation

/// A column as a schema version declares it (Squeal's `Column`).
///
/// ```swift
/// v1.createTable("contacts") { t in t.column("email", type: .Text, constraints: ["NOT NULL"]) }
/// ```
/// Constraints are SQL fragments by design (`NOT NULL`, `DEFAULT 0`, `REFERENCES "x"("id")`).
public struct SchemaColumn: Hashable, Sendable {
    /// The column's name, unquoted.
    public var name: String
    /// The declared type.
    public var type: SchemaColumnType
    /// Column constraints as SQL fragments, in order.
    public var constraints: [String]

    /// Creates a column declaration.
    public init(name: String, type: SchemaColumnType, constraints: [String] = []) {
        self.name = name
        self.type = type
        self.constraints = constraints
    }

    /// The column definition for `CREATE TABLE`: `"name" TYPE constraints...`, the name quoted.
    public var sqlRepresentation: String { columnDefinition.sql }

    /// The column in the one table definition, its constraints as the fragments given.
    var columnDefinition: TableDefinition.Column {
        TableDefinition.Column(name, type: type.sqlRepresentation, constraints.map { .raw($0) })
    }
}
