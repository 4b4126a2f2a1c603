import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// Running a cached statement once without a `Statement` object: generated record writes run one
// statement per call (an INSERT per record), and allocating, retaining and freeing a `Statement`
// for each was a tenth of an insert's cost. The fast path binds onto the handle and steps once;
// anything but SQLITE_DONE goes through a `Statement` as every other call does.
extension Connection {
    /// The statement cached under `key`, prepared on first use (or afresh when an enclosing call
    /// is using the cached one), marked in use: the caller resets it and clears `isInUse`.
    package func checkOutStatement(cachedFor key: StatementCacheKey) throws -> PreparedStatement {
        let prepared: PreparedStatement
        if let cached = statementCache.available(for: key) {
            prepared = cached
        } else {
            prepared = try PreparedStatement.prepare(key.sql, on: self, persistent: true)
            statementCache.insert(prepared, for: key)
        }
        prepared.isInUse = true
        return prepared
    }

    /// Runs the statement cached under `key` to completion once: `bind` binds its parameters
    /// onto the handle and returns nil, or the first failing `sqlite3_bind_*` result and its
    /// parameter index, which is thrown as the connection's error. The statement is reset
    /// afterwards, keeping its bindings for the next call to overwrite.
    /// - Throws: `SQLiteError` for a failed bind or step (a constraint, a missing table).
    package func runCachedStatement(
        _ key: StatementCacheKey,
        binding bind: (SQLiteStatementHandle) throws -> (code: Int32, index: Int32)?
    ) throws {
        let prepared = try checkOutStatement(cachedFor: key)
        defer {
            prepared.reset()
            prepared.isInUse = false
        }
        if let failure = try bind(prepared.handle) {
            try bindFailed(prepared, code: failure.code, index: failure.index)
        }
        try runToCompletion(prepared)
    }

    /// Throws the connection's error for a failed `sqlite3_bind_*` on a checked-out statement.
    package func bindFailed(_ prepared: PreparedStatement, code: Int32, index: Int32) throws {
        try Statement(connection: self, prepared: prepared).checkBind(code, index: index)
    }

    /// Runs the statement cached under `key` once, to completion, with `arguments` bound in
    /// order: for a layer's own statement run once per call (a replica's outbox row), without a
    /// `Statement` object or the SQL hashed.
    /// - Throws: `SQLiteError` for a failed bind or step.
    package func runCachedStatement(_ key: StatementCacheKey, arguments: [BindingValue]) throws {
        try runCachedStatement(key) { handle in
            for (offset, value) in arguments.enumerated() {
                let code = value.bind(to: handle, at: Int32(offset + 1))
                if code != SQLITE_OK { return (code, Int32(offset + 1)) }
            }
            return nil
        }
    }

    /// Steps a checked-out statement, its parameters bound, to completion: one `sqlite3_step`
    /// when it is done at once; a row, a lock to retry or an error take a `Statement`'s path.
    package func runToCompletion(_ prepared: PreparedStatement) throws {
        let code = sqlite3_step(prepared.handle)
        if code == SQLITE_DONE {
            prepared.executionFinished(on: self)
            return
        }
        // A row (INSERT … RETURNING), a lock to retry or an error: the general path.
        let statement = Statement(connection: self, prepared: prepared)
        if code == SQLITE_ROW {
            statement.firstRowProduced()
        } else if try !statement.stepFailed(code) {
            return
        }
        while try statement.step() {}
    }
}

extension PreparedStatement {
    /// Bookkeeping at the end of an execution (SQLITE_DONE): a statement that produced no row
    /// starts its execution here, and the access monitor hears of its end, so it sees the commit
    /// that ends an autocommit statement.
    func executionFinished(on connection: Connection) {
        let afterRow = hasProducedRow
        if !afterRow { executionStarted() }
        hasProducedRow = false
        awaitsEndReport = false
        if !connection.executionObservers.isEmpty { connection.notifyStatementEnded(self, afterRow: afterRow) }
        // Reset now rather than rely on SQLite doing it at the next step: a SQLite built with
        // SQLITE_OMIT_AUTORESET (Apple's) answers a second step, or a bind, with SQLITE_MISUSE.
        sqlite3_reset(handle)
    }
}
