import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

/// A full-text query for FTS5's `MATCH`, built safely from user text.
///
/// ```swift
/// if let pattern = FTS5Pattern(matchingAllTokensIn: searchField.text) {
///     let hits: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(pattern) ORDER BY rank")
/// }
/// ```
/// The text is split into words (runs of letters, digits and combining marks), and each word is
/// written as an FTS5 string (`"word"`), so nothing the user types (quotes, `NEAR`, `AND`, `*`,
/// `^`, `:`, parentheses) is ever read as query syntax: a pattern built from text never raises an
/// FTS5 syntax error. A text with no word gives nil. The pattern binds as its text.
public struct FTS5Pattern: Sendable, Hashable, Bindable, CustomStringConvertible {
    /// The FTS5 query text.
    public let rawPattern: String

    private init?(tokensOf text: String, joinedBy separator: String, prefixLast: Bool = false, prefixAll: Bool = false) {
        let tokens = Self.tokens(in: text)
        guard !tokens.isEmpty else { return nil }
        rawPattern = tokens.enumerated().map { offset, token in
            let quoted = Self.quote(token)
            return prefixAll || (prefixLast && offset == tokens.count - 1) ? quoted + "*" : quoted
        }.joined(separator: separator)
    }

    /// Rows that contain every word of `text`, anywhere, in any order; nil when it has none.
    public init?(matchingAllTokensIn text: String) {
        self.init(tokensOf: text, joinedBy: " ")
    }

    /// Rows that contain at least one word of `text`; nil when it has none.
    public init?(matchingAnyTokenIn text: String) {
        self.init(tokensOf: text, joinedBy: " OR ")
    }

    /// Rows that contain the words of `text` in a row, in order; nil when it has none.
    public init?(matchingPhrase text: String) {
        self.init(tokensOf: text, joinedBy: " + ")
    }

    /// Rows that contain, for every word of `text`, a token that starts with it; nil when it has none.
    public init?(matchingAllPrefixesIn text: String) {
        self.init(tokensOf: text, joinedBy: " ", prefixAll: true)
    }

    /// Rows that contain a token starting with any word of `text`; nil when it has none.
    public init?(matchingAnyPrefixIn text: String) {
        self.init(tokensOf: text, joinedBy: " OR ", prefixAll: true)
    }

    /// Rows that contain the words of `text` in a row, the last one as a prefix (search as you
    /// type: `"hello wor"` matches `hello world`); nil when it has none.
    public init?(matchingPhrasePrefix text: String) {
        self.init(tokensOf: text, joinedBy: " + ", prefixLast: true)
    }

    /// A pattern written in FTS5's query syntax, unchecked. Prefer
    /// ``Connection/makeFTS5Pattern(rawPattern:forTable:)``, which validates it.
    package init(unchecked rawPattern: String) {
        self.rawPattern = rawPattern
    }

    /// The pattern's text.
    public var bindingValue: BindingValue { .text(rawPattern) }

    /// The pattern's text.
    public var description: String { rawPattern }

    /// The words of `text`, cut at white space and at ASCII characters other than letters and
    /// digits. Everything else stays in the word and reaches the table's own tokenizer inside
    /// the quoted string: SQLite's `unicode61` knows Unicode 6.1 (U+1F642 is a token character
    /// to it, U+1F600 a separator), so only the tokenizer can say where non-ASCII words end,
    /// and a quoted string it splits further is a phrase, which the same text always matches.
    static func tokens(in text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let separates =
                scalar.properties.isWhitespace
                || (scalar.isASCII && !(("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)))
            if separates {
                if !current.isEmpty { tokens.append(String(current)); current = String.UnicodeScalarView() }
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        return tokens
    }

    /// `text` as an FTS5 string: in double quotes, each inner double quote doubled.
    static func quote(_ text: String) -> String {
        quoted(text, by: UInt8(ascii: "\""))
    }
}

extension SQLFragment.StringInterpolation {
    /// `\(pattern)` for an optional pattern: binds the pattern, or, when it is nil (the user's
    /// text had no word), a pattern that matches nothing. `MATCH NULL` would be an FTS5 syntax
    /// error, so `WHERE docs MATCH \(FTS5Pattern(matchingAllTokensIn: text))` never fails.
    public mutating func appendInterpolation(_ pattern: FTS5Pattern?) {
        appendInterpolation(pattern ?? FTS5Pattern.matchingNothing)
    }
}

extension FTS5Pattern {
    /// A pattern that matches no row: an empty phrase.
    static let matchingNothing = FTS5Pattern(unchecked: "\"\"")
}

extension Connection {
    /// A pattern written in FTS5's query syntax (`"sqlite AND (fast OR small)"`, `title: swift*`),
    /// checked against `table` before it is used.
    ///
    /// ```swift
    /// let pattern = try db.makeFTS5Pattern(rawPattern: "swift NEAR(sqlite fts5)", forTable: "docs")
    /// ```
    /// - Throws: `SQLiteError` whose message names the table and the pattern when FTS5 refuses it
    ///   (a syntax error, an unknown column), or the table is not an FTS5 table.
    public func makeFTS5Pattern(rawPattern: String, forTable table: String) throws -> FTS5Pattern {
        let sql = "SELECT rowid FROM " + quoteIdentifier(table) + " WHERE " + quoteIdentifier(table) + " MATCH ? LIMIT 1"
        do {
            let statement = try Statement(connection: self, sql: sql)
            try statement.bind(values: [.text(rawPattern)])
            _ = try statement.step()
        } catch let error as SQLiteError {
            throw SQLiteError(
                code: error.code,
                message: "Invalid FTS5 pattern \(rawPattern.debugDescription) for table \(quoteIdentifier(table)): \(error.message)",
                sql: sql)
        }
        return FTS5Pattern(unchecked: rawPattern)
    }
}
