// The rule language: a rule's SQL read token by token (UTF-8 bytes, never Characters), checked
// against the part of SQL every hub store reads alike, its names resolved to the space's own and
// quoted, and its `auth.*` and `bucket.*` references turned into bound parameters.
import Foundation
import Strata

/// One rule's SQL, checked and ready to render with its references bound.
struct RuleText: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case verbatim(String)
        case auth(String)
        case bucket(String)
    }

    let pieces: [Piece]
    /// The `bucket.*` names it uses (lower-cased).
    var bucketNames: Set<String> {
        Set(pieces.compactMap { if case .bucket(let name) = $0 { return name.lowercased() } else { return nil } })
    }

    var startsWithSelect: Bool { pieces.first == .verbatim("SELECT") }

    /// Keywords the rule language allows (SQLite's other keywords are refused).
    static let allowedKeywords: Set<String> = [
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "IS", "NULL", "EXISTS", "AS",
        "UNION", "ALL", "DISTINCT", "TRUE", "FALSE", "JOIN", "ON", "INNER", "LEFT", "CROSS"
    ]
    /// Keywords that may stand before `(` (a subquery or a list, never a function call).
    static let keywordsBeforeParenthesis: Set<String> = [
        "IN", "EXISTS", "AND", "OR", "NOT", "WHERE", "SELECT", "FROM", "ON",
        "JOIN", "UNION", "ALL", "DISTINCT", "AS"
    ]

    /// Reads `text`, refusing what lies outside the rule language; `where` names the rule in
    /// messages, `names` maps the space's table and column names (lower-cased) to their spelling.
    /// - Throws: ``SyncError/invalidRules(_:)``.
    init(_ text: String, where place: String, names: [String: String]) throws {
        func refuse(_ why: String) -> SyncError { .invalidRules("\(place): \(why)") }
        let bytes = Array(text.utf8)
        var pieces: [Piece] = []
        var index = 0
        func peek(_ offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }
        func isWordStart(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_") || byte >= 0x80
        }
        func isWordByte(_ byte: UInt8) -> Bool { isWordStart(byte) || (0x30...0x39).contains(byte) }
        func readWord() -> String {
            let start = index
            while let byte = peek(), isWordByte(byte) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        func nextNonSpace() -> UInt8? {
            var look = index
            while look < bytes.count, isSpace(bytes[look]) { look += 1 }
            return look < bytes.count ? bytes[look] : nil
        }
        func quotedToken(_ quote: UInt8) throws -> String {
            let start = index
            index += 1
            while true {
                guard let byte = peek() else { throw refuse("a \(quote == 0x27 ? "string" : "quoted name") is not closed") }
                index += 1
                if byte == quote {
                    if peek() == quote { index += 1; continue }
                    break
                }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        func name(_ word: String) -> String {
            quoteIdentifier(names[word.lowercased()] ?? word)
        }
        while let byte = peek() {
            if isSpace(byte) { index += 1; continue }
            if byte == 0 { throw refuse("the rule holds a NUL byte") }
            if byte == UInt8(ascii: "'") {
                let literal = try quotedToken(byte)
                guard !literal.utf8.contains(0) else { throw refuse("a string holds a NUL byte") }
                pieces.append(.verbatim(literal))
                continue
            }
            if byte == UInt8(ascii: "\"") {
                let quoted = try quotedToken(byte)
                // The name inside, unquoted, resolved like a bare one.
                let inner = String(decoding: Array(quoted.utf8.dropFirst().dropLast()), as: UTF8.self)
                let unescaped = String(decoding: Self.undoubled(Array(inner.utf8), quote: UInt8(ascii: "\"")), as: UTF8.self)
                pieces.append(.verbatim(name(unescaped)))
                continue
            }
            if isWordStart(byte) {
                let word = readWord()
                let upper = word.uppercased()
                let lower = word.lowercased()
                if lower == "auth" || lower == "bucket", peek() == UInt8(ascii: "."), let next = peek(1), isWordStart(next) {
                    index += 1
                    let member = readWord()
                    if lower == "auth" { pieces.append(.auth(member)) } else { pieces.append(.bucket(member)) }
                    continue
                }
                if Self.allowedKeywords.contains(upper) {
                    if nextNonSpace() == UInt8(ascii: "("), !Self.keywordsBeforeParenthesis.contains(upper) {
                        throw refuse("\(word)( is not in the rule language")
                    }
                    pieces.append(.verbatim(upper))
                    continue
                }
                if isSQLiteKeyword(word) && names[lower] == nil {
                    throw refuse("\(word) is not in the rule language (comparisons, AND/OR/NOT, IN, IS [NOT] NULL, EXISTS, SELECT … FROM … WHERE …)")
                }
                if nextNonSpace() == UInt8(ascii: "(") {
                    throw refuse("\(word)(…) is a function call; functions are not in the rule language (stores compute them differently)")
                }
                pieces.append(.verbatim(name(word)))
                continue
            }
            if (0x30...0x39).contains(byte) {
                let start = index
                while let digit = peek(), (0x30...0x39).contains(digit) { index += 1 }
                if peek() == UInt8(ascii: "."), let after = peek(1), (0x30...0x39).contains(after) {
                    index += 1
                    while let digit = peek(), (0x30...0x39).contains(digit) { index += 1 }
                }
                if let next = peek(), isWordByte(next) { throw refuse("a number runs into a name (hex and exponents are not in the rule language)") }
                pieces.append(.verbatim(String(decoding: bytes[start..<index], as: UTF8.self)))
                continue
            }
            let two = peek(1).map { String(decoding: [byte, $0], as: UTF8.self) } ?? ""
            if ["!=", "<>", "<=", ">="].contains(two) {
                pieces.append(.verbatim(two))
                index += 2
                continue
            }
            if two == "==" { throw refuse("== is SQLite's alone; write =") }
            if two == "--" || two == "/*" { throw refuse("comments are not in the rule language") }
            if two == "||" { throw refuse("|| is not in the rule language") }
            switch byte {
            case UInt8(ascii: "="), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","),
                UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                pieces.append(.verbatim(String(decoding: [byte], as: UTF8.self)))
                index += 1
            default:
                let shown = byte < 0x80 ? String(decoding: [byte], as: UTF8.self) : "byte \(byte)"
                throw refuse("\(shown) is not in the rule language (no parameters, ;, /, %, [ ] or backquotes)")
            }
        }
        guard !pieces.isEmpty else { throw refuse("the rule is empty") }
        var depth = 0
        for piece in pieces {
            if piece == .verbatim("(") { depth += 1 }
            if piece == .verbatim(")") { depth -= 1; if depth < 0 { throw refuse("a ) has no (") } }
        }
        guard depth == 0 else { throw refuse("a ( is not closed") }
        self.pieces = pieces
    }

    /// `bytes` with each doubled `quote` made single.
    static func undoubled(_ bytes: [UInt8], quote: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            out.append(bytes[index])
            if bytes[index] == quote, index + 1 < bytes.count, bytes[index + 1] == quote { index += 1 }
            index += 1
        }
        return out
    }

    /// The SQL with every reference a placeholder of `dialect`, numbered after `arguments`'
    /// count, whose values are appended to `arguments`: never spliced.
    func render(
        _ dialect: RuleDialect, identity: SyncIdentity?, bucket: [String: BindingValue],
        into arguments: inout [BindingValue]
    ) -> String {
        var parts: [String] = []
        parts.reserveCapacity(pieces.count)
        for piece in pieces {
            switch piece {
            case .verbatim(let sql): parts.append(sql)
            case .auth(let name):
                arguments.append(identity?.value(of: name) ?? .null)
                parts.append(dialect.placeholder(arguments.count))
            case .bucket(let name):
                arguments.append(bucket[name.lowercased()] ?? .null)
                parts.append(dialect.placeholder(arguments.count))
            }
        }
        return parts.joined(separator: " ")
    }
}
