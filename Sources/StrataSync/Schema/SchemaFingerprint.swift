// The synced tables' definitions as both sides read them, as a short hash.
import Foundation
import Strata

/// The synced tables' definitions as both sides read them (column names, declared types, key
/// positions, NOT NULL, defaults; not the SQL text, whose spacing may differ), as a short hash.
enum SchemaFingerprint {
    static func of(tables: [String], in connection: Connection) throws -> String {
        try hash(tables.map { try signature(of: $0, in: connection) })
    }

    /// One table's part of a fingerprint: its name and each column's definition, one a line.
    static func signature(of table: String, in connection: Connection) throws -> String {
        var text = "T:" + table.lowercased() + "\n"
        for column in try connection.schemaReader.columns(ofTable: table) where column.hidden == 0 {
            text +=
                "\(column.name.lowercased())|\(column.declaredType.uppercased())|\(column.notNull)|\(column.primaryKeyIndex)|\(column.defaultValue ?? "-")\n"
        }
        return text
    }

    /// The fingerprint of tables given by their signatures (in any order).
    static func hash(_ signatures: [String]) throws -> String {
        // Each signature starts with its table's name, so sorting them sorts by name.
        let text = signatures.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined()
        var hash = FNV1a()
        hash.add(text.utf8)
        let hex = String(hash.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The key columns of a synced table, or the error that says why it cannot be synced.
    static func keyColumns(of table: String, in connection: Connection) throws -> [String] {
        let reader = connection.schemaReader
        guard try reader.table(named: table) != nil else { throw SyncError.refused("no table named \(table)") }
        let keys = try reader.columns(ofTable: table).filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        guard !keys.isEmpty, try reader.rowIDAliasColumn(ofTable: table) == nil else { throw SyncError.tableNeedsGlobalKey(table: table) }
        return keys.map(\.name)
    }
}
