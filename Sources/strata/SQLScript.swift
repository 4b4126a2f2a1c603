/// Splits SQL text into its statements, the way `sqlite3_complete` decides where one ends.
///
/// A `;` ends a statement unless it is inside a string, a quoted identifier or a comment, or
/// inside the body of `CREATE TRIGGER ... BEGIN ...; END`, which ends at `END;`. Pieces that hold
/// only whitespace and comments are dropped. Each statement is then compiled by SQLite (through
/// `Connection.prepare`), so a mistake here can only make a statement fail, never change its
/// meaning.
enum SQLScript {
    static func statements(in sql: String) -> [String] {
        var statements: [String] = []
        let characters = Array(sql.unicodeScalars)
        var start = 0
        var index = 0
        var words: [String] = []            // the first few words of the statement, uppercased
        var inTrigger = false
        var lastTokens: [String] = []       // the last two significant tokens, for "; END ;"
        var hasContent = false

        func finish(at end: Int) {
            if hasContent {
                var text = String(String.UnicodeScalarView(characters[start..<end]))
                text = text.trimmingWhitespace()
                if !text.isEmpty { statements.append(text) }
            }
            start = end
            words = []
            inTrigger = false
            lastTokens = []
            hasContent = false
        }

        func note(_ token: String) {
            hasContent = true
            if words.count < 4, token != ";" {
                words.append(token.uppercased())
                inTrigger = isTriggerStart(words)
            }
            lastTokens = Array((lastTokens + [token.uppercased()]).suffix(2))
        }

        while index < characters.count {
            let character = characters[index]
            let next: Unicode.Scalar? = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "-" where next == "-":
                while index < characters.count, characters[index] != "\n" { index += 1 }
            case "/" where next == "*":
                index += 2
                while index < characters.count, !(characters[index] == "*" && index + 1 < characters.count && characters[index + 1] == "/") {
                    index += 1
                }
                index = min(index + 2, characters.count)
            case "'", "\"", "`", "[":
                let close: Unicode.Scalar = character == "[" ? "]" : character
                index += 1
                while index < characters.count {
                    if characters[index] == close {
                        // A doubled quote is an escaped quote; `]` has no escape.
                        if close != "]", index + 1 < characters.count, characters[index + 1] == close {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index = min(index + 1, characters.count)
                note("\"")
            case ";":
                index += 1
                if !inTrigger || lastTokens == [";", "END"] {
                    finish(at: index)
                } else {
                    note(";")
                }
            default:
                if character.properties.isWhitespace {
                    index += 1
                } else if isWordCharacter(character) {
                    let wordStart = index
                    while index < characters.count, isWordCharacter(characters[index]) { index += 1 }
                    note(String(String.UnicodeScalarView(characters[wordStart..<index])))
                } else {
                    index += 1
                    note(String(character))
                }
            }
        }
        finish(at: characters.count)
        return statements
    }

    /// `CREATE [TEMP|TEMPORARY] TRIGGER`, possibly after `EXPLAIN`.
    private static func isTriggerStart(_ words: [String]) -> Bool {
        var words = words[...]
        if words.first == "EXPLAIN" { words = words.dropFirst() }
        guard words.first == "CREATE" else { return false }
        words = words.dropFirst()
        if words.first == "TEMP" || words.first == "TEMPORARY" { words = words.dropFirst() }
        return words.first == "TRIGGER"
    }

    private static func isWordCharacter(_ character: Unicode.Scalar) -> Bool {
        character == "_" || character == "$" || character.properties.isAlphabetic
            || ("0"..."9").contains(character) || character.value > 0x7F
    }
}
