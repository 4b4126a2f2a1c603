// Transactions: BEGIN/COMMIT/ROLLBACK and savepoints on a connection, as SQift spells them.

import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// Runs `closure` inside a transaction: committed when it returns, rolled back when it (or the
    /// COMMIT) throws, and the error rethrown.
    ///
    /// ```swift
    /// try connection.transaction {
    ///     try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 1, "Audi", 52_642)
    ///     try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 2, "Mercedes", 57_127)
    /// }
    /// ```
    /// Transactions do not nest in SQLite; use ``savepoint(named:closure:)`` inside one.
    /// See <https://www.sqlite.org/lang_transaction.html>.
    @discardableResult
    public func transaction<T>(transactionType: TransactionType = .deferred, closure: () throws -> T) throws -> T {
        try beginTransaction(transactionType)
        transactionWrapperBegan()
        defer { transactionWrapperEnded() }
        do {
            let result = try closure()
            try throwIfTransactionEndedBySQLite()
            try endingWrapper { try commitTransaction() }
            return result
        } catch {
            if isInTransaction { try? rollbackTransaction() }
            throw error
        }
    }

    /// Runs `closure` inside a savepoint: released when it returns; on error rolled back to the
    /// savepoint, released, and the error rethrown. Savepoints nest, inside or outside a transaction.
    ///
    /// ```swift
    /// try connection.savepoint(named: "import") { try connection.run("DELETE FROM cars") }
    /// ```
    /// A savepoint opened outside any transaction is the transaction: when it fails, or SQLite
    /// refuses the COMMIT its release stands for (`SQLITE_BUSY`), it is rolled back whole, so no
    /// transaction stays open. See <https://www.sqlite.org/lang_savepoint.html>.
    /// - Throws: what `closure` throws, or `SQLiteError` from the savepoint statements.
    @discardableResult
    public func savepoint<T>(named name: String, closure: () throws -> T) throws -> T {
        try savepoint(named: name, asBookkeeping: false, closure: closure)
    }

    /// A savepoint under a name Strata invents (a migration, a rebuild): its SAVEPOINT, RELEASE
    /// and ROLLBACK TO are bookkeeping, hidden from the user's trace and authorizer, while the
    /// statements `closure` runs stay visible.
    package func strataSavepoint<T>(named name: String, closure: () throws -> T) throws -> T {
        try savepoint(named: name, asBookkeeping: true, closure: closure)
    }

    private func savepoint<T>(named name: String, asBookkeeping: Bool, closure: () throws -> T) throws -> T {
        func statements<R>(_ body: () throws -> R) rethrows -> R {
            asBookkeeping ? try withBookkeeping(body) : try body()
        }
        let opensTransaction = !isInTransaction
        try statements { try openSavepoint(name) }
        if opensTransaction { transactionWrapperBegan() }
        defer { if opensTransaction { transactionWrapperEnded() } }
        do {
            let result = try closure()
            if opensTransaction {
                try throwIfTransactionEndedBySQLite()
            } else if let ended = transactionState.endedBySQLite {
                // SQLite ended the enclosing transaction: its error, not the RELEASE of a savepoint
                // that is gone. The transaction opened again in its place stays for the outer
                // wrapper to roll back, so nothing the caller runs next commits on its own.
                throw ended
            }
            try statements { opensTransaction ? try endingWrapper { try releaseSavepoint(named: name) } : try releaseSavepoint(named: name) }
            return result
        } catch {
            statements { abandonSavepoint(named: name, openedTransaction: opensTransaction) }
            throw error
        }
    }
}

/// What the transaction wrappers keep per connection, in a slot the kernel does not name; once a
/// wrapper runs, also the observer that hears of failed statements (SQLite may have rolled back
/// the wrapper's transaction).
final class TransactionState: ConnectionObserver {
    static let slot = ConnectionSlot { TransactionState() }
    /// See ``Connection/beginsDeferredTransactionsImmediately``.
    var beginsDeferredTransactionsImmediately = false
    /// The savepoints opened through `openSavepoint` inside a transaction Strata began IMMEDIATE
    /// for the outermost of them, oldest first; empty otherwise. Releasing the first one is the
    /// COMMIT it stands for.
    var savepointsInImmediateTransaction: [String] = []
    /// How many of Strata's transaction wrappers (`transaction`, a savepoint that opened the
    /// transaction) are running on the connection.
    var wrapperDepth = 0
    /// The error with which SQLite ended the transaction of a running wrapper by itself (an
    /// `OR ROLLBACK` conflict, a full disk); the wrapper throws it instead of committing.
    var endedBySQLite: SQLiteError?

    func statementFailed(_ error: SQLiteError, sql: String?, on connection: Connection) {
        if wrapperDepth > 0 { connection.checkTransactionSurvived(error) }
    }

    /// Nothing ran, so nothing SQLite did ended the transaction (as before observers).
    func statementFailedToCompile(_ error: SQLiteError, sql: String?, on connection: Connection) {}
}

extension Connection {
    var transactionState: TransactionState { state(in: TransactionState.slot) }

    /// Whether the DEFERRED transactions Strata begins on this connection, and the savepoints it
    /// opens outside a transaction, begin IMMEDIATE instead (default `false`).
    ///
    /// A connection that writes beside a WAL replicator such as Litestream takes the write lock
    /// at `BEGIN`, so a read followed by a write never fails to upgrade its lock
    /// (`SQLITE_BUSY_SNAPSHOT`) when the replicator has checkpointed in between. Opening a
    /// `Database` with `replicationSafety:` sets it on the writer; set it yourself on a writer you
    /// configure by hand. It changes only what Strata's transaction forms begin (`transaction`,
    /// `savepoint`, and the `Database` writes that are transactions: `write`,
    /// `writeInTransaction`); a `BEGIN` you execute as SQL is yours.
    ///
    /// ```swift
    /// let writer = try Connection(path: path)
    /// writer.beginsDeferredTransactionsImmediately = true
    /// try writer.transaction { try writer.execute("UPDATE counter SET n = n + 1") }   // BEGIN IMMEDIATE
    /// ```
    public var beginsDeferredTransactionsImmediately: Bool {
        get { transactionState.beginsDeferredTransactionsImmediately }
        set { transactionState.beginsDeferredTransactionsImmediately = newValue }
    }
}

// The transaction statements, written once: every transaction and savepoint form (SQift's,
// Squeal's, the ORM's, the rebuild's) goes through these, so names are quoted one way.
extension Connection {
    /// BEGIN and COMMIT as statements kept prepared in the connection's cache: each `read` of a
    /// `Database` is one snapshot, and compiling both anew cost about half of its overhead over
    /// a bare read (measured: 37,000 instructions a `read` of one row against 20,100 bare).
    private enum TransactionStatements {
        static let deferred = StatementCacheKey(reusing: "BEGIN DEFERRED TRANSACTION")
        static let immediate = StatementCacheKey(reusing: "BEGIN IMMEDIATE TRANSACTION")
        static let exclusive = StatementCacheKey(reusing: "BEGIN EXCLUSIVE TRANSACTION")
        static let commit = StatementCacheKey(reusing: "COMMIT")
    }

    package func beginTransaction(_ type: TransactionType) throws {
        let type = type == .deferred && transactionState.beginsDeferredTransactionsImmediately ? .immediate : type
        let key: StatementCacheKey
        switch type {
        case .deferred: key = TransactionStatements.deferred
        case .immediate: key = TransactionStatements.immediate
        case .exclusive: key = TransactionStatements.exclusive
        }
        try runCachedStatement(key, arguments: [])
        transactionState.savepointsInImmediateTransaction = []
    }

    package func commitTransaction() throws {
        try runCachedStatement(TransactionStatements.commit, arguments: [])
        transactionState.savepointsInImmediateTransaction = []
    }

    package func rollbackTransaction() throws {
        defer { forgetSavepointsOfEndedTransaction() }
        try execute("ROLLBACK")
    }

    /// Opens a savepoint. Outside a transaction SQLite begins a DEFERRED one for it; a writer that
    /// begins its transactions IMMEDIATE (under a replicator) begins one IMMEDIATE first, so a read
    /// then a write in the savepoint never fails to upgrade its lock (`SQLITE_BUSY_SNAPSHOT`).
    package func openSavepoint(_ name: String) throws {
        forgetSavepointsOfEndedTransaction()
        let sql = "SAVEPOINT " + quoteIdentifier(name)
        guard transactionState.beginsDeferredTransactionsImmediately, !isInTransaction else {
            try execute(sql)
            if !transactionState.savepointsInImmediateTransaction.isEmpty { transactionState.savepointsInImmediateTransaction.append(name) }
            return
        }
        try beginTransaction(.immediate)
        do {
            try execute(sql)
        } catch {
            try? rollbackTransaction()
            throw error
        }
        transactionState.savepointsInImmediateTransaction = [name]
    }

    /// Releases a savepoint (and those opened after it). Releasing the outermost savepoint of a
    /// transaction Strata began for it is a COMMIT, as a RELEASE of a savepoint that began the
    /// transaction would be; refused (`SQLITE_BUSY`), both leave the savepoint open.
    package func releaseSavepoint(named name: String) throws {
        forgetSavepointsOfEndedTransaction()
        guard let index = transactionState.savepointsInImmediateTransaction.lastIndex(where: { sameIdentifier($0, name) }) else {
            try execute("RELEASE SAVEPOINT " + quoteIdentifier(name))
            return
        }
        if index == 0 {
            try commitTransaction()
        } else {
            try execute("RELEASE SAVEPOINT " + quoteIdentifier(name))
            transactionState.savepointsInImmediateTransaction.removeSubrange(index...)
        }
    }

    /// Rolls back to a savepoint, which stays open; those opened after it are gone.
    package func rollbackToSavepoint(named name: String) throws {
        forgetSavepointsOfEndedTransaction()
        try execute("ROLLBACK TO SAVEPOINT " + quoteIdentifier(name))
        if let index = transactionState.savepointsInImmediateTransaction.lastIndex(where: { sameIdentifier($0, name) }) {
            transactionState.savepointsInImmediateTransaction.removeSubrange((index + 1)...)
        }
    }

    /// Undoes a savepoint after an error in it or in its release. One opened outside a transaction
    /// is the transaction, and SQLite keeps a transaction open when it refuses the COMMIT a release
    /// stands for: it is rolled back whole, so the connection is left outside any transaction. An
    /// inner one is rolled back to and released, leaving the enclosing transaction to its owner.
    package func abandonSavepoint(named name: String, openedTransaction: Bool) {
        if openedTransaction {
            if isInTransaction { try? rollbackTransaction() }
        } else {
            try? rollbackToSavepoint(named: name)
            try? releaseSavepoint(named: name)
        }
    }

    /// Called when a statement failed inside a transaction wrapper: when SQLite ended the
    /// transaction with the failure (`OR ROLLBACK`, or an I/O error, a full disk), what the wrapper
    /// wrote is gone, and statements run after it would each commit on their own. A transaction is
    /// opened again at once, so nothing the closure runs afterwards commits, and the wrapper rolls it
    /// back and throws instead of committing.
    func checkTransactionSurvived(_ error: SQLiteError) {
        guard transactionState.endedBySQLite == nil, !isInTransaction else { return }
        transactionState.endedBySQLite = SQLiteError(
            code: error.code,
            message: "the transaction was rolled back by SQLite (\(error.message)); nothing it wrote was committed",
            extendedCode: error.extendedCode
        )
        withBookkeeping { _ = sqlite3_exec(handle, "BEGIN", nil, nil, nil) }
    }

    /// The error with which SQLite ended the running wrapper's transaction by itself, if it did:
    /// the wrapper has begun another so the statements after it do not run in autocommit, and
    /// throws this one at its end, so a layer inside it can stop early.
    package var transactionEndedBySQLite: SQLiteError? { transactionState.endedBySQLite }

    /// Throws, after rolling back what ran since, when SQLite ended the wrapper's transaction.
    func throwIfTransactionEndedBySQLite() throws {
        guard let error = transactionState.endedBySQLite else { return }
        if isInTransaction { try? rollbackTransaction() }
        throw error
    }

    /// Runs the wrapper's own COMMIT (or outermost RELEASE): when SQLite refuses it (a commit hook,
    /// a deferred foreign key) it rolls back itself, which is the wrapper's failure, not a statement
    /// ending the transaction under the closure.
    private func endingWrapper<R>(_ body: () throws -> R) rethrows -> R {
        let state = transactionState
        let depth = state.wrapperDepth
        state.wrapperDepth = 0
        defer { state.wrapperDepth = depth }
        return try body()
    }

    private func transactionWrapperBegan() {
        let state = transactionState
        state.wrapperDepth += 1
        addObserver(state)
    }

    private func transactionWrapperEnded() {
        let state = transactionState
        state.wrapperDepth -= 1
        if state.wrapperDepth == 0 { state.endedBySQLite = nil }
    }

    /// The tracked savepoints belong to a transaction that has ended (a COMMIT or ROLLBACK run as
    /// SQL, or an error SQLite rolled back): forget them.
    private func forgetSavepointsOfEndedTransaction() {
        if !transactionState.savepointsInImmediateTransaction.isEmpty, !isInTransaction { transactionState.savepointsInImmediateTransaction = [] }
    }
}
