// The one walk over SQL text holding several statements: `execute(_:)`, the CLI and users'
// scripts all go through it. Each statement is compiled only when asked for, after the previous
// one has run, as `sqlite3_exec` does, so a statement may use a table an earlier one created.

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
/// from ``next()``; the statements before it stay done.
public final class StatementCursor {
    /// The connection the statements are compiled on.
    public let connection: Connection
    /// The script's text after the statements returned so far.
    public private(set) var remainingSQL: Substring

    init(connection: Connection, sql: SQL) {
        self.connection = connection
        self.remainingSQL = Substring(sql)
    }

    /// Compiles and returns the next statement, or nil when only whitespace, comments and empty
    /// statements remain.
    ///
    /// - Throws: `SQLiteError` when the statement does not compile (a syntax error, a table that
    ///   does not exist yet because an earlier statement has not run).
    public func next() throws -> Statement? {
        guard let (handle, tail, written) = try connection.prepareFirstStatement(of: remainingSQL) else {
            remainingSQL = remainingSQL[remainingSQL.endIndex...]
            return nil
        }
        let prepared = PreparedStatement(handle: handle, sql: String(remainingSQL[..<tail]))
        prepared.access = written
        remainingSQL = remainingSQL[tail...]
        return Statement(connection: connection, prepared: prepared)
    }

    /// Whether the statement last returned is the script's last: nothing but whitespace,
    /// comments and `;` follows it. Known without compiling the rest.
    public var isAtLastStatement: Bool { !sqlTextHasStatement(remainingSQL) }
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
