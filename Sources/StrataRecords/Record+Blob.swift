import Foundation
import Strata

extension Record {
    /// Opens the value of one of the record's columns in the row `rowID` for incremental I/O,
    /// so a large BLOB or TEXT property streams without being loaded whole.
    ///
    /// ```swift
    /// try db.run(literal: "INSERT INTO document(name, body) VALUES (\(name), \(ZeroBlob(count: fileSize)))")
    /// let id = db.lastInsertRowID
    /// try Document.openBlob(\.body, rowID: id, in: db, writable: true).copy(from: fileURL)
    /// for try await chunk in try Document.openBlob(\.body, rowID: id, in: db).chunks() { … }
    /// ```
    /// The table is the record's ``Record/tableName``, the column the typed column's name.
    /// - Throws: `SQLiteError` when the row does not exist or the value is neither TEXT nor BLOB
    ///   (see `Connection.openBlob(table:column:rowID:schema:writable:)`).
    public static func openBlob<Value>(
        _ column: KeyPath<Columns, TypedColumn<Value>>, rowID: Int64, in connection: Connection,
        schema: String = "main", writable: Bool = false
    ) throws -> Blob {
        try connection.openBlob(table: tableName, column: columns[keyPath: column].name, rowID: rowID, schema: schema, writable: writable)
    }
}
