import Strata

// Squeal 1.2's public spellings on the schema DSL types that core names differently
// (`columnNamed`, `tableNamed`, `indexes`, `sql`). They live here because only code written for
// Squeal uses them; core keeps one name for each.

extension SchemaTableBuilder {
    /// Declares a column with its constraints listed after the type, as Squeal 1.2 writes it:
    /// `people.column("name", .Text, "NOT NULL")`.
    public func column(_ name: String, _ type: SchemaColumnType, _ constraints: String...) {
        column(name, type: type, constraints: constraints)
    }
}

extension SchemaTable {
    /// The declared column with this name (Squeal's `table["name"]`), or nil.
    public subscript(columnName: String) -> SchemaColumn? { columnNamed(columnName) }
}

extension SchemaTableConstraint {
    /// Squeal's name for ``SchemaTableConstraint/sql``: the constraint without its name.
    public var clause: String { sql }
    /// Squeal's name for ``SchemaTableConstraint/sqlRepresentation``: the constraint as
    /// `CREATE TABLE` writes it, with `CONSTRAINT "name"` when it is named.
    public var definition: String { sqlRepresentation }
}

extension SchemaVersion {
    /// The table this version declares with this name (Squeal's `version["name"]`), or nil.
    public subscript(tableName: String) -> SchemaTable? { tableNamed(tableName) }

    /// The names of the indexes declared at this version, in declaration order.
    public var indexNames: [String] { indexes.map(\.name) }

    /// The index declared at this version with this name, or nil.
    public func indexNamed(_ name: String) -> SchemaIndex? { indexes.first { $0.name == name } }

    /// Whether this version declares an index with this name.
    public func containsIndexNamed(_ name: String) -> Bool { indexNamed(name) != nil }
}

extension AlterTableBuilder {
    /// Adds a column with its constraints listed after the type, as Squeal 1.2 writes it:
    /// `people.addColumn("email", .Text, "DEFAULT NULL")`.
    public func addColumn(_ name: String, _ type: SchemaColumnType, _ constraints: String...) {
        addColumn(name, type: type, constraints: constraints)
    }
}
