import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// An error reported by SQLite, or by Strata on SQLite's behalf (a bind count mismatch, a misuse).
///
/// ```swift
/// do { try connection.execute("SELEC 1") }
/// catch let error as SQLiteError { print(error.code, error.message) } // 1 near "SELEC": syntax error
/// ```
///
/// ``resultCode`` names what failed, down to the extended code, so a caller matches it without
/// `import SQLite3`:
///
/// ```swift
/// catch let error as SQLiteError where error.resultCode == .constraintPrimaryKey { … }
/// catch let error as SQLiteError where error.resultCode.primary == .busy { … }  // also .busySnapshot
/// ```
///
/// `code` and `extendedCode` are the same codes as integers: `code` is the primary one
/// (``SQLiteResultCode/constraint`` is 19), `extendedCode` the extended one
/// (``SQLiteResultCode/constraintNotNull`` is 1299). `sql` is the statement that failed, when
/// known. See ``SQLiteResultCode`` and <https://www.sqlite.org/rescode.html>.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary result code as an integer (``SQLiteResultCode/busy`` is 5); ``resultCode``
    /// names it.
    public let code: Int32
    /// SQLite's message, passed through unchanged ("database is locked", "no such table: t", ...).
    public var message: String
    /// The extended result code as an integer; equals `code` when SQLite reported no extension.
    public let extendedCode: Int32
    /// The result code by name: the extended one when SQLite reported it
    /// (``SQLiteResultCode/constraintUnique``), else the primary one (``SQLiteResultCode/busy``).
    public var resultCode: SQLiteResultCode { SQLiteResultCode(rawValue: extendedCode) }
    /// The SQL that failed, when the error came from a statement.
    public var sql: SQL?

    /// SQLite's English description of `code` (`sqlite3_errstr`).
    public var codeDescription: String { String(cString: sqlite3_errstr(code)) }

    /// Creates an error with an explicit code and message.
    public init(code: Int32, message: String, extendedCode: Int32? = nil, sql: SQL? = nil) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// Reads the most recent error of a connection handle.
    ///
    /// The handle's message is SQLite's account of `code` only while the handle's own error code
    /// is that code: a call that does not set the handle's error (`sqlite3_backup_step` on the
    /// destination), or statements SQLite runs after the failure (the savepoint a changeset apply
    /// rolls back), leave an unrelated one ("not an error", "no such savepoint"). Then the
    /// code's own description is the message ("database or disk is full").
    package init(handle: SQLiteConnectionHandle?, code: Int32, sql: SQL? = nil) {
        let message: String
        if let handle, sqlite3_errcode(handle) & 0xFF == code & 0xFF, let text = sqlite3_errmsg(handle) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        self.init(code: code, message: message, extendedCode: (extended & 0xFF) == (code & 0xFF) ? extended : code, sql: sql)
    }

    /// The message, code and code description, for logging.
    public var description: String {
        "{ message=\"\(message)\", code=\(code), codeDescription=\"\(codeDescription)\" }"
    }
}

extension SQLiteError: LocalizedError {
    /// The code, its description, SQLite's message and the failing SQL when known.
    public var errorDescription: String? {
        if let sql { return "SQLite error \(code) (\(codeDescription)): \(message) [SQL: \(sql)]" }
        return "SQLite error \(code) (\(codeDescription)): \(message)"
    }
}
