import Foundation
import Strata

/// Squeal's stepping API: `next()`, `reset()` (bindings kept), `execute`, `select` and the
/// `selectNext...` reads. Blocks receive the statement positioned on the current row.
extension Statement {
    /// Steps to the next row: true when one is current, false when the statement is done.
    ///
    /// ```swift
    /// let statement = try db.prepareSelectFrom("contacts", orderBy: "name")
    /// while try statement.next() { print(statement.stringValue("name") ?? "-") }
    /// ```
    /// - Throws: `SQLiteError` when the step fails.
    public final func next() throws -> Bool {
        try step()
    }

    /// Rewinds the statement to run again, keeping its bound parameters.
    ///
    /// - Throws: never today; kept throwing for code written for Squeal.
    public final func reset() throws {
        resetKeepingBindings()
    }

    /// Runs the statement to completion, after binding `parameters` when given (otherwise with
    /// the parameters already bound).
    ///
    /// - Throws: `SQLiteError` for a failing step or a parameter count that does not match.
    public final func execute(_ parameters: [Bindable?]? = nil) throws {
        try rewind(binding: parameters)
        try run()
    }

    /// Runs the statement from the start and maps every row with `block`, after binding
    /// `parameters` when any are given.
    ///
    /// - Throws: `SQLiteError` for a failing step; the block's error.
    public final func select<T>(_ parameters: [Bindable?]? = nil, block: (Statement) throws -> T) throws -> [T] {
        try rewind(binding: parameters)
        var results: [T] = []
        while try step() {
            results.append(try block(self))
        }
        return results
    }

    /// Steps once and maps the row with `block`; nil when the statement is done.
    ///
    /// - Throws: `SQLiteError` for a failing step; the block's error.
    public final func selectNext<T>(_ block: (Statement) throws -> T) throws -> T? {
        try step() ? try block(self) : nil
    }

    /// Steps once and returns the row as column name → value (NULLs left out); nil when done.
    ///
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextRow() throws -> [String: Bindable]? {
        try selectNext { $0.dictionaryValue }
    }

    /// Runs the statement from the start, after binding `parameters` when given, and returns
    /// the first row as column name → value (NULLs left out); nil when there is none.
    ///
    /// - Throws: `SQLiteError` for a failing step or a parameter count that does not match.
    public final func selectNextRow(_ parameters: [Bindable?]) throws -> [String: Bindable]? {
        try rewind(binding: parameters)
        return try selectNextRow()
    }

    /// Runs the statement from the start and returns every row as column name → value.
    ///
    /// - Throws: `SQLiteError` for a failing step or a parameter count that does not match.
    public final func selectRows(_ parameters: [Bindable?]? = nil) throws -> [[String: Bindable]] {
        try select(parameters) { $0.dictionaryValue }
    }

    /// Steps once and returns the first column as an `Int`; nil when done or NULL.
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextInt() throws -> Int? { try selectNext { $0.intValueAtIndex(0) } ?? nil }
    /// Steps once and returns the first column as an `Int64`; nil when done or NULL.
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextInt64() throws -> Int64? { try selectNext { $0.int64ValueAtIndex(0) } ?? nil }
    /// Steps once and returns the first column as a `Double`; nil when done or NULL.
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextDouble() throws -> Double? { try selectNext { $0.doubleValueAtIndex(0) } ?? nil }
    /// Steps once and returns the first column as a `String`; nil when done or NULL.
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextString() throws -> String? { try selectNext { $0.stringValueAtIndex(0) } ?? nil }
    /// Steps once and returns the first column as a `Bool`; nil when done or NULL.
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextBool() throws -> Bool? { try selectNext { $0.boolValueAtIndex(0) } ?? nil }
    /// Steps once and returns the first column as `Data`; nil when done or NULL.
    /// - Throws: `SQLiteError` for a failing step.
    public final func selectNextBlob() throws -> Data? { try selectNext { $0.blobValueAtIndex(0) } ?? nil }

    /// Rewinds, binding `parameters` when given and keeping the bindings otherwise.
    private func rewind(binding parameters: [Bindable?]?) throws {
        if let parameters {
            try bind(parameters)
        } else {
            resetKeepingBindings()
        }
    }
}
