import Foundation

// Typed full-text search: a record over an FTS5 table. Its properties are the table's columns in
// order (`createFTS5Table(_:options:)` makes them so), a property whose column is `rowid` reads the
// document's rowid, and the searches below bind every pattern.
//
//     @Record(table: "book_fts") struct BookText { @PrimaryKey @Column("rowid") var id: Int64?; var title: String }
//     try BookText.createFTS5Table(db, options: FTS5Options(content: .external(table: "book", rowID: "id")))
//     let hits = try BookText.matching(FTS5Pattern(matchingAllTokensIn: text)).orderByRank().fetchAll(db)
//
// A record that conforms to `FTS5Record` declares its options once: `createTable`,
// `createFTS5Table(db)` and `RecordSchema` then all make that FTS5 table, triggers included.

/// A record over an FTS5 table that declares how the table is made, so that `createTable`,
/// `createFTS5Table(_:)` and ``RecordSchema`` (and the migrations it freezes) create the
/// virtual table and its sync triggers rather than a plain table of the same columns.
///
/// ```swift
/// @Record(table: "bookmark_fts")
/// struct BookmarkText: FTS5Record {
///     static let fts5Options = FTS5Options(content: .external(table: "bookmark", rowID: "id"))
///     @PrimaryKey @Column("rowid") var id: Int64?
///     var title: String
/// }
/// try RecordSchema(Bookmark.self, BookmarkText.self).migrate(db)   // CREATE VIRTUAL TABLE … USING fts5
/// ```
public protocol FTS5Record: Record {
    /// The tokenizer, content, prefixes and unindexed columns the table is created with;
    /// FTS5's defaults unless the record says otherwise. `ifNotExists` is ignored.
    static var fts5Options: FTS5Options { get }
}

extension FTS5Record {
    /// FTS5's defaults: the `unicode61` tokenizer, content kept in the index.
    public static var fts5Options: FTS5Options { FTS5Options() }
}

extension Record {
    /// The record's searchable columns: every column but a `rowid` key.
    static var ftsColumns: [String] {
        recordColumns.map(\.name).filter { $0.lowercased() != "rowid" }
    }

    /// Creates an FTS5 table named ``Record/tableName`` with the record's columns, in order (a
    /// property mapped to `rowid` reads the document's rowid and is not a column).
    ///
    /// ```swift
    /// try BookText.createFTS5Table(db, options: FTS5Options(tokenizer: .porter(.unicode61())))
    /// ```
    /// - Parameters:
    ///   - db: The connection to create it on.
    ///   - options: How the table is made; nil for the record's ``FTS5Record/fts5Options`` when
    ///     it is an ``FTS5Record``, else FTS5's defaults.
    /// - Throws: `SQLiteError` (the table exists), or what `Connection.createFTS5Table(_:columns:options:)` throws.
    public static func createFTS5Table(_ db: Connection, options: FTS5Options? = nil) throws {
        let declared = (Self.self as? any FTS5Record.Type)?.fts5Options
        try db.createFTS5Table(tableName, columns: ftsColumns, options: options ?? declared ?? FTS5Options())
    }

    /// `table MATCH pattern`: the documents the pattern matches; none for a nil pattern (user
    /// text without a token).
    ///
    /// ```swift
    /// try BookText.matching(FTS5Pattern(matchingAllTokensIn: userText)).orderByRank().fetchAll(db)
    /// ```
    public static func matching(_ pattern: FTS5Pattern?) -> RecordQuery<Self> {
        all().matching(pattern)
    }

    /// FTS5's `rank` of the current match (by default BM25: smaller is better), to order by.
    public static var rank: SQLExpression<Double?> {
        SQLExpression(.column("rank", table: tableName), moduleReader: aggregateReader("rank"))
    }

    /// `bm25(table, weights…)`: BM25 with a weight per column, in the order of the record's
    /// columns (smaller is better).
    ///
    /// ```swift
    /// BookText.matching(pattern).order { _ in BookText.bm25(10, 1) }
    /// ```
    public static func bm25(_ weights: Double...) -> SQLExpression<Double?> {
        let arguments = [SQLFragment.identifier(tableName)] + weights.map { "\($0)" }
        return SQLExpression(.call("bm25", arguments), moduleReader: aggregateReader("bm25"))
    }

    /// `highlight(table, column, open, close)`: the column's text with each match wrapped.
    ///
    /// ```swift
    /// BookText.matching(pattern).select { ($0.id, BookText.highlight(\.title, open: "<b>", close: "</b>")) }
    /// ```
    public static func highlight<V>(_ column: KeyPath<Columns, TypedColumn<V>>, open: String, close: String) -> SQLExpression<String?> {
        auxiliary("highlight", column, [.text(open), .text(close)])
    }

    /// `snippet(table, column, open, close, ellipsis, tokens)`: a short extract around the matches.
    public static func snippet<V>(
        _ column: KeyPath<Columns, TypedColumn<V>>, open: String, close: String,
        ellipsis: String = "…", tokens: Int = 16
    ) -> SQLExpression<String?> {
        auxiliary("snippet", column, [.text(open), .text(close), .text(ellipsis), .integer(Int64(tokens))])
    }

    private static func auxiliary<V>(_ function: String, _ column: KeyPath<Columns, TypedColumn<V>>, _ arguments: [BindingValue]) -> SQLExpression<String?> {
        let name = columns[keyPath: column].name
        // FTS5 numbers the table's columns from 0; the record's columns are in that order.
        let index = ftsColumns.firstIndex(of: name) ?? -1
        let all = [SQLFragment.identifier(tableName), "\(Int64(index))"] + arguments.map(SQLFragment.bound)
        return SQLExpression(.call(function, all), moduleReader: aggregateReader("\(function)(\(name))"))
    }
}

extension RecordQuery where R: Record {
    /// Narrows the query to the documents `pattern` matches (none for nil).
    public func matching(_ pattern: FTS5Pattern?) -> RecordQuery {
        guard let pattern else { return self.where { _ in RecordPredicate("0") } }
        return self.where { _ in
            RecordPredicate(.infix(.identifier(R.tableName), .match, "\(pattern)"))
        }
    }

    /// Orders the matches best first (FTS5's `rank`).
    public func orderByRank() -> RecordQuery {
        order { _ in R.rank }
    }
}

extension TypedColumn {
    /// `column MATCH pattern`: the documents whose text in this column the pattern matches; none
    /// for nil. Works on a joined FTS5 record too.
    public func match(_ pattern: FTS5Pattern?) -> RecordPredicate {
        guard let pattern else { return RecordPredicate("0") }
        return compared(.match, "\(pattern)")
    }
}
