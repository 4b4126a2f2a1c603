// JSON strings written by hand where an encoder would cost more than the value: the CLI's rows,
// and the sync wire's headers sent to every waiting replica.

/// Writes JSON string literals (RFC 8259): `"` and `\` escaped, control characters as escapes,
/// everything else as its UTF-8 (a Swift string is valid Unicode, so the output is valid JSON).
package enum JSONText {
    /// `text` as a JSON string literal.
    package static func quoted(_ text: String) -> String {
        // Most text needs no escape: one byte scan, then the text as it is.
        var plain = true
        for byte in text.utf8 where needsEscape(byte) {
            plain = false
            break
        }
        if plain { return "\"" + text + "\"" }
        var bytes: [UInt8] = []
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal to `bytes`.
    package static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard needsEscape(byte) else {
                bytes.append(byte)
                continue
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether a UTF-8 byte must be escaped in a JSON string (multi-byte sequences never are).
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
