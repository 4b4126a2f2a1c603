/// ``Storage`` with `Result` returns instead of throws, as upstream SQLiteORM offers it.
///
/// ```swift
/// let storage = try SafeStorage(filename: "", tables: usersTable)
/// switch storage.insert(user) {
/// case .success(let id): print(id)
/// case .failure(let error): print(error)   // an ORMError; SQLite's errors as .sqliteError
/// }
/// ```
public final class SafeStorage {
    /// The throwing storage underneath.
    public let storage: Storage

    /// Opens the database at `filename` with the given tables, in the seed README's spelling
    /// (`SafeStorage(filename: path, usersTable, typesTable)`).
    ///
    /// - Throws: as ``Storage/init(filename:_:)``.
    // Disfavoured so `Storage(filename: path)`, with no table, is not ambiguous with `tables:`.
    @_disfavoredOverload
    public init(filename: String, _ tables: AnyTable...) throws {
        storage = try Storage(filename: filename, tables: tables)
    }

    /// Opens the database at `filename` with the given tables.
    ///
    /// - Throws: as ``Storage/init(filename:_:)``.
    public init(filename: String, tables: AnyTable...) throws {
        storage = try Storage(filename: filename, tables: tables)
    }

    /// Opens the database at `filename` with an array of tables.
    ///
    /// - Throws: as ``Storage/init(filename:_:)``.
    public init(filename: String, tables: [AnyTable]) throws {
        storage = try Storage(filename: filename, tables: tables)
    }

    func result<R>(_ body: () throws -> R) -> Result<R, ORMError> {
        do { return .success(try body()) } catch { return .failure(ORMError(wrapping: error)) }
    }

    /// ``Storage/syncSchema(preserve:)``.
    @discardableResult
    public func syncSchema(preserve: Bool) -> Result<[String: SyncSchemaResult], ORMError> {
        result { try storage.syncSchema(preserve: preserve) }
    }

    /// ``Storage/insert(_:)``.
    @discardableResult
    public func insert<T>(_ object: T) -> Result<Int64, ORMError> { result { try storage.insert(object) } }
    /// ``Storage/insert(object:)``.
    @discardableResult
    public func insert<T>(object: T) -> Result<Int64, ORMError> { insert(object) }
    /// ``Storage/replace(_:)``.
    @discardableResult
    public func replace<T>(_ object: T) -> Result<Void, ORMError> { result { try storage.replace(object) } }
    /// ``Storage/replace(object:)``.
    @discardableResult
    public func replace<T>(object: T) -> Result<Void, ORMError> { replace(object) }
    /// `Storage.get(id:)`.
    public func get<T: Initializable>(id: Strata.Bindable...) -> Result<T?, ORMError> {
        result { try storage.get(ids: id) }
    }
    /// ``Storage/update(_:)``.
    @discardableResult
    public func update<T>(_ object: T) -> Result<Void, ORMError> { result { try storage.update(object) } }
    /// ``Storage/update(object:)``.
    @discardableResult
    public func update<T>(object: T) -> Result<Void, ORMError> { update(object) }
    /// ``Storage/delete(_:)``.
    @discardableResult
    public func delete<T>(_ object: T) -> Result<Void, ORMError> { result { try storage.delete(object) } }
    /// ``Storage/delete(object:)``.
    @discardableResult
    public func delete<T>(object: T) -> Result<Void, ORMError> { delete(object) }
    /// ``Storage/getAll(_:)``.
    public func getAll<T: Initializable>(_ constraints: SelectConstraint...) -> Result<[T], ORMError> {
        result { try storage.getAll(all: T.self, constraints) }
    }
    /// ``Storage/getAll(all:_:)``.
    public func getAll<T: Initializable>(all type: T.Type, _ constraints: SelectConstraint...) -> Result<[T], ORMError> {
        result { try storage.getAll(all: type, constraints) }
    }
    /// ``Storage/forEach(_:_:callback:)``.
    @discardableResult
    public func forEach<T: Initializable>(_ type: T.Type, _ constraints: SelectConstraint..., callback: (T) throws -> Void) -> Result<Void, ORMError> {
        result { try storage.forEach(type, constraints, callback: callback) }
    }
    /// ``Storage/update(all:_:_:)``.
    @discardableResult
    public func update<T>(all type: T.Type, _ set: SetClause, _ constraints: SelectConstraint...) -> Result<Void, ORMError> {
        result { try storage.update(all: type, set, constraints) }
    }
    /// ``Storage/delete(all:_:)``.
    @discardableResult
    public func delete<T>(all type: T.Type, _ constraints: SelectConstraint...) -> Result<Void, ORMError> {
        result { try storage.delete(all: type, constraints) }
    }
    /// ``Storage/count(all:_:)``.
    public func count<T>(all type: T.Type, _ constraints: SelectConstraint...) -> Result<Int, ORMError> {
        result { try storage.count(all: type, constraints) }
    }
    /// ``Storage/beginTransaction()``.
    @discardableResult
    public func beginTransaction() -> Result<Void, ORMError> { result { try storage.beginTransaction() } }
    /// ``Storage/commit()``.
    @discardableResult
    public func commit() -> Result<Void, ORMError> { result { try storage.commit() } }
    /// ``Storage/rollback()``.
    @discardableResult
    public func rollback() -> Result<Void, ORMError> { result { try storage.rollback() } }
    /// ``Storage/tableExists(with:)``.
    public func tableExists(with name: String) -> Result<Bool, ORMError> { result { try storage.tableExists(with: name) } }
}
