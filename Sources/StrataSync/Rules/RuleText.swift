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
        /// A claim's list of values, always between `IN (` and `)`.
        case authList(String)
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
    /// messages, `names` resolves the space's table and column names to their spelling.
    /// - Throws: ``SyncError/invalidRules(_:)``.
    init(_ text: String, where place: String, names: RuleNames) throws {
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
        /// Refuses names only SQLite reads, bare or quoted (`shown` as written): its own tables,
        /// the rowid (numbered per copy of a row, and read under the name even beside a column so
        /// named in another table), and schema qualifiers (`main.doc`), which PostgreSQL reads
        /// as its own.
        func refuseSQLiteOwnName(_ name: String, shown: String) throws {
            let lowered = name.lowercased()
            if lowered.hasPrefix("sqlite_"), !names.knows(name) {
                throw refuse("\(shown) is SQLite's own table; rules read the space's tables")
            }
            if ["rowid", "_rowid_", "oid"].contains(lowered) {
                throw refuse(
                    "\(shown) is SQLite's rowid, which each copy of a row numbers its own way (PostgreSQL has none); name another column (rename a column so named)"
                )
            }
            if ["main", "temp"].contains(lowered), peek() == UInt8(ascii: "."), !names.knows(name) {
                throw refuse("\(shown).… names a schema; rules name the space's tables and columns without one")
            }
        }
        func name(_ word: String) throws -> String {
            quoteIdentifier(try names.spelling(of: word, place: place) ?? word)
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
                try refuseSQLiteOwnName(unescaped, shown: quoted)
                pieces.append(.verbatim(try name(unescaped)))
                continue
            }
            if isWordStart(byte) {
                let word = readWord()
                let upper = word.uppercased()
                let lower = word.lowercased()
                if lower == "auth" || lower == "bucket", peek() == UInt8(ascii: "."), let next = peek(1), isWordStart(next) {
                    index += 1
                    let member = readWord()
                    // A claim is one name whatever its case: the value the SQL reads and the one a
                    // view records must be the same claim.
                    if lower == "auth", pieces.last == .verbatim("IN") {
                        // `IN auth.groups`: the claim's list, as a parenthesised list of values.
                        pieces += [.verbatim("("), .authList(member.lowercased()), .verbatim(")")]
                    } else if lower == "auth" {
                        pieces.append(.auth(member.lowercased()))
                    } else {
                        pieces.append(.bucket(member))
                    }
                    continue
                }
                if Self.allowedKeywords.contains(upper) {
                    if nextNonSpace() == UInt8(ascii: "("), !Self.keywordsBeforeParenthesis.contains(upper) {
                        throw refuse("\(word)( is not in the rule language")
                    }
                    pieces.append(.verbatim(upper))
                    continue
                }
                try refuseSQLiteOwnName(word, shown: word)
                if isSQLiteKeyword(word) && !names.knows(word) {
                    throw refuse("\(word) is not in the rule language (comparisons, AND/OR/NOT, IN, IS [NOT] NULL, EXISTS, SELECT … FROM … WHERE …)")
                }
                if nextNonSpace() == UInt8(ascii: "(") {
                    throw refuse("\(word)(…) is a function call; functions are not in the rule language (stores compute them differently)")
                }
                pieces.append(.verbatim(try name(word)))
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
                let digits = bytes[start..<index]
                if !digits.contains(UInt8(ascii: ".")), Int64(String(decoding: digits, as: UTF8.self)) == nil {
                    throw refuse("the number \(String(decoding: digits, as: UTF8.self)) is past 64 bits: a REAL in SQLite, an exact NUMERIC in PostgreSQL")
                }
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
        // `x IN t` reads a table without naming it after FROM: the hub could not follow it.
        for (index, piece) in pieces.enumerated() where piece == .verbatim("IN") {
            guard index + 1 < pieces.count, pieces[index + 1] == .verbatim("(") else {
                throw refuse("IN takes a list or a SELECT in parentheses: x IN (1, 2), x IN (SELECT id FROM t)")
            }
        }
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
        bucketKinds: [String: RuleOperandKind] = [:], into arguments: inout [BindingValue]
    ) -> String {
        var parts: [String] = []
        parts.reserveCapacity(pieces.count)
        for piece in pieces {
            switch piece {
            case .verbatim(let sql): parts.append(sql)
            case .auth(let name):
                arguments.append(identity?.value(of: name) ?? .null)
                parts.append(dialect.claimPlaceholder(arguments.count))
            case .authList(let name):
                let values = identity?.values(of: name) ?? []
                // An empty list as a query of no rows: `IN ()` is SQLite's alone, and `IN (NULL)`
                // would make `NOT IN` unknown rather than true.
                guard !values.isEmpty else {
                    parts.append("SELECT CAST(NULL AS TEXT) WHERE FALSE")
                    continue
                }
                var placeholders: [String] = []
                for value in values {
                    arguments.append(.text(value))
                    placeholders.append(dialect.claimPlaceholder(arguments.count))
                }
                parts.append(placeholders.joined(separator: ", "))
            case .bucket(let name):
                arguments.append(bucket[name.lowercased()] ?? .null)
                parts.append(dialect.bucketPlaceholder(arguments.count, bucketKinds[name.lowercased()]))
            }
        }
        return parts.joined(separator: " ")
    }
}

extension RuleText {
    static let comparisonOperators: Set<String> = ["=", "!=", "<>", "<", "<=", ">", ">="]
    static let conditionStarts: Set<String> = ["WHERE", "AND", "OR", "NOT", "(", "ON"]
    static let conditionEnds: Set<String> = ["AND", "OR", ")", "UNION"]

    /// Refuses comparisons the stores would answer differently: a claim (text) with a column
    /// that is not TEXT, a text literal with a numeric or BLOB column, a number with a TEXT or
    /// BLOB column, `TRUE`/`FALSE` with a column, and a column standing alone as a condition.
    /// `column` gives a column's kind by its (quoted) table and name, nil when the rule's text
    /// does not tell (an alias, a result column, a name several tables give other types).
    /// - Throws: ``SyncError/invalidRules(_:)`` in words, naming the rule, the column and the
    ///   shape to write instead.
    func checkComparisons(
        place: String, ownTable: String? = nil, isTable: (String) -> Bool, bucketKinds: [String: RuleOperandKind] = [:],
        column: (_ table: String?, _ name: String) -> RuleOperandKind?
    ) throws {
        func verbatim(_ index: Int) -> String? {
            guard pieces.indices.contains(index), case .verbatim(let text) = pieces[index] else { return nil }
            return text
        }
        func isName(_ text: String?) -> Bool { text?.hasPrefix("\"") == true }
        /// The column at `index` (a name, maybe after `table .`), with its shown name.
        func columnAt(_ index: Int) -> (RuleOperandKind, String)? {
            guard let name = verbatim(index), isName(name), verbatim(index + 1) != "." else { return nil }
            if isTable(name) {
                // A column named like a table (`proj` beside a table `proj`): the rule's own
                // table's column, when it has one.
                guard verbatim(index - 1) != ".", let ownTable, let kind = column(ownTable, name) else { return nil }
                return (kind, name)
            }
            let table = verbatim(index - 1) == "." ? verbatim(index - 2) : nil
            return column(table, name).map { ($0, name) }
        }
        /// The operand that ends at `index` (left of an operator) or starts there (right of one).
        func operand(_ index: Int, right: Bool) -> (RuleOperandKind, String)? {
            guard pieces.indices.contains(index) else { return nil }
            switch pieces[index] {
            case .auth(let name), .authList(let name): return (.claim, "auth.\(name)")
            case .bucket(let name):
                return bucketKinds[name.lowercased()].map { ($0, "bucket.\(name)") }
            case .verbatim(let text):
                if text.hasPrefix("'") { return (.text, text) }
                if let first = text.utf8.first, (0x30...0x39).contains(first) { return (.number, text) }
                if text == "TRUE" || text == "FALSE" { return (.boolean, text) }
                if right, isName(text), verbatim(index + 1) == "." { return columnAt(index + 2) }
                return columnAt(index)
            }
        }
        func isColumn(_ kind: RuleOperandKind, _ name: String) -> Bool { name.hasPrefix("\"") }
        for (index, piece) in pieces.enumerated() {
            guard case .verbatim(let op) = piece else { continue }
            // `a IS [NOT] DISTINCT FROM b` compares as `=` does.
            var leftIndex = index - 1
            if op == "FROM", verbatim(index - 1) == "DISTINCT" {
                guard verbatim(index - 2) == "IS" || (verbatim(index - 2) == "NOT" && verbatim(index - 3) == "IS") else { continue }
                leftIndex = verbatim(index - 2) == "IS" ? index - 3 : index - 4
            } else if !Self.comparisonOperators.contains(op) {
                continue
            }
            guard let left = operand(leftIndex, right: false), let right = operand(index + 1, right: true) else { continue }
            // Two columns: of one kind (PostgreSQL has no `=` between text and a number).
            if isColumn(left.0, left.1), isColumn(right.0, right.1), Self.family(left.0) != Self.family(right.0) {
                throw SyncError.invalidRules(
                    "\(place): compares \(left.1), \(left.0.words), with \(right.1), \(right.0.words): SQLite converts by affinity and PostgreSQL refuses; compare columns of one kind"
                )
            }
            // Two values, neither a column: their kinds must agree (`'1' = 1` is false in SQLite
            // and true in PostgreSQL; `TRUE = 1` fails there).
            if !isColumn(left.0, left.1), !isColumn(right.0, right.1) {
                if Self.family(left.0) != Self.family(right.0) {
                    throw SyncError.invalidRules(
                        "\(place): compares \(left.1) (\(left.0.words)) with \(right.1) (\(right.0.words)): SQLite and PostgreSQL compare different kinds differently; compare values of one kind"
                    )
                }
            }
            for (one, other) in [(left, right), (right, left)] where isColumn(other.0, other.1) && !isColumn(one.0, one.1) {
                let column = other.1, kind = other.0
                let refused: String?
                switch (one.0, kind) {
                case (.claim, .number), (.claim, .blob):
                    refused =
                        "compares \(one.1) (\(one.1.hasPrefix("bucket.") ? "a claim's value" : "a claim"), always text) with \(column), \(kind.words): SQLite converts '1' to 1 and PostgreSQL refuses; "
                        + "compare claims with TEXT columns, or map the claim to the column's values in a bucket's parameters "
                        + "(SELECT id AS org FROM org WHERE name = \(one.1), then \(column) = bucket.org)"
                case (.boolean, _):
                    refused = "compares \(one.1) with \(column): TRUE and FALSE are booleans in PostgreSQL; write \(column) = 1 or \(column) = 0"
                case (.text, .number), (.text, .blob):
                    refused =
                        "compares the text \(one.1) with \(column), \(kind.words): SQLite converts it by affinity and PostgreSQL refuses it; compare with a number"
                case (.number, .text), (.number, .blob):
                    refused =
                        "compares the number \(one.1) with \(column), \(kind.words): SQLite converts it by affinity and PostgreSQL refuses it; compare with a 'text'"
                default: refused = nil
                }
                if let refused { throw SyncError.invalidRules("\(place): \(refused)") }
            }
        }
        // Arithmetic on a claim: text in SQLite's arithmetic is a number or 0, in PostgreSQL an error.
        for (index, piece) in pieces.enumerated() {
            guard case .auth(let name) = piece else { continue }
            let arithmetic: Set<String> = ["+", "-", "*"]
            if let before = verbatim(index - 1), arithmetic.contains(before), index >= 2 {
                throw SyncError.invalidRules("\(place): auth.\(name) is text (a claim); arithmetic on it is read differently by SQLite and PostgreSQL")
            }
            if let after = verbatim(index + 1), arithmetic.contains(after) {
                throw SyncError.invalidRules("\(place): auth.\(name) is text (a claim); arithmetic on it is read differently by SQLite and PostgreSQL")
            }
        }
        // A column IN a list of literals: each literal as if compared with `=`.
        for (index, piece) in pieces.enumerated() where piece == .verbatim("IN") && verbatim(index + 1) == "(" && verbatim(index + 2) != "SELECT" {
            let columnIndex = verbatim(index - 1) == "NOT" ? index - 2 : index - 1
            guard let (kind, column) = columnAt(columnIndex) else { continue }
            var look = index + 2
            while look < pieces.count, verbatim(look) != ")" {
                if let (one, shown) = operand(look, right: true), !shown.hasPrefix("\"") {
                    let mixed: Bool
                    switch (one, kind) {
                    case (.claim, .number), (.claim, .blob), (.boolean, _), (.text, .number), (.text, .blob), (.number, .text), (.number, .blob):
                        mixed = true
                    default: mixed = false
                    }
                    if mixed {
                        throw SyncError.invalidRules(
                            "\(place): lists \(shown) (\(one.words)) for \(column), \(kind.words): SQLite converts it by affinity and PostgreSQL refuses it; list values of the column's own kind"
                        )
                    }
                }
                look += 1
            }
        }
        // A column alone as a condition: PostgreSQL wants a boolean there.
        for index in pieces.indices {
            guard let (_, name) = columnAt(index) else { continue }
            let start = verbatim(index - 1) == "." ? index - 3 : index - 1
            let before = start < 0 ? "WHERE" : verbatim(start)
            let after = index + 1 < pieces.count ? verbatim(index + 1) : "AND"
            // `(n)` alone is a value in parentheses (`(n) + 1`): the type check decides where it stands.
            if let before, let after, Self.conditionStarts.contains(before), Self.conditionEnds.contains(after), !(before == "(" && after == ")") {
                throw SyncError.invalidRules("\(place): \(name) stands alone as a condition, which PostgreSQL reads only for a boolean; write \(name) = 1")
            }
        }
        try checkTypes(place: place, ownTable: ownTable, bucketKinds: bucketKinds, column: column)
    }

    /// Kinds that compare: text and claims, numbers, blobs, booleans.
    static func family(_ kind: RuleOperandKind) -> Int {
        switch kind {
        case .text, .claim: 0
        case .number: 1
        case .blob: 2
        case .boolean: 3
        }
    }
}

extension RuleText {
    /// The kind of each result column of a parameters query (lower-cased name), where its text
    /// tells: a claim, a column, a literal, named by `AS` or by the column. A query with `UNION`
    /// tells none (its arms may differ).
    func resultKinds(column: (_ table: String?, _ name: String) -> RuleOperandKind?) -> [String: RuleOperandKind] {
        guard !pieces.contains(.verbatim("UNION")) else { return [:] }
        var items: [[Piece]] = [[]]
        var depth = 0
        for piece in pieces.dropFirst() {
            if depth == 0, piece == .verbatim("FROM") { break }
            if piece == .verbatim("(") { depth += 1 }
            if piece == .verbatim(")") { depth -= 1 }
            if depth == 0, piece == .verbatim(",") { items.append([]); continue }
            items[items.count - 1].append(piece)
        }
        func unquoted(_ name: String) -> String {
            String(decoding: Self.undoubled(Array(name.utf8.dropFirst().dropLast()), quote: UInt8(ascii: "\"")), as: UTF8.self).lowercased()
        }
        var kinds: [String: RuleOperandKind] = [:]
        for item in items {
            var expression = item
            var name: String?
            if expression.count >= 2, expression[expression.count - 2] == .verbatim("AS"), case .verbatim(let alias) = expression[expression.count - 1] {
                name = alias.hasPrefix("\"") ? unquoted(alias) : alias.lowercased()
                expression.removeLast(2)
            }
            var kind: RuleOperandKind?
            switch expression.count {
            case 1:
                switch expression[0] {
                case .auth, .authList: kind = .claim
                case .bucket: kind = nil
                case .verbatim(let text):
                    if text.hasPrefix("'") {
                        kind = .text
                    } else if let first = text.utf8.first, (0x30...0x39).contains(first) {
                        kind = .number
                    } else if text.hasPrefix("\"") {
                        kind = column(nil, text)
                        name = name ?? unquoted(text)
                    }
                }
            case 3:
                if expression[1] == .verbatim("."), case .verbatim(let table) = expression[0], case .verbatim(let text) = expression[2], text.hasPrefix("\"") {
                    kind = column(table, text)
                    name = name ?? unquoted(text)
                }
            default: kind = nil
            }
            if let name, let kind { kinds[name] = kind }
        }
        return kinds
    }
}

extension RuleText {
    /// The names (quoted, as rendered) of the tables this rule reads after `FROM` or `JOIN`,
    /// comma joins and schema-qualified names included.
    var tablesRead: Set<String> {
        var read: Set<String> = []
        func name(_ index: Int) -> String? {
            guard pieces.indices.contains(index), case .verbatim(let text) = pieces[index], text.hasPrefix("\"") else { return nil }
            return text
        }
        for (index, piece) in pieces.enumerated() where piece == .verbatim("FROM") || piece == .verbatim("JOIN") {
            var look = index + 1
            while var table = name(look) {
                if pieces.indices.contains(look + 2), pieces[look + 1] == .verbatim("."), let qualified = name(look + 2) {
                    table = qualified
                    look += 2
                }
                read.insert(table)
                look += 1
                if pieces.indices.contains(look), pieces[look] == .verbatim("AS") {
                    look += 2
                } else if name(look) != nil {
                    look += 1
                }
                guard pieces.indices.contains(look), pieces[look] == .verbatim(",") else { break }
                look += 1
            }
        }
        return read
    }
}
