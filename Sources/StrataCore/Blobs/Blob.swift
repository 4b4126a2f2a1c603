// Blobs: incremental blob I/O (`sqlite3_blob_*`): a handle on one TEXT or BLOB value that is read
// and written in pieces, async chunk streams in and out of it, file copies, and the `ZeroBlob`
// binding that reserves a blob's space. Built on the kernel's connection and errors only.

import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// An `sqlite3_blob *`: one open incremental blob handle.
public typealias SQLiteBlobHandle = OpaquePointer

/// One BLOB (or TEXT) value of one row, read and written in pieces without loading it whole.
///
/// ```swift
/// try connection.run("INSERT INTO files(name, body) VALUES(?, ?)", "big.bin", ZeroBlob(count: size))
/// let blob = try connection.openBlob(table: "files", column: "body", rowID: connection.lastInsertRowID, writable: true)
/// try await blob.write(from: source)                 // an AsyncSequence of Data chunks
/// for try await chunk in blob.chunks(ofSize: 65_536) { consume(chunk) }
/// ```
/// A blob's size is fixed when its value is written: reserve it with ``ZeroBlob`` and fill it
/// through the handle. Once the row changes or is deleted by other means, the handle is expired:
/// every read or write throws `SQLITE_ABORT` until ``reopen(rowID:)`` moves it to a row.
///
/// The handle keeps its connection open and follows its thread rules: use it on the thread (or
/// in the closure) that uses the connection. It is closed by ``close()`` or when it goes away,
/// always before its connection. See <https://www.sqlite.org/c3ref/blob_open.html>.
public final class Blob {
    /// The connection the blob was opened on (kept open by the blob).
    public let connection: Connection
    /// The schema the table is in (`"main"`, `"temp"` or an attached name).
    public let schema: String
    /// The table's name.
    public let table: String
    /// The column's name.
    public let column: String
    /// Whether the handle was opened for writing.
    public let isWritable: Bool
    /// The rowid of the row the handle is on.
    public private(set) var rowID: Int64
    /// The open handle; nil once closed.
    private var handle: SQLiteBlobHandle?
    /// The blob's size in bytes, read once per row (it cannot change while the handle is open).
    public private(set) var count: Int

    /// Opens the value of `column` in the row `rowID` of `table`.
    ///
    /// - Throws: `SQLiteError` when the table, column or row does not exist, the value is
    ///   neither TEXT nor BLOB, the column is indexed or a key (writes only), or the database is
    ///   read-only and `writable` is true.
    public init(connection: Connection, table: String, column: String, rowID: Int64, schema: String = "main", writable: Bool = false) throws {
        self.connection = connection
        self.schema = schema
        self.table = table
        self.column = column
        self.rowID = rowID
        self.isWritable = writable
        try Self.refuseMisplacedColumn(connection: connection, schema: schema, table: table, column: column)
        var opened: SQLiteBlobHandle?
        let code = sqlite3_blob_open(connection.handle, schema, table, column, rowID, writable ? 1 : 0, &opened)
        guard code == SQLITE_OK, let opened else {
            let error = SQLiteError(handle: connection.handle, code: code == SQLITE_OK ? SQLITE_ERROR : code)
            sqlite3_blob_close(opened)
            throw SQLiteError(
                code: error.code,
                message: "cannot open blob \(schema).\(table).\(column) at rowid \(rowID): \(error.message)",
                extendedCode: error.extendedCode
            )
        }
        handle = opened
        count = Int(sqlite3_blob_bytes(opened))
    }

    /// Whether a write went through this handle: no statement ran, so observers hear of it
    /// through the kernel's one entry point when the handle closes, which is when SQLite commits
    /// it outside a transaction (inside one, with that transaction's commit).
    private var hasWritten = false

    deinit {
        if let handle {
            sqlite3_blob_close(handle)
            if hasWritten { connection.noteChangeOutsideStatements() }
        }
    }

    /// Whether the handle is open.
    public var isOpen: Bool { handle != nil }

    /// Whether the linked SQLite refuses to open a blob in any table with a generated column
    /// ("cannot open table with generated columns", SQLite 3.54 does, where 3.40 opened columns
    /// and misplaced some), asked once of SQLite itself. Strata passes SQLite's refusal on.
    package static let refusesTablesWithGeneratedColumns: Bool = askSQLite(
        "CREATE TABLE t(b, g AS (1)); INSERT INTO t(rowid, b) VALUES(1, x'01')", ifUnanswered: false
    ) { blob in blob == nil }

    /// Whether the linked SQLite opens the column after a VIRTUAL generated column instead of the
    /// one named (SQLite 3.40 does: it counts the generated column, which the row does not store),
    /// asked once of SQLite itself. False where SQLite refuses such tables altogether.
    static let misplacesColumnsAfterVirtualGeneratedOnes: Bool = {
        if refusesTablesWithGeneratedColumns { return false }
        return askSQLite(
            "CREATE TABLE t(a, g AS (a), b, c); INSERT INTO t(rowid, a, b, c) VALUES(1, 0, x'01', x'0202')",
            ifUnanswered: true
        ) { blob in blob.map { sqlite3_blob_bytes($0) != 1 } ?? true }
    }()

    /// Runs `setup` in a private in-memory database, opens column `b` of row 1 of table `t`
    /// (nil when SQLite refuses), and returns `answer`'s verdict on it; `ifUnanswered` when the
    /// database or `setup` fails. How the blob probes above ask the linked SQLite what it does.
    private static func askSQLite(_ setup: String, ifUnanswered: Bool, _ answer: (SQLiteBlobHandle?) -> Bool) -> Bool {
        var db: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            return ifUnanswered
        }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, setup, nil, nil, nil) == SQLITE_OK else { return ifUnanswered }
        var blob: SQLiteBlobHandle?
        defer { sqlite3_blob_close(blob) }
        guard sqlite3_blob_open(db, "main", "t", "b", 1, 0, &blob) == SQLITE_OK else { return answer(nil) }
        return answer(blob)
    }

    /// Throws instead of opening, and then reading or overwriting, another column than `column`
    /// on a SQLite that misplaces it (``misplacesColumnsAfterVirtualGeneratedOnes``).
    private static func refuseMisplacedColumn(connection: Connection, schema: String, table: String, column: String) throws {
        guard misplacesColumnsAfterVirtualGeneratedOnes else { return }
        let columns: [(name: String, hidden: Int)]
        if sameIdentifier(schema, "main") {
            columns = try connection.schemaReader.columns(ofTable: table).map { ($0.name, $0.hidden) }
        } else {
            columns = try connection.query(literal: "SELECT name, hidden FROM pragma_table_xinfo(\(table), \(schema))") { row -> (name: String, hidden: Int) in
                ((row.value(at: 0) as String?) ?? "", (row.value(at: 1) as Int?) ?? 0)
            }
        }
        guard let position = columns.firstIndex(where: { sameIdentifier($0.name, column) }),
            columns[..<position].contains(where: { $0.hidden == 2 })
        else { return }
        throw SQLiteError(
            code: SQLITE_ERROR,
            message:
                "cannot open blob \(schema).\(table).\(column): SQLite \(String(cString: sqlite3_libversion())) would open another column, because a VIRTUAL generated column comes before it; read and write the value with SQL, or declare the generated column STORED or after it"
        )
    }

    /// Closes the handle; later calls throw `SQLITE_MISUSE`. Closing twice does nothing.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        sqlite3_blob_close(handle)
        if hasWritten {
            hasWritten = false
            connection.noteChangeOutsideStatements()
        }
    }

    /// Moves the handle to the same column of another row (faster than opening a new one); an
    /// expired handle (its row changed underneath) is opened afresh on `rowID`.
    ///
    /// - Throws: `SQLiteError` when the row does not exist or its value is neither TEXT nor
    ///   BLOB; the handle is then expired (or closed) until a successful reopen.
    public func reopen(rowID: Int64) throws {
        let handle = try openHandle()
        var code = sqlite3_blob_reopen(handle, rowID)
        if code & 0xFF == SQLITE_ABORT {
            // An expired handle cannot move (SQLite answers ABORT): open a fresh one in its place.
            sqlite3_blob_close(handle)
            self.handle = nil
            if hasWritten {
                hasWritten = false
                connection.noteChangeOutsideStatements()
            }
            var opened: SQLiteBlobHandle?
            code = sqlite3_blob_open(connection.handle, schema, table, column, rowID, isWritable ? 1 : 0, &opened)
            if code == SQLITE_OK { self.handle = opened } else { sqlite3_blob_close(opened) }
        }
        guard code == SQLITE_OK, let handle = self.handle else {
            let error = SQLiteError(handle: connection.handle, code: code)
            throw SQLiteError(
                code: error.code,
                message: "cannot reopen blob \(schema).\(table).\(column) at rowid \(rowID): \(error.message)",
                extendedCode: error.extendedCode
            )
        }
        self.rowID = rowID
        count = Int(sqlite3_blob_bytes(handle))
    }

    // MARK: - Reading and writing

    /// Reads `buffer.count` bytes starting at `offset` into `buffer`.
    ///
    /// - Throws: `SQLITE_ERROR` when the range goes past the blob's end; `SQLITE_ABORT` when the
    ///   row changed or was deleted since the handle was opened.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        let handle = try openHandle()
        try checkRange(offset: offset, length: buffer.count, writing: false)
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        try check(sqlite3_blob_read(handle, base, Int32(buffer.count), Int32(offset)), doing: "read")
    }

    /// Reads `length` bytes from `offset` on (to the end when `length` is nil).
    ///
    /// - Throws: As ``read(into:at:)``.
    public func read(at offset: Int = 0, length: Int? = nil) throws -> Data {
        let length = length ?? max(0, count - offset)
        try checkRange(offset: offset, length: length, writing: false)
        var data = Data(count: length)
        try data.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        return data
    }

    /// Writes `bytes` at `offset`; the blob's size does not change.
    ///
    /// - Throws: `SQLITE_ERROR` when the bytes would go past the blob's end (reserve the size with
    ///   ``ZeroBlob``); `SQLITE_READONLY` when the handle was opened read-only; `SQLITE_ABORT`
    ///   when the row changed or was deleted since the handle was opened.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        let handle = try openHandle()
        guard isWritable else {
            throw SQLiteError(code: SQLITE_READONLY, message: "blob \(schema).\(table).\(column) at rowid \(rowID) was opened read-only")
        }
        try checkRange(offset: offset, length: bytes.count, writing: true)
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        try check(sqlite3_blob_write(handle, base, Int32(bytes.count), Int32(offset)), doing: "write")
        hasWritten = true
    }

    /// Writes `data` at `offset`; the blob's size does not change.
    ///
    /// - Throws: As ``write(_:at:)-(UnsafeRawBufferPointer,_)``.
    public func write(_ data: Data, at offset: Int = 0) throws {
        try data.withUnsafeBytes { try write($0, at: offset) }
    }

    // MARK: - Internals

    private func openHandle() throws -> SQLiteBlobHandle {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "blob \(schema).\(table).\(column) is closed")
        }
        return handle
    }

    private func checkRange(offset: Int, length: Int, writing: Bool) throws {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            let what = writing ? "write" : "read"
            var message =
                "blob \(what) of \(length) bytes at offset \(offset) goes past the end of "
                + "\(schema).\(table).\(column) at rowid \(rowID), whose size is \(count) bytes"
            if writing { message += " (a blob's size is fixed: reserve it with ZeroBlob(count:))" }
            throw SQLiteError(code: SQLITE_ERROR, message: message)
        }
    }

    private func check(_ code: Int32, doing what: String) throws {
        guard code != SQLITE_OK else { return }
        if code & 0xFF == SQLITE_ABORT {
            throw SQLiteError(
                code: code,
                message: "blob \(what) failed: the row at rowid \(rowID) of \(schema).\(table) was changed or deleted "
                    + "after the blob was opened; the handle is expired (reopen it with reopen(rowID:))",
                extendedCode: code
            )
        }
        let error = SQLiteError(handle: connection.handle, code: code)
        throw SQLiteError(
            code: error.code,
            message: "blob \(what) on \(schema).\(table).\(column) at rowid \(rowID) failed: \(error.message)",
            extendedCode: error.extendedCode
        )
    }
}

extension Connection {
    /// Opens the value of `column` in the row `rowID` of `table` for incremental I/O.
    ///
    /// ```swift
    /// let blob = try connection.openBlob(table: "files", column: "body", rowID: 1)
    /// let header = try blob.read(at: 0, length: 16)
    /// ```
    /// - Throws: `SQLiteError` when the table, column or row does not exist, or the value cannot
    ///   be opened so (see ``Blob/init(connection:table:column:rowID:schema:writable:)``).
    public func openBlob(table: String, column: String, rowID: Int64, schema: String = "main", writable: Bool = false) throws -> Blob {
        try Blob(connection: self, table: table, column: column, rowID: rowID, schema: schema, writable: writable)
    }
}

/// A blob of `count` zero bytes, bound without allocating them (`sqlite3_bind_zeroblob64`): it
/// reserves the space a ``Blob`` handle then fills.
///
/// ```swift
/// try connection.run("INSERT INTO files(body) VALUES(?)", ZeroBlob(count: 100 * 1024 * 1024))
/// ```
public struct ZeroBlob: Bindable, Sendable, Hashable {
    /// The number of zero bytes.
    public let count: Int

    /// A zero blob of `count` bytes (negative counts are taken as 0).
    public init(count: Int) {
        self.count = max(0, count)
    }

    /// The bytes themselves, for the paths that need a value (function results, logging).
    public var bindingValue: BindingValue { .blob(Data(count: count)) }

    /// Binds the zeros without allocating them.
    ///
    /// - Throws: Never; a size past `SQLITE_LIMIT_LENGTH` is SQLite's `SQLITE_TOOBIG` result.
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        sqlite3_bind_zeroblob64(statement, index, sqlite3_uint64(count))
    }
}
