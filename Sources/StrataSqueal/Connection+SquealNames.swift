import Foundation
import Strata

/// How the helpers turn Squeal's `from` and `columns` arguments into SQL.
///
/// Squeal splices them as SQL fragments (a join, an expression, `count(*)`); Strata keeps that,
/// but quotes an argument that names an existing table or column, so names with spaces, quotes
/// or keywords work too. Names that are never expressions (`insertInto`'s table and columns,
/// `update`, `deleteFrom`, DDL) are always quoted.
extension Connection {
    /// `from` quoted when it names a table or view, else the fragment as written; and the name
    /// of the table when it is one.
    func sqlSource(_ from: String) throws -> (sql: String, table: String?) {
        if try isPlainIdentifier(from) || namesTableOrView(from) {
            return (quoteIdentifier(from), from)
        }
        return (from, nil)
    }

    /// The result-column list: `*` when nil; otherwise each entry quoted when it names a column
    /// of `table`, else spliced as an expression.
    func sqlColumnList(_ columns: [String]?, of table: String?) throws -> String {
        guard let columns, !columns.isEmpty else { return "*" }
        let names = try table.map(columnNames(ofTable:)) ?? []
        return columns.map { column in
            names.contains { sameIdentifier($0, column) } ? quoteIdentifier(column) : column
        }.joined(separator: ", ")
    }

    /// The column names of `table`, hidden ones included (empty when there is no such table).
    func columnNames(ofTable table: String) throws -> [String] {
        try schemaReader.columns(ofTable: table).map(\.name)
    }

    /// Whether a table or view named `name` exists in the main or temp schema.
    private func namesTableOrView(_ name: String) throws -> Bool {
        try schemaReader.table(named: name, includingViews: true) != nil || schemaReader.temporaryTableOrViewExists(named: name)
    }
}
