import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A value in one of SQLite's five storage classes.
public enum BindingValue: Equatable, Sendable {
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
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension BindingValue {
    /// Binds the value to parameter `index` of a prepared statement; returns SQLite's result code.
    @usableFromInline
    func bind(to handle: OpaquePointer, at index: Int32) -> Int32 {
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
func bindText(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
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
func bindBlob(_ data: Data, to handle: OpaquePointer, at index: Int32) -> Int32 {
    guard data.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
    guard !data.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
    return data.withUnsafeBytes { buffer in
        sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
    }
}

/// Reads an `sqlite3_value` in SQift's `Any` form: `Int64`, `Double`, `String`, `Data`, or nil.
@usableFromInline
func anyValue(of value: OpaquePointer) -> Any? {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return sqlite3_value_int64(value)
    case SQLITE_FLOAT: return sqlite3_value_double(value)
    case SQLITE_TEXT: return readText(value)
    case SQLITE_BLOB: return readBlob(value)
    default: return nil
    }
}

/// Reads the value as text from the UTF-8 pointer SQLite returns (no intermediate C string).
@usableFromInline
func readText(_ value: OpaquePointer) -> String {
    guard let pointer = sqlite3_value_text(value) else { return "" }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
}

/// Reads the value as a blob, copied once; a zero-length blob reads as `Data()`.
@usableFromInline
func readBlob(_ value: OpaquePointer) -> Data {
    let count = Int(sqlite3_value_bytes(value))
    guard count > 0, let pointer = sqlite3_value_blob(value) else { return Data() }
    return Data(bytes: pointer, count: count)
}

/// Converts a REAL to Int64 the way `sqlite3_value_int64` would, or nil when it is out of range.
@usableFromInline
func int64Truncating(_ double: Double) -> Int64? {
    guard double.isFinite, double >= -9.223372036854775808e18, double < 9.223372036854775808e18 else {
        return nil
    }
    return Int64(double)
}
