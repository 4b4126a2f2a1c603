// The one place where Strata writes SQL text: identifier quoting, string and value literals,
// placeholder lists and clause builders. Every layer (helpers, DSL, rebuild, ORM, CLI) calls
// these; values always go through bound parameters, except where SQLite accepts none (a column
// DEFAULT, a rebuild's fill value), which `sqlLiteral` covers.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Quotes an identifier (table, column, index, savepoint name): `"name"`, inner quotes doubled.
@usableFromInline
package func quoteIdentifier(_ name: String) -> String {
    // Without Foundation: the helpers quote names on every call, and bridging costs microseconds.
    // Bytes, not Characters: on Linux `"` followed by a combining mark is one Character, and a
    // Character-level split would leave that quote undoubled (an injection).
    quoted(name, by: UInt8(ascii: "\""))
}

/// `text` wrapped in `quote`, every `quote` byte inside doubled. Works on UTF-8 bytes so that a
/// quote is found whatever follows it (a combining mark, a variation selector).
@usableFromInline
package func quoted(_ text: String, by quote: UInt8) -> String {
    var text = text
    return text.withUTF8 { bytes in
        var count = bytes.count + 2
        for byte in bytes where byte == quote { count += 1 }
        if count == bytes.count + 2 {
            return String(unsafeUninitializedCapacity: count) { buffer in
                buffer[0] = quote
                _ = UnsafeMutableBufferPointer(rebasing: buffer[1...]).initialize(from: bytes)
                buffer[count - 1] = quote
                return count
            }
        }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            buffer[index] = quote; index += 1
            for byte in bytes {
                buffer[index] = byte; index += 1
                if byte == quote { buffer[index] = quote; index += 1 }
            }
            buffer[index] = quote
            return count
        }
    }
}

/// A SQL string literal: `'text'`, inner single quotes doubled.
package func quoteStringLiteral(_ text: String) -> String {
    quoted(text, by: UInt8(ascii: "'"))
}

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
final class LinkedRealReader: @unchecked Sendable {  // the handle and statement are used under `lock` only
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
              sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_type(statement, 0) == SQLITE_FLOAT else { return false }
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
package func realProductLiteral(_ value: Double) -> String {
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
        return "(CAST(X'" + text.utf8.map { String(format: "%02X", $0) }.joined() + "' AS TEXT))"
    case .blob(let data):
        return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
    }
}

/// The `?, ?, ?` placeholder list for `count` parameters.
package func placeholders(_ count: Int) -> String {
    count <= 0 ? "" : "?" + String(repeating: ", ?", count: count - 1)
}

/// `INSERT INTO "table" ("a", "b") VALUES (?, ?)`, or `DEFAULT VALUES` with no columns.
/// `verb` may be `INSERT OR REPLACE` and so on.
package func insertSQL(into table: String, columns: [String], verb: String = "INSERT") -> SQL {
    let head = verb + " INTO " + quoteIdentifier(table)
    guard !columns.isEmpty else { return head + " DEFAULT VALUES" }
    return head + " (" + columns.map(quoteIdentifier).joined(separator: ", ") + ") VALUES (" + placeholders(columns.count) + ")"
}

/// `"a" = ?, "b" = ?`: the SET list of an UPDATE.
package func assignmentList(_ columns: [String]) -> String {
    columns.map { quoteIdentifier($0) + " = ?" }.joined(separator: ", ")
}

/// Whether `text` is a bare identifier (`[A-Za-z_][A-Za-z0-9_]*`), which names the same thing
/// quoted or not, except that quoting also admits keywords such as `order`.
package func isPlainIdentifier(_ text: String) -> Bool {
    var utf8 = text.utf8.makeIterator()
    guard let first = utf8.next(), first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")) else {
        return false
    }
    while let byte = utf8.next() {
        let isLetter = byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")
        let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        guard isLetter || isDigit || byte == UInt8(ascii: "_") else { return false }
    }
    return true
}

/// Whether SQLite reads `a` and `b` as the same identifier: equal but for ASCII letter case
/// (SQLite folds only ASCII; quoting a near-miss would turn it into a string literal).
package func sameIdentifier(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8) { x, y in
        x == y || (x | 0x20 == y | 0x20 && x | 0x20 >= UInt8(ascii: "a") && x | 0x20 <= UInt8(ascii: "z"))
    }
}

/// Whether two strings hold the same UTF-8 bytes: how SQL text and names are compared (Swift's
/// `==` also calls canonically equivalent strings equal, such as `é` and `e` + U+0301).
@inlinable
package func sameBytes(_ left: String, _ right: String) -> Bool {
    guard left.utf8.count == right.utf8.count else { return false }
    let compared: Bool? = left.utf8.withContiguousStorageIfAvailable { l in
        right.utf8.withContiguousStorageIfAvailable { r in
            guard let a = l.baseAddress, let b = r.baseAddress else { return l.count == r.count }
            return memcmp(a, b, l.count) == 0
        }
    } ?? nil
    return compared ?? left.utf8.elementsEqual(right.utf8)
}

/// A set of names compared as SQLite compares identifiers: by their UTF-8 bytes with ASCII
/// letters folded, never by Unicode case folding or canonical equivalence (a `Set<String>` of
/// lowercased names calls `É_data` and `é_data`, or `é` and `e` + U+0301, the same table).
package struct IdentifierSet: Hashable, Sendable, ExpressibleByArrayLiteral {
    private var keys: Set<[UInt8]>

    package init() { keys = [] }
    package init<Names: Sequence<String>>(_ names: Names) { keys = Set(names.map(Self.key)) }
    package init(arrayLiteral names: String...) { self.init(names) }

    /// The bytes SQLite compares: ASCII upper case folded to lower case, nothing else.
    package static func key(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }

    package var isEmpty: Bool { keys.isEmpty }
    package var count: Int { keys.count }
    package func contains(_ name: String) -> Bool { keys.contains(Self.key(name)) }
    package mutating func insert(_ name: String) { keys.insert(Self.key(name)) }
    package mutating func formUnion<Names: Sequence<String>>(_ names: Names) { for name in names { insert(name) } }
    package mutating func subtract(_ other: IdentifierSet) { keys.subtract(other.keys) }
    package func subtracting(_ other: IdentifierSet) -> IdentifierSet { var copy = self; copy.subtract(other); return copy }
    package func intersection(_ other: IdentifierSet) -> IdentifierSet { var copy = self; copy.keys.formIntersection(other.keys); return copy }
}

/// Whether `name` starts with `prefix` as SQLite compares identifiers (bytes, ASCII folded).
package func identifier(_ name: String, hasPrefix prefix: String) -> Bool {
    let key = IdentifierSet.key(name)
    let prefixKey = IdentifierSet.key(prefix)
    return key.count >= prefixKey.count && key.prefix(prefixKey.count).elementsEqual(prefixKey)
}

/// Whether SQL text holds anything but whitespace, `;` and comments, that is, another statement
/// for SQLite to compile. Lets a script walk tell the last statement without compiling the rest
/// (which may need the earlier ones to have run).
package func sqlTextHasStatement(_ text: Substring) -> Bool {
    sqlStatementStart(in: text.utf8) != text.utf8.endIndex
}

/// Where the next statement of SQL text begins: past whitespace, `;` and comments, as SQLite
/// reads them; the end when none is left.
package func sqlStatementStart<Bytes: Collection>(in text: Bytes) -> Bytes.Index
where Bytes.Element == UInt8, Bytes.SubSequence == Bytes {
    var bytes = text[...]
    while let byte = bytes.first {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C, UInt8(ascii: ";"):
            bytes = bytes.dropFirst()
        case UInt8(ascii: "-") where bytes.dropFirst().first == UInt8(ascii: "-"),
             UInt8(ascii: "/") where bytes.dropFirst().first == UInt8(ascii: "*"):
            bytes = bytes[skippingComment(in: bytes)...]
        default:
            return bytes.startIndex
        }
    }
    return bytes.endIndex
}

/// The end of the statement that begins `text`: just past the `;` that ends it, or the end of the
/// text. SQLite's own `sqlite3_complete` decides (quotes, comments, `CREATE TRIGGER … BEGIN …;
/// END;`), so this and the dump's reader split statements exactly as SQLite does. An error's SQL
/// needs it (a statement that fails to compile is named without the rest of its script).
package func sqlStatementEnd<Bytes: Collection>(in text: Bytes) -> Bytes.Index
where Bytes.Element == UInt8, Bytes.SubSequence == Bytes {
    completeStatementEnd(in: text, searchingFrom: text.startIndex) ?? text.endIndex
}

/// The one statement-end scanner: just past the first `;` at or after `searchFrom` that completes
/// the statement beginning at the start of `text` (as `sqlite3_complete` reads it), or nil when
/// none does yet. `sqlStatementEnd(in:)` and `SQLStatementSplitter` (the dump's reader) are
/// both this loop.
package func completeStatementEnd<Bytes: Collection>(in text: Bytes, searchingFrom searchFrom: Bytes.Index) -> Bytes.Index?
where Bytes.Element == UInt8, Bytes.SubSequence == Bytes {
    var from = searchFrom
    while let semicolon = text[from...].firstIndex(of: UInt8(ascii: ";")) {
        let end = text.index(after: semicolon)
        if isCompleteSQL(text[..<end]) { return end }
        from = end
    }
    return nil
}

/// Cuts SQL text arriving in chunks into complete statements with `completeStatementEnd(in:searchingFrom:)`
/// (a file restored in constant memory).
package struct SQLStatementSplitter {
    private var pending: [UInt8] = []
    /// Where the next statement's text starts in `pending`.
    private var start = 0
    /// Bytes before this were searched for a `;` already.
    private var searched = 0

    package init() {}

    /// Adds a chunk; calls `statement` with each statement it completes.
    package mutating func append<Chunk: Sequence>(_ chunk: Chunk, statement: (String) throws -> Void) throws where Chunk.Element == UInt8 {
        pending.append(contentsOf: chunk)
        while let end = completeStatementEnd(in: pending[start...], searchingFrom: max(searched, start)) {
            try statement(String(decoding: pending[start..<end], as: UTF8.self))
            start = end
        }
        searched = pending.count
        if start > 1 << 16 {
            pending.removeFirst(start)
            searched -= start
            start = 0
        }
    }

    /// The text after the last complete statement, when it holds more than whitespace and comments.
    package var remainder: String? {
        let rest = String(decoding: pending[start...], as: UTF8.self)
        return sqlTextHasStatement(Substring(rest)) ? rest : nil
    }
}

/// Whether `statement` ends a complete statement, as `sqlite3_complete` reads it (a NUL byte
/// ends SQL text for SQLite, so it ends it here too).
package func isCompleteSQL<Bytes: Collection>(_ statement: Bytes) -> Bool where Bytes.Element == UInt8 {
    var text = Array(statement.prefix { $0 != 0 })
    text.append(0)
    return text.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { sqlite3_complete($0.baseAddress) != 0 }
    }
}

/// The index just past the comment that begins `bytes` (`--` to the end of its line, `/* */`,
/// which runs to the end when unterminated, as SQLite reads it).
package func skippingComment<Bytes: Collection>(in bytes: Bytes) -> Bytes.Index
where Bytes.Element == UInt8, Bytes.SubSequence == Bytes {
    if bytes.first == UInt8(ascii: "-") {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return bytes.endIndex }
        return bytes.index(after: newline)
    }
    var rest = bytes.dropFirst(2)
    while let star = rest.firstIndex(of: UInt8(ascii: "*")) {
        rest = rest[rest.index(after: star)...]
        if rest.first == UInt8(ascii: "/") { return rest.index(after: rest.startIndex) }
    }
    return bytes.endIndex
}

/// Whether `byte` may be part of an identifier or keyword as SQLite's tokenizer reads it
/// (letters, digits, `_`, `$` and every byte of a multi-byte UTF-8 character).
package func isIdentifierByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
}

/// Whether `word` is `keyword` (upper-case ASCII) in any letter case.
package func isKeyword<Bytes: Collection>(_ word: Bytes, _ keyword: StaticString) -> Bool where Bytes.Element == UInt8 {
    word.count == keyword.utf8CodeUnitCount
        && zip(word, UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)).allSatisfy { $0 & 0xDF == $1 }
}

