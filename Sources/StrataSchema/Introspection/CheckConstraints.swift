// CHECK constraints, which no pragma reports: read from a table's CREATE TABLE text as SQLite
// stores it, on its UTF-8 bytes with the kernel's SQL scanning (quotes, comments, keywords).
import StrataKernel
import Foundation

/// The CHECK constraints of a `CREATE TABLE` statement, column and table constraints alike, in
/// order: `CHECK (expression)`, or `CONSTRAINT name CHECK (expression)` when named (the name as
/// written). Runs of whitespace and comments outside quotes read as one space; quoted text is
/// kept byte for byte.
func tableCheckConstraints(inSQL sql: String) -> [String] {
    let bytes = Array(sql.utf8)
    var constraints: [String] = []
    var index = 0
    // The last two tokens before the current one, for `CONSTRAINT name`.
    var previous: [ArraySlice<UInt8>] = []
    while let token = nextSQLToken(bytes, from: &index) {
        defer { previous = Array((previous + [token]).suffix(2)) }
        guard isKeyword(token, "CHECK") else { continue }
        var after = index
        guard let open = nextSQLToken(bytes, from: &after), open.elementsEqual([UInt8(ascii: "(")]) else { continue }
        var depth = 1
        var expression: [UInt8] = []
        var pendingSpace = false
        while depth > 0, let inner = nextSQLToken(bytes, from: &after, spaceBefore: &pendingSpace) {
            if inner.elementsEqual([UInt8(ascii: "(")]) { depth += 1 }
            if inner.elementsEqual([UInt8(ascii: ")")]) { depth -= 1; if depth == 0 { break } }
            if pendingSpace, !expression.isEmpty { expression.append(UInt8(ascii: " ")) }
            expression += inner
            pendingSpace = false
        }
        index = after
        var text = "CHECK (" + String(decoding: expression, as: UTF8.self) + ")"
        if previous.count == 2, isKeyword(previous[0], "CONSTRAINT") {
            text = "CONSTRAINT " + String(decoding: previous[1], as: UTF8.self) + " " + text
        }
        constraints.append(text)
    }
    return constraints
}

/// The next token of `bytes` at or after `index` (a word, a quoted name or string with its
/// quotes, or one other byte), skipping whitespace and comments; `spaceBefore` is set when some
/// were skipped. Nil at the end.
private func nextSQLToken(_ bytes: [UInt8], from index: inout Int, spaceBefore: inout Bool) -> ArraySlice<UInt8>? {
    while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
            index += 1
            spaceBefore = true
            continue
        case UInt8(ascii: "-") where bytes[(index + 1)...].first == UInt8(ascii: "-"),
            UInt8(ascii: "/") where bytes[(index + 1)...].first == UInt8(ascii: "*"):
            index = skippingComment(in: bytes[index...])
            spaceBefore = true
            continue
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
            let closing = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
            let start = index
            index += 1
            while index < bytes.count {
                if bytes[index] == closing {
                    index += 1
                    // A doubled quote is one quote inside the text ([names] have no escape).
                    if closing != UInt8(ascii: "]"), index < bytes.count, bytes[index] == closing { index += 1; continue }
                    return bytes[start..<index]
                }
                index += 1
            }
            return bytes[start..<index]
        case _ where isIdentifierByte(byte):
            let start = index
            while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
            return bytes[start..<index]
        default:
            index += 1
            return bytes[(index - 1)..<index]
        }
    }
    return nil
}

private func nextSQLToken(_ bytes: [UInt8], from index: inout Int) -> ArraySlice<UInt8>? {
    var ignored = false
    return nextSQLToken(bytes, from: &index, spaceBefore: &ignored)
}

extension SchemaReader {
    /// The CHECK constraints of `table` (see ``tableCheckConstraints(inSQL:)``); empty when it
    /// has none or is not a table.
    package func checkConstraints(ofTable table: String) throws -> [String] {
        guard let sql = try self.table(named: table)?.sql else { return [] }
        return tableCheckConstraints(inSQL: sql)
    }
}
