import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A value in one of SQLite's five storage classes.
public enum BindingValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A signed 64-bit INTEGER.
    case integer(Int64)
    /// A 64-bit floating-point REAL.
    case real(Double)
    /// UTF-8 TEXT.
    case text(String)
    /// A BLOB of raw bytes.
    case blob(Data)
}

/// Tells SQLite to copy bound text and blobs, so the Swift buffer may go away after the call.
@usableFromInline
package let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension BindingValue {
    /// Binds the value to parameter `index` of a prepared statement; returns SQLite's result code.
    @usableFromInline
    package func bind(to handle: SQLiteStatementHandle, at index: Int32) -> Int32 {
        switch self {
        case .null: return sqlite3_bind_null(handle, index)
        case .integer(let value): return sqlite3_bind_int64(handle, index, value)
        case .real(let value): return sqlite3_bind_double(handle, index, value)
        case .text(let value): return bindText(value, to: handle, at: index)
        case .blob(let value): return bindBlob(value, to: handle, at: index)
        }
    }
}

/// Binds UTF-8 text without an intermediate C string. Empty text binds `''`, never NULL.
@usableFromInline
func bindText(_ text: String, to handle: SQLiteStatementHandle, at index: Int32) -> Int32 {
    var text = text
    return text.withUTF8 { buffer in
        guard buffer.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            sqlite3_bind_text(handle, index, $0, Int32(buffer.count), sqliteTransient)
        }
    }
}

/// Binds a blob. Empty data binds a zero-length blob (a nil pointer would bind NULL).
@usableFromInline
func bindBlob(_ data: Data, to handle: SQLiteStatementHandle, at index: Int32) -> Int32 {
    guard data.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
    guard !data.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
    return data.withUnsafeBytes { buffer in
        sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
    }
}

/// Converts a REAL to Int64 the way `sqlite3_value_int64` would, or nil when it is out of range.
@usableFromInline
func int64Truncating(_ double: Double) -> Int64? {
    guard double.isFinite, double >= -9.223372036854775808e18, double < 9.223372036854775808e18 else {
        return nil
    }
    return Int64(double)
}
