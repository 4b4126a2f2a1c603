// Introspection values (`SchemaInfo`, `TableInfo`, `ColumnInfo`, ...) as the kernel's reader gives them.

import StrataKernel
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
        try asRequestedIntrospection {
            SchemaInfo(schemaEntries: try schemaReader.entries(), shadowTableNames: try schemaReader.shadowTableNames())
        }
    }

    /// The columns and indexes of a table or view of the main database; nil when there is none.
    ///
    /// ```swift
    /// let columns = try db.tableInfoForTableNamed("contacts")?.columnNames
    /// ```
    /// See <https://www.sqlite.org/pragma.html#pragma_table_info>.
    /// - Throws: `SQLiteError` if the pragmas fail.
    public func tableInfoForTableNamed(_ tableName: String) throws -> TableInfo? {
        try asRequestedIntrospection {
            guard let entry = try schemaReader.table(named: tableName, includingViews: true) else { return nil }
            return TableInfo(
                name: entry.name, columns: try schemaReader.visibleColumns(ofTable: entry.name),
                indexes: try schemaReader.indexes(ofTable: entry.name))
        }
    }
}
