// Export: a database (or one attached schema) to `Data` and back (`sqlite3_serialize` and
// `sqlite3_deserialize`), in memory, read-only or writable, with a size limit. The SQL-text
// form, dump and restore, is beside it in Connection+Dump.swift.

import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// The bytes of the database `schema` names, as its file would hold them.
    ///
    /// ```swift
    /// let snapshot = try connection.serialize()
    /// let copy = try Connection(deserializing: snapshot)
    /// ```
    /// Works for file, in-memory and deserialized databases. The copy is consistent: it is read in
    /// one read transaction (on a file in WAL mode, it includes what the WAL holds).
    /// - Throws: `SQLITE_ERROR` when no schema is named `schema`; `SQLITE_NOMEM` when the copy
    ///   cannot be allocated; SQLite's error when the database cannot be read.
    public func serialize(schema: String = "main") throws -> Data {
        try requireSchema(schema)
        // `PRAGMA page_count` inside serialize reads the file; a busy or damaged file fails here
        // with SQLite's own error rather than as a bare NULL from sqlite3_serialize.
        let pages: Int64? = try uncachedValue("PRAGMA \(quoteIdentifier(schema)).page_count")
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(handle, schema, &size, 0) else {
            if size == 0 || pages == 0 { return Data() }
            throw SQLiteError(code: SQLITE_NOMEM, message: "cannot serialize schema \"\(schema)\": out of memory for \(size) bytes")
        }
        // A WAL database's header says so (bytes 18 and 19 are 2), and SQLite cannot open such
        // an image in memory, where there is no WAL: the copy already holds the WAL's content,
        // so it is marked a rollback-journal database, as SQLite's shell does.
        if size >= 20, bytes[18] == 2, bytes[19] == 2 {
            bytes[18] = 1
            bytes[19] = 1
        }
        return Data(bytesNoCopy: bytes, count: Int(size), deallocator: .custom { pointer, _ in sqlite3_free(pointer) })
    }

    /// Replaces the database `schema` names with the one `data` holds, kept in memory.
    ///
    /// ```swift
    /// try connection.execute("ATTACH ':memory:' AS snapshot")
    /// try connection.deserialize(bytes, schema: "snapshot", readOnly: true)
    /// ```
    /// The bytes are copied: `data` may go away after the call. A writable database grows as it
    /// is written, up to `sizeLimit` bytes when given (then writes past it fail with
    /// `SQLITE_FULL`); a read-only one refuses writes with `SQLITE_READONLY`.
    /// Finalize `Statement`s you prepared on this connection before calling: SQLite must not
    /// re-prepare a statement compiled against the database being replaced. Deserialize into
    /// `main` on a connection that has not used a `pragma_…` table-valued function: SQLite 3.40
    /// ties those to the main schema this replaces (a fresh connection, as
    /// ``init(deserializing:readOnly:sizeLimit:tableLockPolicy:)`` makes, is safe).
    /// - Throws: `SQLITE_ERROR` when no schema is named `schema` or it is in use (a statement or
    ///   transaction reads it); `SQLITE_NOTADB` when `data` is not a database (the schema's
    ///   previous content is gone by then: it is replaced before SQLite reads the new bytes);
    ///   `SQLITE_NOMEM`.
    public func deserialize(_ data: Data, schema: String = "main", readOnly: Bool = false, sizeLimit: Int? = nil) throws {
        try requireSchema(schema)
        // A statement compiled against the schema being replaced must not run again: SQLite 3.40
        // re-prepares it against freed schema objects (a crash under ASan with the cached
        // `pragma_database_list` query). The idle cached statements go; the user's own live
        // `Statement`s are theirs to finalize (the method's documentation says so).
        statementCache.removeAll()
        // The new database may have the same schema_version as the old one (often: both count
        // from 1), so nothing read about the old schema can be kept; it is forgotten on every
        // path, since SQLite drops the old content even when the new bytes turn out bad.
        schemaReader.invalidate()
        defer { schemaReader.invalidate() }
        let count = data.count
        // SQLite owns the buffer from here (FREEONCLOSE), including when the call fails.
        guard let buffer = sqlite3_malloc64(sqlite3_uint64(max(count, 1)))?.assumingMemoryBound(to: UInt8.self) else {
            throw SQLiteError(code: SQLITE_NOMEM, message: "cannot deserialize \(count) bytes: out of memory")
        }
        data.copyBytes(to: buffer, count: count)
        var flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE)
        flags |= readOnly ? UInt32(SQLITE_DESERIALIZE_READONLY) : UInt32(SQLITE_DESERIALIZE_RESIZEABLE)
        let code = sqlite3_deserialize(handle, schema, buffer, sqlite3_int64(count), sqlite3_int64(count), flags)
        noteChangeOutsideStatements()
        guard code == SQLITE_OK else {
            let error = SQLiteError(handle: handle, code: code)
            throw SQLiteError(code: error.code, message: "cannot deserialize into schema \"\(schema)\": \(error.message)", extendedCode: error.extendedCode)
        }
        if let sizeLimit {
            var limit = sqlite3_int64(max(sizeLimit, count))
            try check(sqlite3_file_control(handle, schema, SQLITE_FCNTL_SIZE_LIMIT, &limit))
        }
        // SQLite reads the bytes only when first used: read the schema now, so bytes that are not
        // a database fail here rather than at some later statement.
        do {
            let _: Int64? = try uncachedValue("SELECT count(*) FROM \(quoteIdentifier(schema)).sqlite_master")
        } catch let error as SQLiteError {
            throw SQLiteError(
                code: error.code, message: "cannot deserialize into schema \"\(schema)\": \(error.message)",
                extendedCode: error.extendedCode
            )
        }
    }

    /// Opens an in-memory connection whose database is a copy of `data` (made by
    /// ``serialize(schema:)``, or the bytes of a database file).
    ///
    /// ```swift
    /// let connection = try Connection(deserializing: try Data(contentsOf: fileURL), sizeLimit: 64 << 20)
    /// ```
    /// - Parameters:
    ///   - data: The database's bytes; copied, so they may go away after the call.
    ///   - readOnly: Writes fail with `SQLITE_READONLY`.
    ///   - sizeLimit: The most bytes the database may grow to; writes past it fail with
    ///     `SQLITE_FULL` ("database or disk is full"). Nil: no limit but memory.
    ///   - tableLockPolicy: What to do on a table lock.
    /// - Throws: `SQLITE_NOTADB` when `data` is not a database; `SQLITE_NOMEM`.
    public convenience init(deserializing data: Data, readOnly: Bool = false, sizeLimit: Int? = nil, tableLockPolicy: TableLockPolicy = .fastFail) throws {
        try self.init(storageLocation: .inMemory, tableLockPolicy: tableLockPolicy, flags: OpenFlags.make())
        try deserialize(data, readOnly: readOnly, sizeLimit: sizeLimit)
    }

    /// The first column of the first row of `sql`, from a statement finalized before returning:
    /// none of these may outlive a deserialize in the statement cache.
    private func uncachedValue(_ sql: SQL) throws -> Int64? {
        try withBookkeeping { try Statement(connection: self, sql: sql).query() }
    }

    /// Throws unless a database is attached as `schema` (sqlite3_serialize would return NULL and
    /// sqlite3_deserialize a bare `SQLITE_ERROR`).
    private func requireSchema(_ schema: String) throws {
        // `PRAGMA database_list`, not the `pragma_database_list` table: SQLite 3.40 keeps an
        // eponymous virtual table tied to the main schema, which a later deserialize of main frees
        // (the next use of the table then reads freed memory).
        let found = try withBookkeeping { () -> Bool in
            let statement = try Statement(connection: self, sql: "PRAGMA database_list")
            while let row = try statement.query() {
                if let name = row.value(at: 1) as? String, name.caseInsensitiveCompare(schema) == .orderedSame { return true }
            }
            return false
        }
        guard found else {
            throw SQLiteError(code: SQLITE_ERROR, message: "no database is attached as \"\(schema)\"")
        }
    }
}
