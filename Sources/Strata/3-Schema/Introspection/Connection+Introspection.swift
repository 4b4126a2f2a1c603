import Foundation

extension Connection {
    /// The main database's schema, read from `sqlite_master` (Squeal's `db.schema`).
    ///
    /// ```swift
    /// let names = db.schema.tableNames
    /// ```
    /// As in Squeal, reading it never throws: when the schema cannot be read (a closed or
    /// corrupt database) it is empty. Use ``readSchema()`` to get the error instead.
    public var schema: SchemaInfo {
        (try? readSchema()) ?? SchemaInfo(schemaEntries: [])
    }

    /// The main database's schema, read from `sqlite_master`, or the error that kept it from
    /// being read.
    ///
    /// ```swift
    /// let tables = try db.readSchema().tableNames
    /// ```
    /// - Throws: `SQLiteError` if the schema cannot be read.
    public func readSchema() throws -> SchemaInfo {
        let entries: [SchemaEntryInfo] = try prepare("SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_master ORDER BY rowid")
            .query { (row: Row) -> SchemaEntryInfo in
                SchemaEntryInfo(type: row[0] ?? "", name: row[1] ?? "", tableName: row[2] ?? "",
                                rootPage: row[3] ?? 0, sql: row[4])
            }
        return SchemaInfo(schemaEntries: entries)
    }

    /// The columns and indexes of a table or view of the main database; nil when there is none.
    ///
    /// ```swift
    /// let columns = try db.tableInfoForTableNamed("contacts")?.columnNames
    /// ```
    /// See <https://www.sqlite.org/pragma.html#pragma_table_info>.
    /// - Throws: `SQLiteError` if the pragmas fail.
    public func tableInfoForTableNamed(_ tableName: String) throws -> TableInfo? {
        let storedName: String? = try query(
            "SELECT name FROM main.sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", tableName)
        guard let storedName else { return nil }
        let columns: [ColumnInfo] = try prepare("SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?, 'main')", storedName)
            .query { (row: Row) -> ColumnInfo in
                ColumnInfo(index: row[0] ?? 0, name: row[1] ?? "", type: row[2] ?? "", notNull: (row[3] ?? 0) != 0,
                           defaultValue: row[4], primaryKeyIndex: row[5] ?? 0)
            }
        let listed: [(seq: Int, name: String, unique: Bool, origin: String, partial: Bool)] = try prepare("SELECT seq, name, \"unique\", origin, partial FROM pragma_index_list(?, 'main')", storedName)
            .query { (row: Row) -> (seq: Int, name: String, unique: Bool, origin: String, partial: Bool) in
                (seq: row[0] ?? 0, name: row[1] ?? "", unique: (row[2] ?? 0) != 0, origin: row[3] ?? "c", partial: (row[4] ?? 0) != 0)
            }
        var indexes: [IndexInfo] = []
        for entry in listed {
            let indexColumns: [IndexedColumnInfo?] = try prepare("SELECT seqno, cid, name, \"desc\", coll, key FROM pragma_index_xinfo(?, 'main')", entry.name)
                .query { (row: Row) -> IndexedColumnInfo? in
                    guard (row[5] ?? 0) != 0 else { return nil }
                    return IndexedColumnInfo(indexSequenceNumber: row[0] ?? 0, tableColumnIndex: row[1] ?? 0, name: row[2],
                                             isDescending: (row[3] ?? 0) != 0, collation: row[4])
                }
            indexes.append(IndexInfo(name: entry.name, sequenceNumber: entry.seq, isUnique: entry.unique,
                                     origin: IndexOrigin(rawValue: entry.origin) ?? .createIndex, isPartial: entry.partial,
                                     columns: indexColumns.compactMap { $0 }))
        }
        return TableInfo(name: storedName, columns: columns, indexes: indexes)
    }
}
