// Statements, with Connection the kernel: compiling, binding, stepping and finalizing statements,
// the statement cache and cursor, SQL text and quoting, per-statement caches for the layers above.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A compiled SQL statement: bind parameters, run it, or query its rows.
///
/// ```swift
/// let insert = try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)")
/// try insert.bind(1, "Audi", 52_642).run()
/// try insert.bind(2, "Mercedes", 57_127).run()
/// ```
/// A statement belongs to its connection's thread rules. See <https://www.sqlite.org/c3ref/stmt.html>.
open class Statement {
    // `prepared` is declared before `connection` on purpose: Swift destroys stored properties
    // in declaration order, so a statement dropped last is finalized (its last trace and event
    // reports delivered) while its connection lives, and the connection then closes with no
    // statement left. `Connection.deinit` stays safe in the other order too.
    @usableFromInline let prepared: PreparedStatement
    /// The connection the statement was prepared on (kept alive by the statement).
    public let connection: Connection
    @usableFromInline package let handle: SQLiteStatementHandle

    /// Prepares `sql`, which must hold exactly one statement.
    ///
    /// - Throws: `SQLiteError` for a syntax error, a missing table, an empty string, or SQL with
    ///   more than one statement (use `Connection.execute` for those).
    public init(connection: Connection, sql: SQL) throws {
        self.connection = connection
        self.prepared = try PreparedStatement.prepare(sql, on: connection)
        self.handle = prepared.handle
    }

    init(connection: Connection, prepared: PreparedStatement) {
        self.connection = connection
        self.prepared = prepared
        self.handle = prepared.handle
    }

    /// The SQL text the statement was prepared from.
    public var sql: SQL { prepared.sql }

    /// The SQL with the current bound values substituted, as SQLite would log it.
    public var expandedSQL: SQL? {
        guard let text = sqlite3_expanded_sql(handle) else { return nil }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }

    /// Whether the statement has been stepped and not yet run to completion or reset.
    public var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Whether the statement makes no direct change to the database.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The number of result columns (asked of SQLite each time, so it follows schema changes).
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The result column names, in order.
    public var columnNames: [String] { prepared.columnNames }

    /// The index of the result column named `name`, or nil.
    public func columnIndex(forName name: String) -> Int? {
        prepared.columnIndex(forName: name).map(Int.init)
    }

    /// The number of SQL parameters (`?`, `?NNN`, `:name`, `@name`, `$name`).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    // MARK: - Binding

    /// Binds positional parameters, after resetting the statement.
    ///
    /// ```swift
    /// try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)").bind(1, "Audi", nil).run()
    /// ```
    /// - Throws: `SQLITE_MISUSE` "Bind expected N parameters, instead received M" when the count
    ///   differs from the statement's; SQLite's error when a value cannot be bound.
    @discardableResult
    public func bind(_ parameters: Bindable?...) throws -> Statement {
        try bind(parameters)
    }

    /// Binds positional parameters; the fast form for calls without a `nil` literal (no array
    /// of existentials is built).
    @discardableResult @inlinable
    public final func bind<each Value: Bindable>(_ parameters: repeat each Value) throws -> Statement {
        var count = 0
        for _ in repeat each parameters { count += 1 }
        try checkPositionalCount(count)
        var index: Int32 = 0
        for parameter in repeat each parameters {
            index += 1
            let code = try parameter.bind(to: handle, at: index)
            if code != SQLITE_OK { try checkBind(code, index: index) }
        }
        return self
    }

    /// Binds one positional parameter (1-based) through the value's own fast path, leaving the
    /// others as they are: for generated code that binds a known column list.
    ///
    /// ```swift
    /// try insert.bind("Audi", at: 2)
    /// ```
    /// - Throws: `SQLiteError` (`SQLITE_RANGE` for an index the statement does not have).
    @inlinable
    public final func bind<Value: Bindable>(_ value: Value, at index: Int32) throws {
        let code = try value.bind(to: handle, at: index)
        if code != SQLITE_OK { try checkBind(code, index: index) }
    }

    /// Binds named parameters given as `(name, value)` pairs; the fast form of named binding, as
    /// no dictionary is built per call.
    ///
    /// ```swift
    /// try insert.bind(named: (":id", 1), (":name", "Audi"), (":price", 52_642)).run()
    /// ```
    /// Parameters not named are bound to NULL.
    /// - Throws: `SQLITE_MISUSE` "Bind could not find index for key: 'k'" for an unknown name.
    @discardableResult @inlinable
    public final func bind<each Value: Bindable>(named parameters: repeat (String, each Value)) throws -> Statement {
        resetForNewExecution()
        var coverage = NamedBindCoverage(handle)
        defer { coverage.finish(handle) }
        var position = 0
        for parameter in repeat each parameters {
            let index = try parameterIndex(named: parameter.0, position: position)
            let code = try parameter.1.bind(to: handle, at: index)
            if code != SQLITE_OK { try checkBind(code, index: index) }
            coverage.bound(index)
            position += 1
        }
        coverage.succeeded = true
        return self
    }

    /// The index of the parameter `name` (bound `position`-th in a named bind), or SQift's
    /// "Bind could not find index" error.
    @usableFromInline
    final func parameterIndex(named name: String, position: Int) throws -> Int32 {
        let index = prepared.parameterIndex(forName: name, position: position)
        guard index > 0 else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "Bind could not find index for key: '\(name)'", sql: sql)
        }
        return index
    }

    /// Resets the statement without binding anything (SQift's zero-argument `bind()`).
    @discardableResult
    public func bind() throws -> Statement {
        try bind([Bindable?]())
    }

    /// Binds positional parameters from an array.
    @discardableResult
    public func bind(_ parameters: [Bindable?]) throws -> Statement {
        try parameters.withUnsafeBufferPointer { buffer in
            try bindPositional(count: buffer.count) { index in
                guard let value = buffer[index] else { return sqlite3_bind_null(handle, Int32(index + 1)) }
                return try value.bind(to: handle, at: Int32(index + 1))
            }
        }
        return self
    }

    /// Binds named parameters; keys carry their prefix (`":id"`, `"$id"`, `"@id"`).
    ///
    /// ```swift
    /// try statement.bind([":id": 1, ":name": "Audi", ":price": 52_642]).run()
    /// ```
    /// - Throws: `SQLITE_MISUSE` "Bind could not find index for key: 'k'" for an unknown name.
    @discardableResult
    public func bind(_ parameters: [String: Bindable?]) throws -> Statement {
        resetForNewExecution()
        var coverage = NamedBindCoverage(handle)
        defer { coverage.finish(handle) }
        // Keys and values walked side by side (the two views share the dictionary's order):
        // iterating `(key, value)` pairs copied each element's optional existential twice through
        // the runtime's value witnesses, more than SQLite's bind costs.
        var keys = parameters.keys.makeIterator()
        var position = 0
        for value in parameters.values {
            guard let key = keys.next() else { break }
            let index = try parameterIndex(named: key, position: position)
            try bindNamedValue(value, at: index)
            coverage.bound(index)
            position += 1
        }
        coverage.succeeded = true
        return self
    }

    /// Binds one value of a dictionary bind (NULL when nil). Not inlined: taking the optional by
    /// reference spares the copy that unwrapping it in the loop made.
    @inline(never)
    final func bindNamedValue(_ value: Bindable?, at index: Int32) throws {
        let code = try value?.bind(to: handle, at: index) ?? sqlite3_bind_null(handle, index)
        if code != SQLITE_OK { try checkBind(code, index: index) }
    }

    @usableFromInline
    final func bindPositional(count: Int, _ bindValue: (Int) throws -> Int32) throws {
        try checkPositionalCount(count)
        // Every parameter is rebound, so sqlite3_clear_bindings would be wasted work.
        for index in 0..<count {
            let code = try bindValue(index)
            if code != SQLITE_OK { try checkBind(code, index: Int32(index + 1)) }
        }
    }

    /// Resets the statement and checks a positional parameter count against the statement's.
    @usableFromInline
    final func checkPositionalCount(_ count: Int) throws {
        resetForNewExecution()
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard count == expected else {
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message: "Bind expected \(expected) parameters, instead received \(count)",
                sql: sql
            )
        }
    }

    @usableFromInline
    final func checkBind(_ code: Int32, index: Int32) throws {
        guard code != SQLITE_OK else { return }
        var error = SQLiteError(handle: connection.handle, code: code, sql: sql)
        error.message = "Could not bind parameter \(index): \(error.message)"
        throw error
    }

    @inline(__always) @usableFromInline
    final func resetForNewExecution() {
        prepared.reset()
    }

    /// Clears all bindings to NULL (keeps the statement's position).
    func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Running

    /// Steps the statement to completion, ignoring any rows.
    @discardableResult
    public func run() throws -> Statement {
        while try step() {}
        return self
    }

    /// Advances to the next row: true when a row is available, false when done.
    ///
    /// The first step of an execution checks whether SQLite re-prepared the statement after a
    /// schema change (once per execution, not per row), so names read afterwards are current.
    @inlinable
    public final func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW {
            if !prepared.hasProducedRow { firstRowProduced() }
            return true
        }
        if code == SQLITE_DONE { executionFinished(); return false }
        return try stepFailed(code)
    }

    /// Bookkeeping for the first row of an execution.
    @usableFromInline @inline(never)
    final func firstRowProduced() {
        prepared.hasProducedRow = true
        prepared.executionStarted()
        if !connection.executionObservers.isEmpty, connection.notifyStatementProducedRow(prepared) {
            prepared.reportsEnd(to: connection)
        }
    }

    /// Bookkeeping for the end of an execution, which resets the statement: the next step starts
    /// a new one.
    @usableFromInline
    final func executionFinished() {
        // One definition, shared with Connection.runCachedStatement (Connection+CachedRun.swift).
        prepared.executionFinished(on: connection)
    }

    /// Retries a table lock (only before the first row, when a retry cannot repeat rows) or ends
    /// the execution and throws.
    @usableFromInline
    final func stepFailed(_ code: Int32) throws -> Bool {
        var code = code
        while code & 0xFF == SQLITE_LOCKED, !prepared.hasProducedRow,
            let interval = connection.tableLockPolicy.pollIntervalMicroseconds
        {
            sqlite3_reset(handle)
            usleep(interval)
            code = sqlite3_step(handle)
            if code == SQLITE_ROW { firstRowProduced(); return true }
            if code == SQLITE_DONE { executionFinished(); return false }
        }
        let error = SQLiteError(handle: connection.handle, code: code, sql: sql)
        // What the statement wrote before failing stays (OR FAIL, RAISE(FAIL)) and autocommit has
        // committed it: the monitor hears of the end here, once.
        let afterRow = prepared.hasProducedRow
        prepared.awaitsEndReport = false
        prepared.reset()
        if !connection.observers.isEmpty {
            if !connection.executionObservers.isEmpty { connection.notifyStatementEnded(prepared, afterRow: afterRow) }
            connection.notifyStatementFailed(error, sql: sql)
        }
        throw error
    }

    // MARK: - Reading the current row

    /// The value of column `index` of the current row, or nil for NULL or a value that does not
    /// convert to `T`.
    @inlinable @inline(__always)
    public final func value<T: Extractable>(at index: Int32, as type: T.Type = T.self) -> T.DataType? {
        guard let value = sqlite3_column_value(handle, index) else { return nil }
        let type = sqlite3_value_type(value)
        return type == SQLITE_NULL ? nil : T.extract(from: value, type: type)
    }

    /// The value of column `index` as `T` itself, or nil: what `Row`'s reads return.
    @inlinable @inline(__always)
    final func valueAsSelf<T: Extractable>(at index: Int32, as type: T.Type = T.self) -> T? {
        guard let value = sqlite3_column_value(handle, index) else { return nil }
        let type = sqlite3_value_type(value)
        return type == SQLITE_NULL ? nil : T.extractSelf(from: value, type: type)
    }

    /// The value of column `index` in SQift's `Any` form (`Int64`, `Double`, `String`, `Data`, nil).
    public func anyValue(at index: Int32) -> Any? {
        guard index >= 0, index < sqlite3_column_count(handle), let value = sqlite3_column_value(handle, index) else {
            return nil
        }
        return StrataKernel.anyValue(of: value)
    }
}

extension Statement: CustomStringConvertible {
    /// The statement's SQL as prepared.
    public var description: String { sql }
}

extension PreparedStatement {
    /// Compiles exactly one statement of `sql` on `connection`, polling on table locks per policy.
    ///
    /// Every layer that builds one statement from a caller's fragments (a `WHERE` clause, a
    /// column definition) compiles it here, so a fragment that ends the statement and starts
    /// another is refused, never run.
    /// - Throws: `SQLITE_MISUSE` for SQL with no statement, more than one, or a NUL character;
    ///   SQLite's errors.
    static func prepare(_ sql: SQL, on connection: Connection, persistent: Bool = false) throws -> PreparedStatement {
        let count = sql.utf8.count
        // withCString hands over a native string's own NUL-terminated UTF-8, copying only others.
        return try sql.withCString { cString in
            // SQLite stops reading at a NUL byte, which would silently drop the rest of the SQL.
            guard strlen(cString) == count else {
                throw SQLiteError(code: SQLITE_MISUSE, message: "SQL contains a NUL character", sql: sql)
            }
            return try cString.withMemoryRebound(to: UInt8.self, capacity: count + 1) { start in
                let text = UnsafeBufferPointer(start: start, count: count)
                guard let (handle, range, written) = try connection.prepareStatement(in: text, from: 0, persistent: persistent, failingSQL: sql) else {
                    throw SQLiteError(code: SQLITE_MISUSE, message: "SQL contains no statement", sql: sql)
                }
                let statement = PreparedStatement(handle: handle, sql: sql)
                statement.access = written
                if sqlStatementStart(in: text[range.upperBound...]) != text.endIndex {
                    throw SQLiteError(
                        code: SQLITE_MISUSE,
                        message: "SQL holds more than one statement; only one may run here (execute() runs several)",
                        sql: sql
                    )
                }
                return statement
            }
        }
    }
}

/// Which parameters a named bind set, so the others are bound to NULL afterwards instead of
/// clearing every binding first (`sqlite3_clear_bindings` released and reset every parameter on
/// each call, a third of a named insert's own cost): the statement ends up exactly as SQift's
/// clear-then-bind leaves it. Statements with more than 64 parameters are cleared up front.
@usableFromInline
struct NamedBindCoverage {
    /// Bit `i - 1` for parameter `i` once bound.
    @usableFromInline var mask: UInt64 = 0
    /// The bits of every parameter; 0 when the statement was cleared up front.
    @usableFromInline let all: UInt64

    @inlinable
    init(_ handle: SQLiteStatementHandle) {
        let count = sqlite3_bind_parameter_count(handle)
        if count > 64 {
            sqlite3_clear_bindings(handle)
            all = 0
        } else {
            all = count == 64 ? .max : (UInt64(1) << UInt64(count)) - 1
        }
    }

    @inlinable @inline(__always)
    mutating func bound(_ index: Int32) {
        if index >= 1 && index <= 64 { mask |= UInt64(1) << UInt64(index - 1) }
    }

    /// Whether every named value was bound; set last, so a thrown bind leaves it false.
    @usableFromInline var succeeded = false

    /// Ends the bind: NULL to each parameter it did not name, or, after a failed bind, NULL to
    /// every parameter.
    @inlinable @inline(__always)
    func finish(_ handle: SQLiteStatementHandle) {
        if succeeded { bindNullToTheRest(handle) } else { sqlite3_clear_bindings(handle) }
    }

    /// Binds NULL to each parameter the bind did not name.
    @inlinable @inline(__always)
    func bindNullToTheRest(_ handle: SQLiteStatementHandle) {
        var missing = all & ~mask
        while missing != 0 {
            let bit = missing.trailingZeroBitCount
            sqlite3_bind_null(handle, Int32(bit + 1))
            missing &= missing - 1
        }
    }
}
