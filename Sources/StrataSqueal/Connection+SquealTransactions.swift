import Foundation
import Strata

/// What a Squeal-style `transaction { db in ... }` block asks for when it returns.
public enum TransactionResult: Sendable, Equatable {
    /// Commit the transaction.
    case Commit
    /// Roll the transaction back.
    case Rollback
}

/// What a Squeal-style `savepoint("name") { db in ... }` block asks for when it returns.
public enum SavepointResult: Sendable, Equatable {
    /// Keep the savepoint's changes (`RELEASE`).
    case Release
    /// Undo the savepoint's changes (`ROLLBACK TO`, then `RELEASE`).
    case Rollback
}

/// Squeal's transaction and savepoint spellings, beside SQift's closure forms.
extension Connection {
    /// Begins a deferred transaction (`BEGIN`).
    ///
    /// - Throws: `SQLiteError`, e.g. when a transaction is already open.
    public func beginTransaction() throws {
        try beginTransaction(.deferred)
    }

    /// Commits the open transaction.
    ///
    /// - Throws: `SQLiteError` when no transaction is open or the commit fails.
    public func commit() throws {
        try commitTransaction()
    }

    /// Rolls back the open transaction.
    ///
    /// - Throws: `SQLiteError` when no transaction is open.
    public func rollback() throws {
        try rollbackTransaction()
    }

    /// Runs `block` in a transaction: committed when it returns, rolled back and the error
    /// rethrown when it (or the COMMIT) throws. Squeal 1.2's form.
    ///
    /// ```swift
    /// try db.transaction {
    ///     try db.insertInto("people", values: ["name": "Amelia"])
    ///     try db.insertInto("people", values: ["name": "Brian"])
    /// }
    /// ```
    /// - Throws: the block's error, or `SQLiteError` from BEGIN/COMMIT.
    public func transaction(_ block: () throws -> Void) throws {
        try transaction(transactionType: .deferred, closure: block)
    }

    /// Runs `block` in a transaction, committing or rolling back as it returns; rolls back and
    /// rethrows when it (or the COMMIT) throws.
    ///
    /// ```swift
    /// try db.transaction { db in
    ///     try db.insertInto("contacts", values: ["name": "Amelia", "email": "amelia@example.com"])
    ///     return .Commit
    /// }
    /// ```
    /// - Throws: the block's error, or `SQLiteError` from BEGIN/COMMIT/ROLLBACK.
    @discardableResult
    public func transaction(_ block: (Connection) throws -> TransactionResult) throws -> TransactionResult {
        try beginTransaction()
        let result: TransactionResult
        do {
            result = try block(self)
            switch result {
            case .Commit: try commit()
            case .Rollback: try rollback()
            }
        } catch {
            if isInTransaction { try? rollback() }
            throw error
        }
        return result
    }

    /// Opens a savepoint named `name` (quoted).
    ///
    /// - Throws: `SQLiteError` when SQLite refuses it.
    public func beginSavepoint(_ name: String) throws {
        try openSavepoint(name)
    }

    /// Rolls back to the savepoint named `name`, which stays open.
    ///
    /// - Throws: `SQLiteError` when there is no such savepoint.
    public func rollbackSavepoint(_ name: String) throws {
        try rollbackToSavepoint(named: name)
    }

    /// Releases the savepoint named `name` (and any opened after it).
    ///
    /// - Throws: `SQLiteError` when there is no such savepoint or the implied commit fails.
    public func releaseSavepoint(_ name: String) throws {
        try releaseSavepoint(named: name)
    }

    /// Runs `block` in a savepoint: released when it returns; rolled back, released and the error
    /// rethrown when it throws. Squeal 1.2's form. A savepoint opened outside any transaction is
    /// its own transaction, so a failed one leaves nothing open.
    ///
    /// ```swift
    /// try db.savepoint("insert_people") {
    ///     try db.insertInto("people", values: ["name": "Amelia"])
    /// }
    /// ```
    /// - Throws: the block's error, or `SQLiteError` from the savepoint statements.
    public func savepoint(_ name: String, block: () throws -> Void) throws {
        try savepoint(named: name, closure: block)
    }

    /// Runs `block` in a savepoint, released or rolled back as it returns; rolled back, released
    /// and rethrown when it throws. A savepoint opened outside any transaction is its own
    /// transaction, so a failed one leaves nothing open.
    ///
    /// ```swift
    /// try db.savepoint("import") { db in
    ///     try db.deleteFrom("contacts")
    ///     return .Release
    /// }
    /// ```
    /// - Throws: the block's error, or `SQLiteError` from the savepoint statements.
    @discardableResult
    public func savepoint(_ name: String, block: (Connection) throws -> SavepointResult) throws -> SavepointResult {
        let opensTransaction = !isInTransaction
        try beginSavepoint(name)
        let result: SavepointResult
        do {
            result = try block(self)
            if result == .Rollback { try rollbackSavepoint(name) }
            try releaseSavepoint(name)
        } catch {
            abandonSavepoint(named: name, openedTransaction: opensTransaction)
            throw error
        }
        return result
    }
}
