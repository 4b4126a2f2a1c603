import Foundation
import Strata

/// Squeal's single-value and row queries on raw SQL; values in `parameters` are bound.
/// The values convert as Squeal's getters do (see ``Statement/intValueAtIndex(_:)``).
extension Connection {
    /// The first column of the first row as an `Int`, or nil for no row or NULL.
    ///
    /// ```swift
    /// let count = try db.selectInt("SELECT count(*) FROM contacts WHERE email LIKE ?", parameters: ["%.xyz"])
    /// ```
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func selectInt(_ sql: SQL, parameters: [Bindable?] = []) throws -> Int? {
        try selectFirst(sql, parameters: parameters) { $0.intValueAtIndex(0) } ?? nil
    }

    /// The first column of the first row as an `Int64`, or nil.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func selectInt64(_ sql: SQL, parameters: [Bindable?] = []) throws -> Int64? {
        try selectFirst(sql, parameters: parameters) { $0.int64ValueAtIndex(0) } ?? nil
    }

    /// The first column of the first row as a `Double`, or nil.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func selectDouble(_ sql: SQL, parameters: [Bindable?] = []) throws -> Double? {
        try selectFirst(sql, parameters: parameters) { $0.doubleValueAtIndex(0) } ?? nil
    }

    /// The first column of the first row as a `String`, or nil.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func selectString(_ sql: SQL, parameters: [Bindable?] = []) throws -> String? {
        try selectFirst(sql, parameters: parameters) { $0.stringValueAtIndex(0) } ?? nil
    }

    /// The first column of the first row as a `Bool` (non-zero is true), or nil.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func selectBool(_ sql: SQL, parameters: [Bindable?] = []) throws -> Bool? {
        try selectFirst(sql, parameters: parameters) { $0.boolValueAtIndex(0) } ?? nil
    }

    /// Maps the first row with `block`, or returns nil when there is none.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a failing step; the block's error.
    public func selectFirst<T>(_ sql: SQL, parameters: [Bindable?] = [], block: (Statement) throws -> T) throws -> T? {
        try withStatement(cachedFor: sql, .positional(parameters)) { statement in
            try statement.step() ? try block(statement) : nil
        }
    }

    /// Maps every row with `block`.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a failing step; the block's error.
    @inlinable // specialized for the caller's `T`
    public func selectAll<T>(_ sql: SQL, parameters: [Bindable?] = [], block: (Statement) throws -> T) throws -> [T] {
        try withStatement(cachedFor: sql, .positional(parameters)) { statement in
            var results: [T] = []
            while try statement.step() {
                results.append(try block(statement))
            }
            return results
        }
    }
}
