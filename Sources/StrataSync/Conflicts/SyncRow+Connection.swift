// The hub's corrections: a row read as the hub has it, and made so on a replica.
import Foundation
import Strata

extension Connection {
    /// The row of `table` whose key is `key`, every stored column, as the hub sends it back.
    func syncRow(table: String, keyColumns: [String], key: [SyncValue]) throws -> SyncRow {
        let columns = try schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
        var fragment = SQLFragment(sql: "SELECT " + columns.map(quoteIdentifier).joined(separator: ", ") + " FROM " + quoteIdentifier(table) + " WHERE ")
        for (index, column) in keyColumns.enumerated() {
            fragment = fragment + SQLFragment(sql: (index == 0 ? "" : " AND ") + quoteIdentifier(column) + " IS ?", arguments: [key[index].binding])
        }
        let row: Row? = try query(literal: fragment)
        return SyncRow(
            table: table, keyColumns: keyColumns, key: key, columns: columns,
            values: row.map { row in (0..<columns.count).map { SyncValue(any: row.value(at: $0)) } })
    }

    /// Makes the row as the hub has it: an upsert (not REPLACE, which would fire ON DELETE
    /// actions of foreign keys), or a delete when the hub has none.
    func applySyncRow(_ row: SyncRow) throws {
        // A row is found by its key; without one a DELETE would match every row.
        guard !row.keyColumns.isEmpty, row.keyColumns.count == row.key.count else {
            throw SyncError.tableNeedsGlobalKey(table: row.table)
        }
        guard let values = row.values else {
            // IS, not =: a key column may hold NULL (SQLite allows it outside INTEGER keys).
            let match = zip(row.keyColumns, row.key).map { column, value in
                "\(identifier: column) IS \(SQLFragment(sql: "?", arguments: [value.binding]))" as SQLFragment
            }.joined(separator: " AND ")
            try run(literal: StatementClauses(predicate: match).delete(from: .identifier(row.table)))
            return
        }
        let upsert = StatementClauses.insert(into: row.table, columns: row.columns, onConflict: .updateAll(conflictTarget: row.keyColumns))
        try run(literal: SQLFragment(sql: upsert.sql, arguments: values.map(\.binding)))
    }
}
