import StrataKernel
import Foundation

extension Connection {
    /// Whether `PRAGMA foreign_keys` is on for this connection.
    ///
    /// - Throws: `SQLiteError` if the pragma cannot be read.
    public func foreignKeysEnabled() throws -> Bool {
        let value: Int? = try withBookkeeping { try query("PRAGMA foreign_keys") }
        return value == 1
    }

    /// Runs `body` with foreign key enforcement off, then restores the previous setting.
    ///
    /// Schema changes that drop and recreate a table (``rebuildTable(named:definition:copying:tableOptions:)``)
    /// need enforcement off, and SQLite ignores `PRAGMA foreign_keys` inside a transaction, so
    /// wrap the *whole* transaction:
    /// ```swift
    /// try connection.withForeignKeysDisabled {
    ///     try connection.transaction { try connection.rebuildTable(named: "t", definition: "...", copying: []) }
    /// }
    /// ```
    /// Inside a transaction the setting cannot change: `body` runs as is when enforcement is
    /// already off. See <https://www.sqlite.org/foreignkeys.html#fk_enable>.
    /// - Throws: ``TableRebuildError/foreignKeysEnabledInTransaction(table:)`` when called inside a
    ///   transaction with enforcement on; otherwise whatever `body` throws.
    @discardableResult
    public func withForeignKeysDisabled<T>(_ body: () throws -> T) throws -> T {
        let wasEnabled = try foreignKeysEnabled()
        guard wasEnabled else { return try body() }
        if isInTransaction { throw TableRebuildError.foreignKeysEnabledInTransaction(table: "") }
        try withBookkeeping { try execute("PRAGMA foreign_keys = OFF") }
        defer { withBookkeeping { _ = try? execute("PRAGMA foreign_keys = ON") } }
        return try body()
    }
}
