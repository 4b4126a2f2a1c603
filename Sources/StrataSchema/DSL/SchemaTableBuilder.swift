import StrataKernel
import Foundation

/// Declares the columns and constraints of a new table inside `createTable` (Squeal's table builder).
///
/// ```swift
/// v1.createTable("contacts") { contacts in
///     contacts.primaryKey("id")
///     contacts.column("email", type: .Text, constraints: ["NOT NULL"])
///     contacts.constraint("UNIQUE (\"email\")", named: "unique_email")
/// }
/// ```
public final class SchemaTableBuilder {
    /// The table declared so far.
    public private(set) var table: SchemaTable

    init(name: String) {
        table = SchemaTable(name: name)
    }

    /// Declares an `INTEGER PRIMARY KEY` column (an alias of the rowid).
    public func primaryKey(_ name: String, autoincrement: Bool = false) {
        table.columns.append(SchemaColumn(name: name, type: .Integer, constraints: autoincrement ? ["PRIMARY KEY", "AUTOINCREMENT"] : ["PRIMARY KEY"]))
    }

    /// Declares a column; `constraints` are SQL fragments such as `NOT NULL` or `DEFAULT 0`.
    public func column(_ name: String, type: SchemaColumnType, constraints: [String] = []) {
        table.columns.append(SchemaColumn(name: name, type: type, constraints: constraints))
    }

    /// Declares a table constraint such as `UNIQUE ("a", "b")`; name it to drop it later.
    public func constraint(_ sql: String, named name: String? = nil) {
        table.constraints.append(SchemaTableConstraint(sql, named: name))
    }
}
