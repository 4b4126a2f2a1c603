// Literals for the places SQLite accepts no parameters (a column's DEFAULT, a rebuild's fill
// value); everywhere else values are bound.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A literal SQLite reads as exactly `value` (finite): the shortest decimal when the linked
/// SQLite reads it back exactly, else a significand times powers of two, each read exactly, whose
/// product is exact. SQLite's decimal reader before 3.47 is off by one bit for about one value in
/// ten thousand at any magnitude (5.066453936035476e+245 reads as ...4755e+245) and for many near
/// the ends of the range, so the linked library itself is asked.
package func exactRealLiteral(_ value: Double) -> String {
    var shortest = "\(value)"
    if !shortest.unicodeScalars.contains(where: { $0 == "." || $0 == "e" }) { shortest += ".0" }
    if value == 0 { return shortest }
    let reader = LinkedRealReader.shared
    for candidate in [shortest, String(format: "%.17e", value)] where reader.reads(candidate, as: value) {
        return candidate
    }
    let product = realProductLiteral(value)
    return reader.evaluates(product, to: value) ? product : shortest
}

/// SQLite's own decimal reader (the one its tokenizer uses for a REAL literal, reached through
/// `CAST(text AS REAL)`), on a private in-memory database.
final class LinkedRealReader: @unchecked Sendable { // the handle and statement are used under `lock` only
    static let shared = LinkedRealReader()
    private let lock = NSLock()
    private var database: OpaquePointer?
    private var statement: OpaquePointer?

    private init() {
        guard sqlite3_open_v2(":memory:", &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else { return }
        sqlite3_prepare_v2(database, "SELECT CAST(?1 AS REAL)", -1, &statement, nil)
    }

    /// Whether SQLite reads `text` as exactly `value`; false when it cannot be asked (then the
    /// caller writes the exact product, which needs no reader).
    func reads(_ text: String, as value: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let statement else { return false }
        defer { sqlite3_reset(statement) }
        guard sqlite3_bind_text(statement, 1, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_type(statement, 0) == SQLITE_FLOAT
        else { return false }
        return sqlite3_column_double(statement, 0).bitPattern == value.bitPattern
    }

    /// Whether SQLite evaluates the expression `sql` (a product of literals) to exactly `value`.
    func evaluates(_ sql: String, to value: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let database else { return true }
        var expression: OpaquePointer?
        guard sqlite3_prepare_v2(database, "SELECT " + sql, -1, &expression, nil) == SQLITE_OK, let expression else { return false }
        defer { sqlite3_finalize(expression) }
        guard sqlite3_step(expression) == SQLITE_ROW else { return false }
        return sqlite3_column_double(expression, 0).bitPattern == value.bitPattern
    }
}

/// `value` (finite) as `(significand*2^k*...)`: each factor reads exactly and scaling by a power
/// of two is exact, so the product is exactly `value` whatever SQLite's decimal reader does.
func realProductLiteral(_ value: Double) -> String {
    let significand = Double(sign: value.sign, exponent: 0, significand: value.significand)
    var factors = ["\(significand)"]
    var exponent = Int(value.exponent)
    while exponent != 0 {
        let step = max(-60, min(60, exponent))
        factors.append(String(format: "%.17e", Double(sign: .plus, exponent: step, significand: 1)))
        exponent -= step
    }
    return "(" + factors.joined(separator: "*") + ")"
}

/// A SQL literal for a value, for the places SQLite accepts no parameters (a column's DEFAULT in
/// CREATE TABLE, a fill value in a table rebuild). Text quotes are doubled; blobs are hex.
@usableFromInline
package func sqlLiteral(_ value: BindingValue) -> String {
    switch value {
    case .null:
        return "NULL"
    case .integer(let integer):
        return String(integer)
    case .real(let real):
        if real.isNaN { return "NULL" }
        if real.isInfinite { return real > 0 ? "9e999" : "-9e999" }
        return exactRealLiteral(real)
    case .text(let text):
        // NUL ends SQL text: such a string is written as its bytes, cast (in parentheses, which
        // a DEFAULT needs for an expression).
        guard text.utf8.contains(0) else { return quoteStringLiteral(text) }
        return "(" + textLiteral(Array(text.utf8), style: .quoted) + ")"
    case .blob(let data):
        return hexLiteral(data)
    }
}

/// How ``textLiteral(_:style:)`` spells text. Every style is read back by SQLite as the same
/// bytes, in the TEXT storage class.
package enum TextLiteralStyle: Sendable {
    /// One quoted literal, line breaks and all (a DEFAULT, a rebuild's fill value).
    case quoted
    /// For dumps: runs of `\r` and `\n` outside the quotes as `char(13,10)`, since the sqlite3
    /// shell reads its input by lines and drops a `\r` before a line end (the shell's own `.dump`
    /// writes `replace(...)` calls to the same end).
    case dump
    /// On one line, every control character (below U+0020, and U+007F) outside the quotes as
    /// its own `char(N)`, NUL included: what a test snapshot shows.
    case oneLine
}

/// `bytes`, stored as TEXT, as a SQL expression SQLite evaluates to the same bytes. Bytes that
/// are not valid UTF-8 (and, but in `.oneLine`, text holding NUL, which ends SQL text) are
/// written as a blob cast to TEXT; the rest as quoted pieces joined with `||`. Works on bytes:
/// valid UTF-8 cut at ASCII bytes leaves every piece valid.
package func textLiteral(_ bytes: UnsafeBufferPointer<UInt8>, style: TextLiteralStyle) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    if !text.utf8.elementsEqual(bytes) || (style != .oneLine && bytes.contains(0)) {
        return "CAST(" + hexLiteral(UnsafeRawBufferPointer(bytes)) + " AS TEXT)"
    }
    let spelled: (UInt8) -> Bool
    switch style {
    case .quoted: return quoteStringLiteral(text)
    case .dump: spelled = { $0 == 0x0D || $0 == 0x0A }
    case .oneLine: spelled = { $0 < 0x20 || $0 == 0x7F }
    }
    guard bytes.contains(where: spelled) else { return quoteStringLiteral(text) }
    var literal = ""
    var index = 0
    while index < bytes.count {
        if index > 0 { literal += "||" }
        let start = index
        if spelled(bytes[index]) && style == .dump {
            literal += "char("
            while index < bytes.count, spelled(bytes[index]) {
                if index > start { literal += "," }
                literal += String(bytes[index])
                index += 1
            }
            literal += ")"
        } else if spelled(bytes[index]) {
            literal += "char(" + String(bytes[index]) + ")"
            index += 1
        } else {
            while index < bytes.count, !spelled(bytes[index]) { index += 1 }
            literal += quoteStringLiteral(String(decoding: bytes[start..<index], as: UTF8.self))
        }
    }
    return literal
}

/// ``textLiteral(_:style:)`` of an array's bytes.
package func textLiteral(_ bytes: [UInt8], style: TextLiteralStyle) -> String {
    bytes.withUnsafeBufferPointer { textLiteral($0, style: style) }
}

/// `bytes` as a blob literal, `X'00FF'` (upper-case digits, as SQLite's `quote()` writes).
/// Not generic, so a dump in another module calls it specialized, not once per byte.
package func hexLiteral(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2 + 3) { buffer in
        buffer[0] = UInt8(ascii: "X")
        buffer[1] = UInt8(ascii: "'")
        var index = 2
        for byte in bytes {
            buffer[index] = hexDigits[Int(byte >> 4)]
            buffer[index + 1] = hexDigits[Int(byte & 0x0F)]
            index += 2
        }
        buffer[index] = UInt8(ascii: "'")
        return index + 1
    }
}

/// ``hexLiteral(_:)`` of an array's bytes.
package func hexLiteral(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hexLiteral($0) }
}

/// ``hexLiteral(_:)`` of a blob's bytes.
package func hexLiteral(_ data: Data) -> String {
    data.withUnsafeBytes { hexLiteral($0) }
}

private let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
