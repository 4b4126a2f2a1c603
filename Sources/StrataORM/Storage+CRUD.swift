import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Storage {
    // MARK: - Insert and replace

    /// Inserts `object` and returns the key of the row stored, for `get(id:)`; a primary key that
    /// aliases the rowid (a single `INTEGER` key, not `DESC`) is left for SQLite to assign,
    /// whatever the object holds. Any other key, `INTEGER PRIMARY KEY DESC` included, is stored
    /// from the object, and a single integer one is what this returns; for a composite or
    /// non-integer key it returns the row's rowid.
    ///
    /// ```swift
    /// let insertedId = try storage.insert(object: user)
    /// ```
    /// - Throws: `ORMError.typeIsNotMapped`; `SQLiteError` for a failed constraint.
    @discardableResult @inlinable
    public func insert<T>(object: T) throws -> Int64 {
        try insert(object)
    }

    /// Inserts `object` and returns the key of the row stored, as ``insert(object:)`` (upstream's
    /// spelling).
    ///
    /// - Throws: `ORMError.typeIsNotMapped`; `SQLiteError` for a failed constraint.
    @discardableResult @inlinable
    public func insert<T>(_ object: T) throws -> Int64 {
        let table = try schema.table(for: T.self)
        try runStatement(.insert, of: table) { handle in
            try bindColumns(of: object, with: table.insertBinders, handle: handle)
        }
        return try insertedKey(of: table)
    }

    /// The key of the row of `table` just inserted: its rowid when the key aliases it (or there is
    /// no single key to read), otherwise the stored key read back by rowid, or the rowid when
    /// that key is not an integer.
    @usableFromInline
    func insertedKey(of table: AnyTable) throws -> Int64 {
        let rowid = connection.lastInsertRowID
        guard let readBack = table.insertedKeyStatement else { return rowid }
        return try connection.withStatement(cachedFor: readBack) { statement in
            try statement.bind([rowid])
            guard try statement.step(), let key = statement.value(at: 0, as: Int64.self) else { return rowid }
            return key
        }
    }

    /// Inserts `object` with every column, its primary key included, replacing the row that has
    /// the same key (`REPLACE INTO`).
    ///
    /// - Throws: `ORMError.typeIsNotMapped`; `SQLiteError` for a failed constraint.
    public func replace<T>(object: T) throws {
        try replace(object)
    }

    /// `REPLACE INTO` with every column (upstream's spelling).
    ///
    /// - Throws: `ORMError.typeIsNotMapped`; `SQLiteError` for a failed constraint.
    public func replace<T>(_ object: T) throws {
        let table = try schema.table(for: T.self)
        try runStatement(.replace, of: table) { handle in
            try bindColumns(of: object, with: table.binders, handle: handle)
        }
    }

    // MARK: - Get, update, delete by primary key

    /// The object whose primary key equals `id` (one value per key column), or nil.
    ///
    /// ```swift
    /// if let user: User = try storage.get(id: 1) { print(user.firstName) }
    /// ```
    /// - Throws: `ORMError.tableHasNoPrimaryKey`, `.primaryKeyCountMismatch`,
    ///   `.valueDoesNotConvert`; `SQLiteError`.
    public func get<T: Initializable>(id: Strata.Bindable...) throws -> T? {
        try get(ids: id)
    }

    func get<T: Initializable>(ids id: [Strata.Bindable]) throws -> T? {
        let table = try schema.table(for: T.self)
        let keys = try primaryKey(of: table)
        guard id.count == keys.count else {
            throw ORMError.primaryKeyCountMismatch(table: table.name, expected: keys.count, received: id.count)
        }
        return try withStatement(.get, of: table) { statement, handle in
            try bind(id, to: statement, handle: handle)
            guard try statement.step() else { return nil }
            return try decode(table, from: handle)
        }
    }

    /// Sets every non-key column of the row whose primary key equals the object's.
    ///
    /// ```swift
    /// user.firstName = "Nicholas"
    /// try storage.update(object: user)
    /// ```
    /// - Throws: `ORMError.tableHasNoPrimaryKey`; `SQLiteError` for a failed constraint.
    public func update<T>(object: T) throws {
        try update(object)
    }

    /// Updates the row of `object` by primary key (upstream's spelling).
    ///
    /// - Throws: `ORMError.tableHasNoPrimaryKey`; `SQLiteError` for a failed constraint.
    public func update<T>(_ object: T) throws {
        let table = try schema.table(for: T.self)
        _ = try primaryKey(of: table)
        let values = table.columns.indices.filter { !table.columns[$0].isPrimaryKey }
        guard !values.isEmpty else { return }
        try withStatement(.update, of: table) { statement, handle in
            var index: Int32 = 1
            for position in values {
                try bindColumn(position, of: object, in: table, to: statement, handle: handle, at: index)
                index += 1
            }
            for position in table.columns.indices where table.columns[position].isPrimaryKey {
                try bindColumn(position, of: object, in: table, to: statement, handle: handle, at: index)
                index += 1
            }
            while try statement.step() {}
        }
    }

    /// Deletes the row whose primary key equals the object's.
    ///
    /// - Throws: `ORMError.tableHasNoPrimaryKey`; `SQLiteError`.
    public func delete<T>(object: T) throws {
        try delete(object)
    }

    /// Deletes the row of `object` by primary key (upstream's spelling).
    ///
    /// - Throws: `ORMError.tableHasNoPrimaryKey`; `SQLiteError`.
    public func delete<T>(_ object: T) throws {
        let table = try schema.table(for: T.self)
        _ = try primaryKey(of: table)
        try withStatement(.delete, of: table) { statement, handle in
            var index: Int32 = 1
            for position in table.columns.indices where table.columns[position].isPrimaryKey {
                try bindColumn(position, of: object, in: table, to: statement, handle: handle, at: index)
                index += 1
            }
            while try statement.step() {}
        }
    }

    // MARK: - Helpers

    func primaryKey(of table: AnyTable) throws -> [AnyColumn] {
        let keys = table.primaryKeyColumns
        guard !keys.isEmpty else { throw ORMError.tableHasNoPrimaryKey(table: table.name) }
        return keys
    }

    /// Binds the properties `binders` read to parameters 1...n; nil, or the first failing
    /// `sqlite3_bind_*` result and its parameter, for ``runStatement(_:of:binding:)`` to throw.
    @inlinable @inline(__always)
    func bindColumns<T>(
        of object: T, with binders: [(T, SQLiteStatementHandle, Int32) throws -> Int32],
        handle: SQLiteStatementHandle
    ) throws -> (code: Int32, index: Int32)? {
        var index: Int32 = 1
        for bind in binders {
            let code = try bind(object, handle, index)
            if code != SQLITE_OK { return (code, index) }
            index += 1
        }
        return nil
    }

    @inline(__always)
    func bindColumn<T>(
        _ position: Int, of object: T, in table: Table<T>, to statement: Strata.Statement,
        handle: SQLiteStatementHandle, at index: Int32
    ) throws {
        let code = try table.binders[position](object, handle, index)
        if code != SQLITE_OK { try bindFailed(statement, code: code, index: index) }
    }
}
