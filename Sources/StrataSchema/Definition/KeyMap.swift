// A key map: a stable integer per key of a table whose rowids are not its own (a TEXT key, a
// UUID, as synced tables have), which `VACUUM` and reloads may renumber. An index over such a
// table files rows under the map's ids, and triggers on the table keep the map in step. Keyed
// FTS5 indexes and keyed IVF indexes both keep one; the SQL is written here, once.

/// The SQL of one key map, `<map>(<id> INTEGER PRIMARY KEY, "key" NOT NULL UNIQUE)`, over
/// `table.key`. Every piece is plain SQL, so any connection or tool may keep writing the table.
import StrataKernel
package struct KeyMapSQL: Sendable {
    /// The map table, quoted.
    package let mapTable: String
    /// The map's id column, quoted.
    package let id: String
    /// The mapped table, quoted.
    package let table: String
    /// The table's key column, quoted.
    package let key: String
    /// The key's collation, which the map's key column declares too (nil: BINARY), so the map
    /// tells keys apart as the table does and a join on the key can use the table's key index.
    package let collation: String?

    /// Names are quoted here. Trigger bodies name tables unqualified (SQLite binds them to the
    /// trigger's own schema); ``createTable(schema:)`` and ``fill(schema:)`` may qualify them.
    package init(map: String, idColumn: String, table: String, key: String, collation: String? = nil) {
        self.mapTable = quoteIdentifier(map)
        self.id = quoteIdentifier(idColumn)
        self.table = quoteIdentifier(table)
        self.key = quoteIdentifier(key)
        self.collation = collation
    }

    /// Creates the map in `schema` (nil: unqualified).
    package func createTable(schema: String? = nil) -> String {
        let collate = collation.map { " COLLATE " + quoteIdentifier($0) } ?? ""
        return "CREATE TABLE \(schema.map { quoteIdentifier($0) + "." } ?? "")\(mapTable)(\(id) INTEGER PRIMARY KEY, \"key\" NOT NULL UNIQUE\(collate))"
    }

    /// Maps every key the table has, in key order (a WITHOUT ROWID table has no rowid to order by).
    package func fill(schema: String? = nil) -> String {
        let prefix = schema.map { quoteIdentifier($0) + "." } ?? ""
        return "INSERT OR IGNORE INTO \(prefix)\(mapTable)(\"key\") SELECT \(key) FROM \(prefix)\(table) WHERE \(key) IS NOT NULL ORDER BY \(key)"
    }

    // No conflict clause (OR IGNORE, OR REPLACE) in the trigger bodies below: an outer
    // statement's conflict handling, an upsert's included, overrides a trigger's, so each is a
    // guarded write.

    /// In an insert or update trigger: maps `new`'s key unless it is NULL or mapped already.
    package var addNewKey: String {
        "INSERT INTO \(mapTable)(\"key\") SELECT new.\(key) WHERE new.\(key) IS NOT NULL"
            + " AND NOT EXISTS (SELECT 1 FROM \(mapTable) WHERE \"key\" = new.\(key));"
    }

    /// In an update trigger: a re-keyed row keeps its id, so what is filed under it moves with
    /// it. Compared as the map compares (BINARY): under a NOCASE key 'A' → 'a' is a change the
    /// map must follow. A key set to NULL (which a non-integer PRIMARY KEY allows) leaves the
    /// map; one set from NULL joins it (``addNewKey``). The new key may still be mapped for a
    /// row a REPLACE removed without its delete trigger: that entry is stale (the key is this
    /// row's now), and is dropped first, so the re-key cannot fail on the map's UNIQUE.
    package var rekey: String {
        staleNewKey(thenDelete: true)
            + " UPDATE \(mapTable) SET \"key\" = new.\(key) WHERE \"key\" = old.\(key)"
            + " AND new.\(key) IS NOT old.\(key) COLLATE BINARY AND new.\(key) IS NOT NULL;"
            + " DELETE FROM \(mapTable) WHERE \"key\" = old.\(key) AND new.\(key) IS NULL;"
    }

    /// The map's entry for `new`'s key when it is not `old`'s (stale, see ``rekey``): as a
    /// `SELECT` of its id (to queue it elsewhere first) or, `thenDelete`, the `DELETE` of it.
    package func staleNewKey(thenDelete: Bool) -> String {
        let match = "\"key\" = new.\(key) AND \"key\" IS NOT old.\(key)"
        return thenDelete ? "DELETE FROM \(mapTable) WHERE \(match);" : "SELECT \(id) FROM \(mapTable) WHERE \(match)"
    }

    /// In a delete trigger: unmaps `old`'s key.
    package var dropOldKey: String {
        "DELETE FROM \(mapTable) WHERE \"key\" = old.\(key);"
    }

    /// The id `row` (`new` or `old`) is mapped under, as a scalar subquery (NULL when unmapped).
    package func id(of row: String) -> String {
        "(SELECT \(id) FROM \(mapTable) WHERE \"key\" = \(row).\(key))"
    }
}
