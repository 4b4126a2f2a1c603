import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// SQLite's five storage classes: the one type for "what kind of value is this".
///
/// ```swift
/// let kind = SQLiteStorageClass(of: value)   // .integer for a NUMERIC column's 32
/// ```
/// SQift's `Row.Column.DataType` and Squeal's `SQLiteColumnType` are names for it (same cases,
/// same order), and both spell the floating-point class `float`, so that is its one case name.
/// Two seed APIs that are not storage classes keep their own spelling for ported code:
/// `BindingValue.real(_:)` (a value) and `Connection.FunctionValue.DataType.double` (SQift's
/// function arguments); `BindingValue.storageClass` and `FunctionValue.storageClass` map them here.
/// See <https://www.sqlite.org/datatype3.html>.
public enum SQLiteStorageClass: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A signed 64-bit INTEGER.
    case integer
    /// A 64-bit floating-point REAL.
    case float
    /// UTF-8 TEXT.
    case text
    /// A BLOB of raw bytes.
    case blob
    /// SQL NULL.
    case null

    /// The storage class of a `SQLITE_INTEGER`, `SQLITE_FLOAT`, ... code; any other code is NULL.
    @inlinable
    public init(code: Int32) {
        switch code {
        case SQLITE_INTEGER: self = .integer
        case SQLITE_FLOAT: self = .float
        case SQLITE_TEXT: self = .text
        case SQLITE_BLOB: self = .blob
        default: self = .null
        }
    }

    /// The storage class of a value as SQLite holds it, before any conversion.
    @inlinable
    public init(of value: SQLiteValueHandle) {
        self.init(code: sqlite3_value_type(value))
    }

    /// SQLite's code for the class (`SQLITE_INTEGER`, ...).
    public var code: Int32 {
        switch self {
        case .integer: return SQLITE_INTEGER
        case .float: return SQLITE_FLOAT
        case .text: return SQLITE_TEXT
        case .blob: return SQLITE_BLOB
        case .null: return SQLITE_NULL
        }
    }

    /// The lowercase name SQLite's `typeof()` gives, except `float` for REAL.
    public var description: String {
        switch self {
        case .integer: return "integer"
        case .float: return "float"
        case .text: return "text"
        case .blob: return "blob"
        case .null: return "null"
        }
    }
}

// MARK: - The one value reader

/// Reads an `sqlite3_value` in SQift's `Any` form: `Int64`, `Double`, `String`, `Data`, or nil.
@usableFromInline
func anyValue(of value: SQLiteValueHandle) -> Any? {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return sqlite3_value_int64(value)
    case SQLITE_FLOAT: return sqlite3_value_double(value)
    case SQLITE_TEXT: return readText(value)
    case SQLITE_BLOB: return readBlob(value)
    default: return nil
    }
}

/// Reads the value as text from the UTF-8 pointer SQLite returns (no intermediate C string);
/// SQLite converts numbers to their text, NULL reads as `""`.
@usableFromInline
package func readText(_ value: SQLiteValueHandle) -> String {
    guard let pointer = sqlite3_value_text(value) else { return "" }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
}

/// Reads the value as a blob, copied once; a zero-length blob (and NULL) reads as `Data()`.
@usableFromInline
package func readBlob(_ value: SQLiteValueHandle) -> Data {
    let count = Int(sqlite3_value_bytes(value))
    guard count > 0, let pointer = sqlite3_value_blob(value) else { return Data() }
    return Data(bytes: pointer, count: count)
}

extension BindingValue {
    /// The value as SQLite holds it, in its own storage class.
    public init(reading value: SQLiteValueHandle) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT: self = .text(readText(value))
        case SQLITE_BLOB: self = .blob(readBlob(value))
        default: self = .null
        }
    }

    /// The value's storage class.
    public var storageClass: SQLiteStorageClass {
        switch self {
        case .null: return .null
        case .integer: return .integer
        case .real: return .float
        case .text: return .text
        case .blob: return .blob
        }
    }
}
