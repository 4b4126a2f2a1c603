// The one walk over SQL text holding several statements: `execute(_:)`, the CLI and users'
// scripts all go through it. Each statement is compiled only when asked for, after the previous
// one has run, as `sqlite3_exec` does, so a statement may use a table an earlier one created.

import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Compiles a script's statements one at a time.
///
/// ```swift
/// let cursor = connection.statements(in: """
///     CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT);
///     INSERT INTO cars(name) VALUES('Audi');
///     SELECT name FROM cars;
///     """)
/// while let statement = try cursor.next() {
///     if cursor.isAtLastStatement { print(try statement.query() as [String]) } else { try statement.run() }
/// }
/// ```
/// Empty statements (`;;`) and comments are skipped. A statement that fails to compile throws
/// from ``next()``, its own text as the error's `sql`; the statements before it stay done. A
/// script holding a NUL character throws from the first ``next()`` and runs nothing (SQLite
/// would stop reading there, silently dropping the rest).
public final class StatementCursor {
    /// The connection the statements are compiled on.
    public let connection: Connection
    /// The script as given; `remainingSQL` is a slice of it.
    private let script: SQL
    /// The script's UTF-8 and a NUL after it, copied once: SQLite reads each statement in place.
    private let text: UnsafeMutableBufferPointer<UInt8>
    /// The byte offset in `text` where the statements not yet returned begin.
    private var offset = 0
    /// Whether the script holds a NUL character.
    private let holdsNUL: Bool

    init(connection: Connection, sql: SQL) {
        self.connection = connection
        self.script = sql
        let utf8 = sql.utf8
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: utf8.count + 1)
        let copied = storage.initialize(fromContentsOf: utf8)
        storage[copied] = 0
        // Excludes the terminator, which SQLite reads but no statement holds.
        self.text = UnsafeMutableBufferPointer(rebasing: storage[..<copied])
        self.holdsNUL = storage.baseAddress.map { memchr($0, 0, copied) != nil } ?? false
    }

    deinit {
        // The terminator is one element past `text`.
        UnsafeMutableBufferPointer(start: text.baseAddress, count: text.count + 1).deallocate()
    }

    /// The script's text after the statements returned so far.
    public var remainingSQL: Substring {
        script[script.utf8.index(script.utf8.startIndex, offsetBy: offset)...]
    }

    /// Compiles and returns the next statement, or nil when only whitespace, comments and empty
    /// statements remain.
    ///
    /// - Throws: `SQLiteError` when the statement does not compile (a syntax error, a table that
    ///   does not exist yet because an earlier statement has not run), with the statement's own
    ///   text as its `sql`; `SQLITE_MISUSE` when the script holds a NUL character.
    public func next() throws -> Statement? {
        guard !holdsNUL else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "SQL contains a NUL character", sql: script)
        }
        guard let (handle, range, written) = try connection.prepareStatement(in: UnsafeBufferPointer(text), from: offset) else {
            offset = text.count
            return nil
        }
        let prepared = PreparedStatement(handle: handle)
        prepared.access = written
        offset = range.upperBound
        return Statement(connection: connection, prepared: prepared)
    }

    /// Whether the statement last returned is the script's last: nothing but whitespace,
    /// comments and `;` follows it. Known without compiling the rest.
    public var isAtLastStatement: Bool { sqlStatementStart(in: text[offset...]) == text.endIndex }
}

extension Connection {
    /// A cursor over the statements of `script`, compiled one at a time as you ask for them.
    ///
    /// ```swift
    /// let cursor = connection.statements(in: "CREATE TABLE t(a); INSERT INTO t VALUES(1)")
    /// while let statement = try cursor.next() { try statement.run() }
    /// ```
    public func statements(in script: SQL) -> StatementCursor {
        StatementCursor(connection: self, sql: script)
    }
}
