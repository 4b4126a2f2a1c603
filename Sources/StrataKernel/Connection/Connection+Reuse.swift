// Taking a connection back from a caller: what the caller left running on it (a statement still
// stepping, an open transaction) is ended, so the next caller starts from a fresh snapshot with no
// lock held. Called by PoolCore's check-in (ConnectionPool, Squeal's DatabasePool) and by the
// writer queue of a Database after each closure.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Resets the statements still running and rolls back an open transaction, reporting the
    /// misuse in debug builds.
    ///
    /// A read statement left running keeps its snapshot (the next caller would read old data) and
    /// holds back checkpoints; a transaction left open makes every later `BEGIN` fail.
    /// - Parameter owner: who takes the connection back, for the report.
    /// - Returns: what was left, one description each; empty when nothing was.
    @discardableResult
    package func endLeftoverWork(returningTo owner: String) -> [String] {
        // The common case, nothing open: two cheap reads. A statement that reads no database
        // opens no transaction, and left running it holds nothing.
        if sqlite3_get_autocommit(handle) != 0, sqlite3_txn_state(handle, nil) == SQLITE_TXN_NONE { return [] }
        var leftovers: [String] = []
        let inTransaction = isInTransaction
        var committedOnReset = false
        for statement in Self.busyStatementHandles(of: handle) {
            leftovers.append("a statement still running (\(sqlite3_sql(statement).map { String(cString: $0) } ?? "?"))")
            // Outside a transaction, resetting a writing statement commits what it wrote.
            if !inTransaction, sqlite3_stmt_readonly(statement) == 0 { committedOnReset = true }
            // A cached statement resets through its owner, which forgets the cut-short execution.
            if let prepared = statementCache.entry(compiledAs: statement) {
                prepared.reset()
            } else {
                sqlite3_reset(statement)
            }
        }
        if committedOnReset { noteWrites(.everything) }
        if isInTransaction {
            leftovers.append("an open transaction")
            do {
                try execute("ROLLBACK")
            } catch {
                leftovers.append("whose ROLLBACK failed (\(error))")
            }
        }
        #if DEBUG
        if !leftovers.isEmpty {
            let report =
                "Strata: a connection came back to \(owner) with " + leftovers.joined(separator: ", ")
                + "; Strata ended them. Finish statements and transactions before the closure returns.\n"
            FileHandle.standardError.write(Data(report.utf8))
        }
        #endif
        return leftovers
    }

    /// The statements of a connection that have started and not yet been reset or run to the end.
    private static func busyStatementHandles(of connection: SQLiteConnectionHandle) -> [SQLiteStatementHandle] {
        var busy: [SQLiteStatementHandle] = []
        var statement = sqlite3_next_stmt(connection, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { busy.append(current) }
            statement = sqlite3_next_stmt(connection, current)
        }
        return busy
    }
}
