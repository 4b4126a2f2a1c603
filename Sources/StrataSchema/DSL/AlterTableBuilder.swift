import StrataKernel
import Foundation

/// Declares the changes of `alterTable` (Squeal's table alterer).
///
/// ```swift
/// v2.alterTable("contacts") { contacts in
///     contacts.alterColumn("name", setConstraints: ["NOT NULL"])
///     contacts.addColumn("url", type: .Text)
/// }
/// ```
/// Plain renames and plain added columns use `ALTER TABLE`; every other change rebuilds the table
/// with ``Connection/rebuildTable(named:definition:copying:tableOptions:)``, keeping its rows.
public final class AlterTableBuilder {
    var changes: [TableAlteration] = []

    init() {}

    /// Adds a column; `initialExpr` (an SQL expression over the existing row) fills it for existing rows.
    public func addColumn(_ name: String, type: SchemaColumnType, constraints: [String] = [], initialExpr: String? = nil) {
        changes.append(.addColumn(SchemaColumn(name: name, type: type, constraints: constraints), initialExpr: initialExpr))
    }

    /// Renames a column, changes its type or constraints, or sets it from an SQL expression over the row.
    ///
    /// `setConstraints` replaces the column's constraints. `setValue` and `initialExpr` are
    /// evaluated over each existing row, whose columns already carry this alteration's new names.
    /// Migrating down restores the earlier type and constraints but not values `setValue` replaced.
    public func alterColumn(
        _ name: String, renameTo: String? = nil, changeTypeTo: SchemaColumnType? = nil,
        setConstraints: [String]? = nil, setValue: String? = nil
    ) {
        changes.append(.alterColumn(name, renameTo: renameTo, changeTypeTo: changeTypeTo, setConstraints: setConstraints, setValue: setValue))
    }

    /// Drops a column, and with it the table's declared indexes that name it (as Squeal does).
    public func dropColumn(_ name: String) {
        changes.append(.dropColumn(name))
    }

    /// Adds a table constraint; name it to drop it later.
    public func addConstraint(_ sql: String, named name: String? = nil) {
        changes.append(.addConstraint(SchemaTableConstraint(sql, named: name)))
    }

    /// Drops a named table constraint.
    public func dropConstraint(named name: String) {
        changes.append(.dropConstraint(named: name))
    }

    /// Drops the table constraint declared with exactly this SQL (named or not), as Squeal's
    /// `dropConstraint("UNIQUE (name)")` does.
    public func dropConstraint(_ sql: String) {
        changes.append(.dropConstraintClause(sql))
    }

    /// Drops every table constraint the table declares; column constraints stay.
    public func dropAllConstraints() {
        changes.append(.dropAllConstraints)
    }
}
