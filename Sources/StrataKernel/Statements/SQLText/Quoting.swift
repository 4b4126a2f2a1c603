// Quoting: the one way Strata writes a name or a string into SQL text. Bytes, not Characters:
// on Linux `"` followed by a combining mark is one Character, and a Character-level scan would
// leave that quote undoubled (an injection).

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
