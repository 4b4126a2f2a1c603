import Foundation
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Squeal's parameter binding: one parameter at a time, by 1-based index or by name, keeping
/// the other parameters (SQift's `bind(...)` clears them). A statement that has finished is
/// rewound first; one in the middle of its rows throws `SQLITE_MISUSE` (call `reset()` first).
/// Names may be given with their prefix (`":id"`) or without it (`"id"`).
extension Statement {
    /// The 1-based index of the parameter named `name` (`":id"`, `"@id"`, `"$id"`, or `"id"`
    /// for any of them), or nil.
    public final func indexOfParameterNamed(_ name: String) -> Int? {
        let index = indexOfParameter(bareOrPrefixedName: name)
        return index > 0 ? Int(index) : nil
    }

    /// Sets every parameter to NULL.
    public final func clearParameters() {
        sqlite3_clear_bindings(statementHandle)
    }

    /// Binds each value to the parameter of that name.
    ///
    /// ```swift
    /// try statement.bind(namedParameters: ["name": "Amelia", "email": nil])
    /// ```
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) for an unknown name, or while the statement is
    ///   mid-iteration (call ``reset()`` first).
    public final func bind(namedParameters: [String: Bindable?]) throws {
        for (name, value) in namedParameters {
            try bindParameter(name, value: value)
        }
    }

    /// Binds `value` (NULL when nil) to the parameter named `name`.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) for an unknown name or a busy statement.
    public final func bindParameter(_ name: String, value: Bindable?) throws {
        try bindValue(value, atIndex: try requiredParameterIndex(named: name))
    }

    /// Binds `value` (NULL when nil) to the 1-based parameter `index`.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_RANGE`) for an index out of range, `SQLITE_MISUSE` for
    ///   a busy statement.
    public final func bindValue(_ value: Bindable?, atIndex index: Int) throws {
        if !isBusy { resetKeepingBindings() }
        try bindValue(value, toParameter: Int32(clamping: index))
    }

    /// Binds NULL to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindNullParameter(atIndex index: Int) throws { try bindValue(nil, atIndex: index) }
    /// Binds NULL to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindNullParameter(named name: String) throws { try bindParameter(name, value: nil) }

    /// Binds an `Int` to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindIntValue(_ value: Int, atIndex index: Int) throws { try bindValue(value, atIndex: index) }
    /// Binds an `Int64` to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindInt64Value(_ value: Int64, atIndex index: Int) throws { try bindValue(value, atIndex: index) }
    /// Binds a `Double` to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindDoubleValue(_ value: Double, atIndex index: Int) throws { try bindValue(value, atIndex: index) }
    /// Binds a `String` to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindStringValue(_ value: String, atIndex index: Int) throws { try bindValue(value, atIndex: index) }
    /// Binds a `Bool` (as 1 or 0) to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindBoolValue(_ value: Bool, atIndex index: Int) throws { try bindValue(value, atIndex: index) }
    /// Binds `Data` as a blob to the 1-based parameter `index`.
    /// - Throws: `SQLiteError` for an index out of range or a busy statement.
    public final func bindBlobValue(_ value: Data, atIndex index: Int) throws { try bindValue(value, atIndex: index) }

    /// Binds an `Int` to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindIntValue(_ value: Int, named name: String) throws { try bindParameter(name, value: value) }
    /// Binds an `Int64` to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindInt64Value(_ value: Int64, named name: String) throws { try bindParameter(name, value: value) }
    /// Binds a `Double` to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindDoubleValue(_ value: Double, named name: String) throws { try bindParameter(name, value: value) }
    /// Binds a `String` to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindStringValue(_ value: String, named name: String) throws { try bindParameter(name, value: value) }
    /// Binds a `Bool` (as 1 or 0) to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindBoolValue(_ value: Bool, named name: String) throws { try bindParameter(name, value: value) }
    /// Binds `Data` as a blob to the parameter named `name`.
    /// - Throws: `SQLiteError` for an unknown name or a busy statement.
    public final func bindBlobValue(_ value: Data, named name: String) throws { try bindParameter(name, value: value) }

    private func requiredParameterIndex(named name: String) throws -> Int {
        guard let index = indexOfParameterNamed(name) else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "Bind could not find index for key: '\(name)'", sql: sql)
        }
        return index
    }
}
