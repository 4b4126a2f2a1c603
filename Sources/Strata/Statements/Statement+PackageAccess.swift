import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// What Strata's own modules (the ORM) need to bind values one parameter at a time through key
// paths, without boxing them: `package` access, so it never reaches clients.
extension Statement {
    /// The `sqlite3_stmt *`, to pass to `Bindable.bind(to:at:)`.
    package var statementHandle: SQLiteStatementHandle { handle }

    /// Resets the statement for a new execution, keeping its bindings.
    package func resetKeepingBindings() { resetForNewExecution() }

    /// Throws the connection's error for a failed `sqlite3_bind_*` result (no-op for `SQLITE_OK`).
    package func checkBindResult(_ code: Int32, index: Int32) throws { try checkBind(code, index: index) }

    /// Binds `value` (NULL when nil) to the 1-based parameter `index`, throwing SQLite's error;
    /// no reset, so a caller binding every parameter of a cached statement pays nothing extra.
    @inline(__always)
    package final func bindValue(_ value: Bindable?, toParameter index: Int32) throws {
        let code = try value?.bind(to: handle, at: index) ?? sqlite3_bind_null(handle, index)
        if code != SQLITE_OK { try checkBind(code, index: index) }
    }
}
