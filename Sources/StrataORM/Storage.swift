import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A database with the tables of your model types: SQLiteORM's CRUD interface over Strata.
///
/// ```swift
/// let storage = try Storage(filename: path,
///                           Table<User>(name: "users",
///                                       Column(name: "id", keyPath: \User.id, constraints: primaryKey(), notNull()),
///                                       Column(name: "first_name", keyPath: \User.firstName, constraints: notNull())))
/// try storage.syncSchema(preserve: true)
/// let id = try storage.insert(object: User(id: 0, firstName: "John"))
/// ```
/// `""` and `":memory:"` open a private in-memory database. Every value reaches SQLite as a bound
/// parameter and every table and column name is quoted, so no name or value can change a query.
/// Statements are prepared once per storage and reused. A storage, like its `Connection`, is
/// used by one thread at a time.
public final class Storage {
    /// The connection the storage runs on, for anything the ORM does not cover.
    public let connection: Connection
    @usableFromInline let schema: Schema

    /// Opens the database at `filename` with the given tables.
    ///
    /// - Throws: `SQLiteError` when the database cannot be opened; `ORMError.invalidDefinition`
    ///   for an inconsistent table.
    // Disfavoured so `Storage(filename: path)`, with no table, is not ambiguous with `tables:`.
    @_disfavoredOverload
    public init(filename: String, _ tables: AnyTable...) throws {
        schema = try Schema(tables: tables)
        connection = try Connection(storageLocation: Storage.location(for: filename), flags: OpenFlags.make())
    }

    /// Opens the database at `filename` with the given tables (upstream's spelling).
    ///
    /// - Throws: `SQLiteError` or `ORMError.invalidDefinition`, as ``init(filename:_:)``.
    public init(filename: String, tables: AnyTable...) throws {
        schema = try Schema(tables: tables)
        connection = try Connection(storageLocation: Storage.location(for: filename), flags: OpenFlags.make())
    }

    /// Opens the database at `filename` with an array of tables.
    ///
    /// - Throws: `SQLiteError` or `ORMError.invalidDefinition`, as ``init(filename:_:)``.
    public init(filename: String, tables: [AnyTable]) throws {
        schema = try Schema(tables: tables)
        connection = try Connection(storageLocation: Storage.location(for: filename), flags: OpenFlags.make())
    }

    /// SQLiteORM's convention: an empty filename means in memory, as `":memory:"` does.
    static func location(for filename: String) -> StorageLocation {
        filename.isEmpty ? .inMemory : StorageLocation(path: filename)
    }

    // MARK: - Statements, from the connection's one cache

    /// Runs `body` with the table's `kind` statement from the connection's statement cache
    /// (prepared the first time), reset afterwards.
    @usableFromInline
    func withStatement<R>(
        _ kind: CRUDStatement, of table: AnyTable,
        _ body: (Strata.Statement, SQLiteStatementHandle) throws -> R
    ) throws -> R {
        try connection.withStatement(cachedFor: table.statementKey(kind)) { statement in
            try body(statement, statement.statementHandle)
        }
    }

    /// Runs the table's `kind` statement from the connection's statement cache to completion
    /// once, `bind` binding its parameters onto the handle (no `Statement` object per call, the
    /// way generated record writes run; observers hear the write as from any statement).
    @usableFromInline
    func runStatement(
        _ kind: CRUDStatement, of table: AnyTable,
        binding bind: (SQLiteStatementHandle) throws -> (code: Int32, index: Int32)?
    ) throws {
        try connection.runCachedStatement(table.statementKey(kind), binding: bind)
    }

    /// Runs `body` with the statement of a generated query (`where_`, `select`, ...), cached by its SQL.
    @usableFromInline
    func withStatement<R>(query sql: String, _ body: (Strata.Statement, SQLiteStatementHandle) throws -> R) throws -> R {
        try connection.withStatement(cachedFor: StatementCacheKey(sql: sql)) { statement in
            try body(statement, statement.statementHandle)
        }
    }

    /// Binds `arguments` to parameters 1...n of `statement`.
    @usableFromInline
    func bind(_ arguments: [any Strata.Bindable], to statement: Strata.Statement, handle: SQLiteStatementHandle) throws {
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code = try argument.bind(to: handle, at: index)
            if code != SQLITE_OK { try statement.checkBindResult(code, index: index) }
        }
    }

    /// Assigns the mapped columns of the current row to a new `T`, by position: the ORM's queries
    /// list the table's columns in order, so each column's index is known before the first row.
    @inlinable @inline(__always)
    func decode<T: Initializable>(_ table: Table<T>, from handle: SQLiteStatementHandle) throws -> T {
        var object = T()
        var index: Int32 = 0
        for read in table.readers {
            guard read(&object, handle, index) else { throw decodingError(table, column: Int(index)) }
            index += 1
        }
        return object
    }

    /// The error for a column whose stored value does not convert to its property's type.
    @usableFromInline
    func decodingError(_ table: AnyTable, column position: Int) -> ORMError {
        let column = table.columns[position]
        return ORMError.valueDoesNotConvert(table: table.name, column: column.name, type: "\(column.valueType)")
    }

    /// Throws the connection's error for a failed `sqlite3_bind_*`.
    @usableFromInline
    func bindFailed(_ statement: Strata.Statement, code: Int32, index: Int32) throws {
        try statement.checkBindResult(code, index: index)
    }
}
