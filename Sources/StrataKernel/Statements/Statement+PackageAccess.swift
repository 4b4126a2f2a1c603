import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// What Strata's own modules (the ORM) need to bind values one parameter at a time through key
// paths, without boxing them: `package` access, so it never reaches clients.
extension Statement {
    /// The `sqlite3_stmt *`, to pass to `Bindable.bind(to:at:)`.
    @inlinable package var statementHandle: SQLiteStatementHandle { handle }

    /// Resets the statement for a new execution, keeping its bindings.
    package func resetKeepingBindings() { resetForNewExecution() }

    /// Throws the connection's error for a failed `sqlite3_bind_*` result (no-op for `SQLITE_OK`).
    package func checkBindResult(_ code: Int32, index: Int32) throws { try checkBind(code, index: index) }

    /// The index of the parameter named `name`, with its prefix (`":id"`) or without it (`"id"`
    /// for the first of `:id`, `@id`, `$id`), or 0. The statement reads its parameter names once,
    /// so a layer that binds by name row after row builds no prefixed strings to ask SQLite.
    package final func indexOfParameter(bareOrPrefixedName name: String) -> Int32 {
        prepared.parameterNames.indexOfParameter(bareOrPrefixedName: name)
    }

    /// Binds `value` (NULL when nil) to the 1-based parameter `index`, throwing SQLite's error;
    /// no reset, so a caller binding every parameter of a cached statement pays nothing extra.
    @inline(__always)
    package final func bindValue(_ value: Bindable?, toParameter index: Int32) throws {
        let code = try value?.bind(to: handle, at: index) ?? sqlite3_bind_null(handle, index)
        if code != SQLITE_OK { try checkBind(code, index: index) }
    }
}

// Per-statement state of the layers above the kernel (a reader type's column indexes): kept on the
// compiled statement, which forgets it when SQLite re-prepares it after a schema change.
extension Statement {
    /// What a layer stored for `key` with ``storeStatementCache(_:for:)``, while the statement's
    /// compiled form is the one it was derived from; nil otherwise, or when another key replaced it.
    @inline(__always)
    package final func statementCache<Value: AnyObject>(for key: ObjectIdentifier, as type: Value.Type = Value.self) -> Value? {
        prepared.layerCache(for: key, as: type)
    }

    /// Keeps `value` for `key` on this compiled statement (one entry per statement: the last
    /// store wins), until SQLite re-prepares it.
    package final func storeStatementCache(_ value: AnyObject, for key: ObjectIdentifier) {
        prepared.storeLayerCache(value, for: key)
    }
}
