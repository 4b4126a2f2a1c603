// The rule language's types, as PostgreSQL plans them: a rule is accepted only when every
// operator meets operands it takes on both stores, so that a rule SQLite runs (by its loose
// typing) is never one PostgreSQL refuses in production, and the two never answer differently.
import Foundation
import Strata

extension RuleText {
    /// What an expression yields, as far as its text tells.
    enum ValueType: Equatable {
        case number, text, blob, boolean
        /// NULL: meets every type.
        case null
        /// A column or value the text does not name (an alias the checker does not follow, `*`).
        case unknown

        var words: String {
            switch self {
            case .number: "a number"
            case .text: "text"
            case .blob: "a blob"
            case .boolean: "a condition (a boolean)"
            case .null: "NULL"
            case .unknown: "a value"
            }
        }

        init(_ kind: RuleOperandKind) {
            switch kind {
            case .number: self = .number
            case .text, .claim: self = .text
            case .blob: self = .blob
            case .boolean: self = .boolean
            }
        }

        /// Whether `self` and `other` compare on both stores.
        func meets(_ other: ValueType) -> Bool {
            self == other || self == .null || other == .null || self == .unknown || other == .unknown
        }
    }

    /// Refuses a rule whose operators meet operands of another type than they take in
    /// PostgreSQL: comparisons of different kinds, arithmetic on text, a condition used as a
    /// value or a value as a condition, `IS` with anything but NULL, `TRUE`, `FALSE` or
    /// `DISTINCT FROM`, chained comparisons, and subqueries or `UNION` arms of another kind.
    /// `ownTable` is the data or write rule's table (quoted); `column` gives a column's kind.
    /// - Throws: ``SyncError/invalidRules(_:)`` naming the rule and the operator.
    func checkTypes(
        place: String, ownTable: String?, bucketKinds: [String: RuleOperandKind],
        column: (_ table: String?, _ name: String) -> RuleOperandKind?
    ) throws {
        try withoutActuallyEscaping(column) { column in
            var checker = TypeChecker(pieces: pieces, place: place, bucketKinds: bucketKinds, column: column)
            if let ownTable {
                checker.scopes = [[ownTable: ownTable]]
                checker.baseScopes = 1
            }
            do {
                if startsWithSelect {
                    _ = try checker.readQuery()
                } else {
                    try checker.requireCondition(try checker.readExpression(), "the rule")
                }
                guard checker.index == pieces.count else { throw TypeChecker.Unread.unread }
            } catch TypeChecker.Unread.unread {
                // Text the checker does not read is SQLite's to refuse or run: the shapes above
                // are the ones it follows.
                return
            }
        }
    }

    /// The kinds of a parameters query's result columns as PostgreSQL types them (lower-cased
    /// names, unquoted): a parenthesised value, arithmetic, a subquery, each `UNION` arm. Nil
    /// where the reader does not follow the text.
    func inferredResultKinds(column: (_ table: String?, _ name: String) -> RuleOperandKind?) -> [String: RuleOperandKind] {
        withoutActuallyEscaping(column) { column in
            var checker = TypeChecker(pieces: pieces, place: "", bucketKinds: [:], column: column)
            guard startsWithSelect, let types = try? checker.readQuery(), types.count == checker.resultNames.count else { return [:] }
            var kinds: [String: RuleOperandKind] = [:]
            for (name, type) in zip(checker.resultNames, types) {
                guard let name else { continue }
                let key =
                    name.hasPrefix("\"")
                    ? String(decoding: Self.undoubled(Array(name.utf8.dropFirst().dropLast()), quote: UInt8(ascii: "\"")), as: UTF8.self).lowercased()
                    : name.lowercased()
                switch type {
                case .number: kinds[key] = .number
                case .text: kinds[key] = .text
                case .blob: kinds[key] = .blob
                case .boolean: kinds[key] = .boolean
                case .null, .unknown: break
                }
            }
            return kinds
        }
    }

    /// A recursive-descent reader of the rule language that infers each expression's type.
    struct TypeChecker {
        enum Unread: Error { case unread }

        let pieces: [Piece]
        let place: String
        let bucketKinds: [String: RuleOperandKind]
        let column: (_ table: String?, _ name: String) -> RuleOperandKind?
        var index = 0
        /// The tables each enclosing query reads, by the name (or alias) that qualifies them.
        var scopes: [[String: String]] = []
        /// The scopes outside the rule's own query (a data rule's table).
        var baseScopes = 0
        /// The names of the outermost SELECT's result columns (as written, quoted or not).
        var resultNames: [String?] = []

        init(
            pieces: [Piece], place: String, bucketKinds: [String: RuleOperandKind],
            column: @escaping (_ table: String?, _ name: String) -> RuleOperandKind?
        ) {
            self.pieces = pieces
            self.place = place
            self.bucketKinds = bucketKinds
            self.column = column
        }

        func refuse(_ why: String) -> SyncError { .invalidRules("\(place): \(why)") }

        var word: String? {
            guard index < pieces.count, case .verbatim(let text) = pieces[index] else { return nil }
            return text
        }

        mutating func takeWord(_ text: String) -> Bool {
            guard word == text else { return false }
            index += 1
            return true
        }

        mutating func expectWord(_ text: String) throws {
            guard takeWord(text) else { throw Unread.unread }
        }

        static func isName(_ text: String) -> Bool { text.hasPrefix("\"") }

        /// A condition where one is read (WHERE, ON, AND, OR, NOT, the rule itself).
        func requireCondition(_ type: ValueType, _ where_: String) throws {
            guard type == .boolean || type == .null || type == .unknown else {
                throw refuse("\(where_) is \(type.words), where PostgreSQL wants a condition; compare it (= 1, IS NOT NULL)")
            }
        }

        // MARK: Queries

        /// A SELECT and its UNION arms; the types of its result columns.
        mutating func readQuery() throws -> [ValueType] {
            var first = try readSelect()
            while takeWord("UNION") {
                _ = takeWord("ALL")
                let arm = try readSelect()
                guard arm.count == first.count else { throw Unread.unread }
                for (position, (one, other)) in zip(first, arm).enumerated() where !one.meets(other) {
                    throw refuse(
                        "UNION gives result column \(position + 1) \(one.words) in one arm and \(other.words) in another: PostgreSQL refuses it; select values of one kind"
                    )
                }
                first = zip(first, arm).map { $0 == .null || $0 == .unknown ? $1 : $0 }
            }
            return first
        }

        mutating func readSelect() throws -> [ValueType] {
            try expectWord("SELECT")
            _ = takeWord("DISTINCT") || takeWord("ALL")
            // The result columns are read after FROM, whose tables they name.
            let itemsStart = index
            var depth = 0
            while index < pieces.count {
                if depth == 0, word == "FROM" || word == "UNION" || word == ")" { break }
                if word == "(" { depth += 1 }
                if word == ")" { depth -= 1 }
                index += 1
            }
            let itemsEnd = index
            scopes.append([:])
            defer { scopes.removeLast() }
            if takeWord("FROM") { try readFrom() }
            let end = index
            if takeWord("WHERE") {
                try requireCondition(try readExpression(), "WHERE")
            }
            let after = index
            index = itemsStart
            var types: [ValueType] = []
            var names: [String?] = []
            repeat {
                if takeWord("*") {
                    types.append(.unknown)
                    names.append(nil)
                } else {
                    let start = index
                    var type = try readExpression()
                    // A NULL result column is text to PostgreSQL (its unknown type resolved).
                    if type == .null { type = .text }
                    types.append(type)
                    var name: String?
                    if index - start == 1, let text = pieceText(start), Self.isName(text) { name = text }
                    if index - start == 3, pieceText(start + 1) == ".", let text = pieceText(start + 2), Self.isName(text) { name = text }
                    if takeWord("AS") {
                        name = word
                        index += 1
                    }
                    names.append(name)
                }
            } while takeWord(",") && index < itemsEnd
            guard index == itemsEnd else { throw Unread.unread }
            index = after
            _ = end
            // The first arm names the result columns.
            if scopes.count == 1 + baseScopes, resultNames.isEmpty { resultNames = names }
            return types
        }

        /// The verbatim text of piece `index`, if it is one.
        func pieceText(_ index: Int) -> String? {
            guard pieces.indices.contains(index), case .verbatim(let text) = pieces[index] else { return nil }
            return text
        }

        /// FROM's tables (comma and JOIN joins), each with its alias, into the innermost scope.
        mutating func readFrom() throws {
            repeat {
                if word == "(" {
                    throw refuse(
                        "a subquery in FROM is not in the rule language (PostgreSQL and SQLite name and type its columns differently); read a table, or use IN (SELECT …)"
                    )
                }
                guard var table = word, Self.isName(table) else { throw Unread.unread }
                index += 1
                if takeWord("."), let qualified = word, Self.isName(qualified) {
                    table = qualified
                    index += 1
                }
                var alias = table
                if takeWord("AS") {
                    guard let name = word, Self.isName(name) else { throw Unread.unread }
                    alias = name
                    index += 1
                } else if let name = word, Self.isName(name) {
                    alias = name
                    index += 1
                }
                scopes[scopes.count - 1][alias] = table
                if takeWord("ON") { try requireCondition(try readExpression(), "ON") }
                if takeWord(",") { continue }
                _ = takeWord("INNER") || takeWord("LEFT") || takeWord("CROSS")
                if takeWord("JOIN") { continue }
                break
            } while true
        }

        // MARK: Expressions

        mutating func readExpression() throws -> ValueType {
            var type = try readConjunction()
            while takeWord("OR") {
                try requireCondition(type, "OR's left side")
                try requireCondition(try readConjunction(), "OR's right side")
                type = .boolean
            }
            return type
        }

        mutating func readConjunction() throws -> ValueType {
            var type = try readNegation()
            while takeWord("AND") {
                try requireCondition(type, "AND's left side")
                try requireCondition(try readNegation(), "AND's right side")
                type = .boolean
            }
            return type
        }

        mutating func readNegation() throws -> ValueType {
            if takeWord("NOT") {
                try requireCondition(try readNegation(), "NOT's operand")
                return .boolean
            }
            return try readPredicate()
        }

        mutating func readPredicate() throws -> ValueType {
            let type = try readComparison()
            // `n IN (1, 2) = 1`: PostgreSQL reads the IN first, then has no = for its boolean.
            if let next = word, RuleText.comparisonOperators.contains(next) || next == "+" || next == "-" || next == "*" {
                throw refuse(
                    "uses a condition as a value before \(next): PostgreSQL has no \(next) for booleans; compare values, and join conditions with AND or OR")
            }
            return type
        }

        mutating func readComparison() throws -> ValueType {
            let left = try readAdditive()
            if let op = word, RuleText.comparisonOperators.contains(op) {
                index += 1
                let right = try readAdditive()
                try requireComparable(left, right, op)
                if let next = word, RuleText.comparisonOperators.contains(next) {
                    throw refuse("chains comparisons (\(op) then \(next)): SQLite compares the first one's 0 or 1, PostgreSQL refuses; join them with AND")
                }
                return .boolean
            }
            if takeWord("IS") {
                let negated = takeWord("NOT")
                if takeWord("NULL") { return .boolean }
                if takeWord("TRUE") || takeWord("FALSE") {
                    guard left == .boolean || left == .null else {
                        throw refuse("IS \(negated ? "NOT " : "")TRUE or FALSE of \(left.words): PostgreSQL reads it of a condition only; write = 1 or = 0")
                    }
                    return .boolean
                }
                if takeWord("DISTINCT") {
                    try expectWord("FROM")
                    try requireComparable(left, try readAdditive(), "IS DISTINCT FROM")
                    return .boolean
                }
                throw refuse("IS compares with NULL in PostgreSQL (with any value in SQLite); write = for a value, IS NULL, or IS NOT DISTINCT FROM")
            }
            let negated = takeWord("NOT")
            if takeWord("IN") {
                try expectWord("(")
                if word == ")" { throw refuse("IN () is SQLite's alone (PostgreSQL has no empty list); write FALSE, or NOT IN a list") }
                if word == "SELECT" {
                    let selected = try readQuery()
                    guard selected.count == 1 else { throw refuse("IN (SELECT …) selects \(selected.count) columns; select one") }
                    try requireComparable(left, selected[0], "IN")
                } else {
                    repeat { try requireComparable(left, try readAdditive(), "IN") } while takeWord(",")
                }
                try expectWord(")")
                return .boolean
            }
            if negated { throw Unread.unread }
            return left
        }

        /// Refuses `left op right` when the two do not compare alike on both stores.
        func requireComparable(_ left: ValueType, _ right: ValueType, _ op: String) throws {
            if left == .boolean || right == .boolean, !(left == right) {
                throw refuse(
                    "\(op) compares \(left.words) with \(right.words): PostgreSQL has no such comparison; compare values, and join conditions with AND or OR")
            }
            guard left.meets(right) else {
                throw refuse("\(op) compares \(left.words) with \(right.words): SQLite converts by affinity and PostgreSQL refuses; compare values of one kind")
            }
        }

        mutating func readAdditive() throws -> ValueType {
            let type = try readUnary()
            if let op = word, op == "+" || op == "-" || op == "*" {
                index += 1
                let right = try readUnary()
                for operand in [type, right] where !(operand == .number || operand == .null || operand == .unknown) {
                    throw refuse("arithmetic (\(op)) on \(operand.words): SQLite reads it as a number, PostgreSQL refuses; compute on numbers only")
                }
                // Even on numbers: past 64 bits SQLite makes a REAL and PostgreSQL fails the
                // statement, so one row a user writes would fail every pull of the view there.
                throw refuse(
                    "arithmetic (\(op)) is not in the rule language: a result past 64 bits is a REAL in SQLite and an error in PostgreSQL, which would fail every pull; compare columns and values as they are"
                )
            }
            return type
        }

        mutating func readUnary() throws -> ValueType {
            if let op = word, op == "-" || op == "+" {
                index += 1
                // A sign on a number written out (`-1`); on anything else it is arithmetic, and
                // `-n` of the smallest INTEGER is a REAL in SQLite and an error in PostgreSQL.
                let literal =
                    index < pieces.count
                    && {
                        if case .verbatim(let text) = pieces[index], let first = text.utf8.first, (0x30...0x39).contains(first) {
                            return true
                        } else {
                            return false
                        }
                    }()
                let type = try readUnary()
                guard type == .number || type == .null || type == .unknown else {
                    throw refuse("\(op) on \(type.words): SQLite reads it as a number, PostgreSQL refuses; compute on numbers only")
                }
                guard literal else {
                    throw refuse(
                        "\(op) before a value that is not a number written out is arithmetic, not in the rule language (-n of the smallest INTEGER is a REAL in SQLite and an error in PostgreSQL)"
                    )
                }
                return .number
            }
            return try readPrimary()
        }

        mutating func readPrimary() throws -> ValueType {
            guard index < pieces.count else { throw Unread.unread }
            switch pieces[index] {
            case .auth, .authList:
                index += 1
                return .text
            case .bucket(let name):
                index += 1
                return bucketKinds[name.lowercased()].map(ValueType.init) ?? .unknown
            case .verbatim(let text):
                if text.hasPrefix("'") {
                    index += 1
                    return .text
                }
                if let first = text.utf8.first, (0x30...0x39).contains(first) {
                    index += 1
                    return .number
                }
                switch text {
                case "NULL":
                    index += 1
                    return .null
                case "TRUE", "FALSE":
                    index += 1
                    return .boolean
                case "EXISTS":
                    index += 1
                    try expectWord("(")
                    _ = try readQuery()
                    try expectWord(")")
                    return .boolean
                case "(":
                    index += 1
                    let type: ValueType
                    if word == "SELECT" {
                        let selected = try readQuery()
                        guard selected.count == 1 else {
                            throw refuse("a subquery used as a value selects \(selected.count) columns; select one")
                        }
                        type = selected[0]
                    } else {
                        type = try readExpression()
                        if word == "," {
                            throw refuse("row values ((a, b) = (1, 2)) are not in the rule language; compare each column, joined with AND")
                        }
                    }
                    try expectWord(")")
                    return type
                default:
                    guard Self.isName(text) else { throw Unread.unread }
                    index += 1
                    if takeWord(".") {
                        guard let name = word, Self.isName(name) else { throw Unread.unread }
                        index += 1
                        return try typeOfColumn(qualifier: text, name)
                    }
                    return try typeOfColumn(qualifier: nil, text)
                }
            }
        }

        /// A column's type: qualified by a table or alias of an enclosing query, else the
        /// innermost query's table that has it, else any table's when only one has it.
        func typeOfColumn(qualifier: String?, _ name: String) throws -> ValueType {
            if let qualifier {
                for scope in scopes.reversed() {
                    guard let table = scope[qualifier] else { continue }
                    // The nearest query that names `qualifier` decides, as in PostgreSQL (SQLite
                    // looks further out when that table lacks the column).
                    guard let kind = column(table, name) else {
                        throw refuse(
                            "\(qualifier).\(name): \(qualifier) here is \(table), which has no column \(name); name the table you mean by an alias of its own")
                    }
                    return ValueType(kind)
                }
                return column(qualifier, name).map(ValueType.init) ?? .unknown
            }
            for scope in scopes.reversed() {
                for table in scope.values.sorted() {
                    if let kind = column(table, name) { return ValueType(kind) }
                }
            }
            return column(nil, name).map(ValueType.init) ?? .unknown
        }
    }
}
