// A NULL in a synced table's key column: SQLite stores such a row and the session extension skips
// it, so it would never sync. Temporary triggers on the writer refuse it at the statement.
import Foundation
import Strata

enum NullKeyGuards {
    /// Temporary triggers on the writer that refuse, at the statement, a NULL in a key column
    /// that accepts one (`id TEXT PRIMARY KEY` does): SQLite stores such a row, and the session
    /// extension skips it, so it would never sync and nothing would say so.
    static func installNullKeyGuards(tables: [String], _ connection: Connection) throws -> [(table: String, column: String)] {
        var nullable: [(table: String, column: String)] = []
        for table in tables {
            guard let entry = try connection.schemaReader.table(named: table) else { continue }
            // A WITHOUT ROWID table's key is NOT NULL by itself.
            if tableOptionsAreWithoutRowID(Connection.tableOptions(ofCreateTableSQL: entry.sql ?? "")) { continue }
            let keys = try connection.schemaReader.columns(ofTable: table).filter { $0.primaryKeyIndex > 0 && !$0.notNull }
            for key in keys {
                let index = nullable.count
                nullable.append((table, key.name))
                let message = sqlLiteral(
                    .text("\(nullKeyMarker)\(index): the key column \(key.name) of the synced table \(table) is NULL; such a row never syncs"))
                for event in ["INSERT", "UPDATE OF " + quoteIdentifier(key.name)] {
                    let name = quoteIdentifier("\(SyncBookkeeping.prefix)null_key_\(index)_\(event.hasPrefix("INSERT") ? "insert" : "update")")
                    try connection.execute("DROP TRIGGER IF EXISTS temp.\(name)")
                    try connection.execute(
                        """
                        CREATE TEMP TRIGGER \(name) BEFORE \(event) ON main.\(quoteIdentifier(table))
                        WHEN NEW.\(quoteIdentifier(key.name)) IS NULL BEGIN SELECT RAISE(ABORT, \(message)); END
                        """)
                }
            }
        }
        return nullable
    }

    /// The start of the message of a NULL-key refusal, followed by the guard's index.
    static let nullKeyMarker = "strata-sync-null-key "
}
