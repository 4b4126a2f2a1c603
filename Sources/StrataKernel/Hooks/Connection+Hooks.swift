// Hooks: what SQLite calls back on a connection (commit, rollback and update hooks, trace, the
// event handler's statements), each closure kept alive while it is registered. The authorizer
// and the event handler's types are the kernel's (Connection/): every statement passes them.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Receives the kind of change, the database name, the table name and the changed row’s rowid.
    public typealias UpdateHook = (UpdateHookType, String?, String?, Int64) -> Void
    /// Called before a commit; returning true turns the commit into a rollback.
    public typealias CommitHook = () -> Bool
    /// Called after a transaction rolls back.
    public typealias RollbackHook = () -> Void

    /// The change an update hook reports.
    public enum UpdateHookType: Sendable {
        /// The statement kind that changed the row: an INSERT, an UPDATE or a DELETE.
        case insert, update, delete

        package init?(code: Int32) {
            switch code {
            case SQLITE_INSERT: self = .insert
            case SQLITE_UPDATE: self = .update
            case SQLITE_DELETE: self = .delete
            default: return nil
            }
        }
    }

    /// Calls `hook` after each row inserted, updated or deleted (not for WITHOUT ROWID tables);
    /// nil unregisters it. The hook must not use the connection.
    ///
    /// See <https://www.sqlite.org/c3ref/update_hook.html>.
    public func updateHook(_ hook: UpdateHook?) {
        registerCallback("update", hook) { handle, pointer in
            sqlite3_update_hook(
                handle,
                pointer.map { _ in
                    { pointer, code, database, table, rowID in
                        guard let pointer, let type = UpdateHookType(code: code) else { return }
                        let text: (UnsafePointer<CChar>?) -> String? = { $0.map { String(cString: $0) } }
                        CallbackBox<UpdateHook>.from(pointer)(type, text(database), text(table), rowID)
                    }
                }, pointer)
        }
    }

    /// Calls `hook` before each commit; returning true turns the commit into a rollback (the
    /// COMMIT fails with `SQLITE_CONSTRAINT_COMMITHOOK`). nil unregisters it.
    public func commitHook(_ hook: CommitHook?) {
        registerCallback("commit", hook) { handle, pointer in
            sqlite3_commit_hook(
                handle,
                pointer.map { _ in
                    { pointer in
                        guard let pointer else { return 0 }
                        return CallbackBox<CommitHook>.from(pointer)() ? 1 : 0
                    }
                }, pointer)
        }
    }

    /// Calls `hook` whenever a transaction rolls back; nil unregisters it.
    public func rollbackHook(_ hook: RollbackHook?) {
        registerCallback("rollback", hook) { handle, pointer in
            sqlite3_rollback_hook(
                handle,
                pointer.map { _ in
                    { pointer in
                        guard let pointer else { return }
                        CallbackBox<RollbackHook>.from(pointer)()
                    }
                }, pointer)
        }
    }

    /// Installs or removes a callback that SQLite holds without a destroy function: the box
    /// lives in `callbackBoxes` under `key` until the callback is replaced or removed, and
    /// `install` receives its pointer (nil to unregister).
    func registerCallback<Value>(_ key: String, _ value: Value?, install: (SQLiteConnectionHandle, UnsafeMutableRawPointer?) throws -> Void) rethrows {
        let box = value.map(CallbackBox.init)
        try install(handle, box?.unretainedPointer())
        callbackBoxes[key] = box
    }
}
