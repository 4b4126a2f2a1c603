// Where statements of SQL text begin and end, as SQLite's tokenizer and `sqlite3_complete` read
// them: the dump's reader and error messages split scripts here.
#if canImport(SQLite3)
import SQLite3
#endif

/// Whether SQL text holds anything but whitespace, `;` and comments, that is, another statement
/// for SQLite to compile. Lets a script walk tell the last statement without compiling the rest
/// (which may need the earlier ones to have run).
package func sqlTextHasStatement(_ text: Substring) -> Bool {
    sqlStatementStart(in: text.utf8) != text.utf8.endIndex
}

/// Where the next statement of SQL text begins: past whitespace, `;` and comments, as SQLite
/// reads them; the end when none is left.
func sqlStatementStart<Bytes: Collection>(in text: Bytes) -> Bytes.Index
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
func completeStatementEnd<Bytes: Collection>(in text: Bytes, searchingFrom searchFrom: Bytes.Index) -> Bytes.Index?
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
func isCompleteSQL<Bytes: Collection>(_ statement: Bytes) -> Bool where Bytes.Element == UInt8 {
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

/// Whether `word` is one of SQLite's keywords (any letter case), as the linked SQLite knows them
/// (`sqlite3_keyword_check`): a rule language that allows a few keywords refuses the others.
package func isSQLiteKeyword(_ word: String) -> Bool {
    var word = word
    return word.withUTF8 { bytes in
        bytes.withMemoryRebound(to: CChar.self) { sqlite3_keyword_check($0.baseAddress, Int32($0.count)) != 0 }
    }
}
