import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A type `select` can read a result column as: Strata's built-in value types and optionals of
/// them. Other `Binding` types opt in with an empty conformance.
public protocol SelectableValue {
    /// Reads column `index` of the current row of an `sqlite3_stmt *`, or nil when the value is
    /// NULL (for a non-optional type) or does not convert.
    static func selectValue(from statement: SQLiteStatementHandle, at index: Int32) -> Self?
}

extension SelectableValue where Self: Binding, Self.DataType == Self {
    public static func selectValue(from statement: SQLiteStatementHandle, at index: Int32) -> Self? {
        guard let value = sqlite3_column_value(statement, index) else { return nil }
        return readNonNull(Self.self, value)
    }
}

extension Optional: SelectableValue where Wrapped: SelectableValue {
    public static func selectValue(from statement: SQLiteStatementHandle, at index: Int32) -> Wrapped?? {
        if sqlite3_column_type(statement, index) == SQLITE_NULL { return .some(nil) }
        return Wrapped.selectValue(from: statement, at: index).map { .some($0) }
    }
}

extension Int: SelectableValue {}
extension Int8: SelectableValue {}
extension Int16: SelectableValue {}
extension Int32: SelectableValue {}
extension Int64: SelectableValue {}
extension UInt: SelectableValue {}
extension UInt8: SelectableValue {}
extension UInt16: SelectableValue {}
extension UInt32: SelectableValue {}
extension UInt64: SelectableValue {}
extension Bool: SelectableValue {}
extension Float: SelectableValue {}
extension Double: SelectableValue {}
extension String: SelectableValue {}
extension Data: SelectableValue {}
extension Date: SelectableValue {}
extension URL: SelectableValue {}
