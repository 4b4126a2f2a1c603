import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Decides whether a statement being compiled may perform an action: receives the action, its two
    /// action-specific arguments, the database name and the innermost trigger or view.
    public typealias Authorizer = (AuthorizerAction, String?, String?, String?, String?) -> AuthorizerResult

    /// What a statement being compiled wants to do (SQLite's authorizer action codes).
    public enum AuthorizerAction: Int32, Sendable, CaseIterable {
        /// The operation a statement is about to perform, one case per SQLite action code in code
        /// order (`copy` is 0, `SQLITE_COPY`; `createIndex` is `SQLITE_CREATE_INDEX`; and so on).
        case copy = 0, createIndex, createTable, createTempIndex, createTempTable, createTempTrigger,
            createTempView, createTrigger, createView, delete, dropIndex, dropTable, dropTempIndex,
            dropTempTable, dropTempTrigger, dropTempView, dropTrigger, dropView, insert, pragma, read,
            select, transaction, update, attach, detach, alterTable, reindex, analyze, createVTable,
            dropVTable, function, savepoint, recursive
    }

    /// The authorizer's answer: allow, fail the statement ("not authorized"), or read NULL / skip.
    public enum AuthorizerResult: Sendable, Equatable {
        /// `ok` allows the action, `deny` fails the statement, `ignore` reads NULL or skips the action,
        /// and `custom` returns a raw SQLite result code.
        case ok, deny, ignore, custom(Int32)

        var code: Int32 {
            switch self {
            case .ok: return SQLITE_OK
            case .deny: return SQLITE_DENY
            case .ignore: return SQLITE_IGNORE
            case .custom(let code): return code
            }
        }
    }

    /// Installs (or with nil removes) an authorizer consulted while statements are compiled.
    ///
    /// ```swift
    /// try connection.authorizer { action, _, _, _, _ in action == .select ? .ok : .deny }
    /// ```
    /// Arguments 1 and 2 depend on the action (table and column for `.read`), 3 is the database
    /// name, 4 the trigger or view. An action code SQLite adds later is denied.
    /// See <https://www.sqlite.org/c3ref/set_authorizer.html>.
    public func authorizer(_ authorizer: Authorizer?) throws {
        // One authorizer serves the user and observation's recorders (see `AuthorizerHub`).
        authorizerHub.user = authorizer
        installAuthorizerHubIfNeeded(forceReinstall: authorizer != nil)
        // Statements compiled under the previous rules must not bypass the new ones.
        statementCache.removeAll()
    }

    /// Makes every `DELETE` on this connection remove its rows one by one from now on, also those
    /// compiled before (they are compiled again): what records changes (a session, the
    /// pre-update hook) must see each row go, which SQLite's truncate shortcut for a `DELETE`
    /// without `WHERE` skips. Once set, it stays.
    package func deleteRowByRow() {
        guard !authorizerHub.deletesRowByRow else { return }
        authorizerHub.deletesRowByRow = true
        installAuthorizerHubIfNeeded(forceReinstall: true)
        statementCache.removeAll()
    }

    /// Runs `body` with `inspector` hearing every authorizer action of the statements compiled
    /// meanwhile (SQLite's action code, its two arguments, the database, and the innermost
    /// trigger or view): for a layer that learns what a statement, with its triggers, would do
    /// without running it. Those compiles are bookkeeping, which the user's authorizer does not hear.
    package func inspectingCompiles<T>(
        _ inspector: @escaping (Int32, String?, String?, String?, String?) -> Void,
        _ body: () throws -> T
    ) rethrows -> T {
        let previous = authorizerHub.inspector
        authorizerHub.inspector = inspector
        installAuthorizerHubIfNeeded(forceReinstall: true)
        defer {
            authorizerHub.inspector = previous
            installAuthorizerHubIfNeeded(forceReinstall: false)
        }
        // The layer's own compiles: the user's authorizer and trace never hear of them.
        return try withBookkeeping(body)
    }
}
