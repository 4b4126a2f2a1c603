import Foundation

/// An error the ORM reports itself (SQLite's own errors arrive as `SQLiteError`).
///
/// ```swift
/// do { _ = try storage.getAll(all: Unmapped.self) }
/// catch let error as ORMError { print(error) } // Type Unmapped is not mapped ...
/// ```
public enum ORMError: Swift.Error, Equatable, Sendable, CustomStringConvertible {
    /// No table of the storage maps this type.
    case typeIsNotMapped(type: String)
    /// A key path used in a query is not a column of any table of the storage.
    case columnIsNotMapped(keyPath: String)
    /// The operation needs a primary key and the table declares none.
    case tableHasNoPrimaryKey(table: String)
    /// `get(id:)` received a number of values different from the primary key's column count.
    case primaryKeyCountMismatch(table: String, expected: Int, received: Int)
    /// A table or storage definition is inconsistent (a column of another type, a duplicate name).
    case invalidDefinition(String)
    /// A stored value is NULL for a non-optional property, or does not convert to its type.
    case valueDoesNotConvert(table: String, column: String, type: String)
    /// A query cannot be built as written (a select with no table to read from, ...).
    case invalidQuery(String)
    /// SQLite's error, as ``SafeStorage`` reports it.
    case sqliteError(SQLiteError)
    /// Another error (a table rebuild's), as ``SafeStorage`` reports it.
    case otherError(String)

    /// `error` as an `ORMError`: itself, or wrapped.
    init(wrapping error: any Swift.Error) {
        switch error {
        case let error as ORMError: self = error
        case let error as SQLiteError: self = .sqliteError(error)
        default: self = .otherError("\(error)")
        }
    }

    /// A message saying what went wrong and, for mapping errors, how to fix it.
    public var description: String {
        switch self {
        case .typeIsNotMapped(let type):
            return "Type \(type) is not mapped to a table of this storage: pass a Table<\(type)> to Storage(filename:...)"
        case .columnIsNotMapped(let keyPath):
            return "Key path \(keyPath) is not a column of any table of this storage: add a Column for it"
        case .tableHasNoPrimaryKey(let table):
            return "Table '\(table)' has no primary key: add primaryKey() to a column to get, update or delete by id"
        case .primaryKeyCountMismatch(let table, let expected, let received):
            return "Table '\(table)' has \(expected) primary key column(s) but \(received) id value(s) were given"
        case .invalidDefinition(let reason):
            return "Invalid storage definition: \(reason)"
        case .valueDoesNotConvert(let table, let column, let type):
            let hint = type == "\(Date.self)" || type == "\(Date?.self)" ? " (\(SQLiteDateText.acceptedLayouts))" : ""
            return
                "Column '\(column)' of table '\(table)' holds NULL or a value that does not convert to \(type)\(hint): make the property optional or fix the data"
        case .invalidQuery(let reason):
            return "Invalid query: \(reason)"
        case .sqliteError(let error):
            return error.description
        case .otherError(let description):
            return description
        }
    }
}

/// SQLiteORM-Swift's name for ``ORMError`` (`catch let error as Error` in ported code).
///
/// Declared only in StrataORM: code that imports just Strata keeps `Swift.Error`.
public typealias Error = ORMError

extension ORMError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
