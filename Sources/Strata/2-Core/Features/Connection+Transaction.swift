// Features of a connection, one per file: transactions, functions, collations, hooks, authorizer,
// trace, busy handling, checkpoints and backups.

import Foundation

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
        do {
            let result = try closure()
            try commitTransaction()
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
    /// See <https://www.sqlite.org/lang_savepoint.html>.
    @discardableResult
    public func savepoint<T>(named name: String, closure: () throws -> T) throws -> T {
        try openSavepoint(name)
        do {
            let result = try closure()
            try releaseSavepoint(named: name)
            return result
        } catch {
            try? rollbackToSavepoint(named: name)
            try? releaseSavepoint(named: name)
            throw error
        }
    }
}

// The transaction statements, written once: every transaction and savepoint form (SQift's,
// Squeal's, the ORM's, the rebuild's) goes through these, so names are quoted one way.
extension Connection {
    package func beginTransaction(_ type: TransactionType) throws {
        let type = type == .deferred && beginsDeferredTransactionsImmediately ? .immediate : type
        try execute("BEGIN \(type.rawValue) TRANSACTION")
    }

    package func commitTransaction() throws {
        try execute("COMMIT")
    }

    package func rollbackTransaction() throws {
        try execute("ROLLBACK")
    }

    package func openSavepoint(_ name: String) throws {
        try execute("SAVEPOINT " + quoteIdentifier(name))
    }

    package func releaseSavepoint(named name: String) throws {
        try execute("RELEASE SAVEPOINT " + quoteIdentifier(name))
    }

    package func rollbackToSavepoint(named name: String) throws {
        try execute("ROLLBACK TO SAVEPOINT " + quoteIdentifier(name))
    }
}
