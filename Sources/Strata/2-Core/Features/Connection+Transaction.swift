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
        try execute("BEGIN \(transactionType.rawValue) TRANSACTION")
        do {
            let result = try closure()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
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
        let name = name.sqift.addingSQLEscapes()
        try execute("SAVEPOINT \(name)")
        do {
            let result = try closure()
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }
}
