// Search: SQLite's FTS5 full-text search. This folder owns FTS5 tables (`createFTS5Table`, their
// options and tokenizers, external content kept in sync by triggers), `FTS5Pattern` (MATCH
// patterns that are safe to build from user text) and tokenizers written in Swift, registered
// through SQLite's `fts5_api`. Tables are rendered by the one table definition
// (Schema/Definition/TableDefinition.swift); quoting comes from Statements/SQLText.swift.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

/// A tokenizer for an FTS5 table: how its text is split into the tokens a search matches.
///
/// ```swift
/// FTS5Options(tokenizer: .porter(.unicode61(removeDiacritics: .always)))
/// FTS5Options(tokenizer: .unicode61(tokenCharacters: "-_"))
/// FTS5Options(tokenizer: .custom(name: "dashes"))   // registered with registerFTS5Tokenizer(named:_:)
/// ```
/// See <https://www.sqlite.org/fts5.html#tokenizers>.
public indirect enum FTS5Tokenizer: Sendable, Hashable {
    /// Unicode 6.1 word splitting, case folded: FTS5's default.
    ///
    /// - Parameters:
    ///   - removeDiacritics: whether `é` matches `e`; nil for SQLite's default (`.always`
    ///     except for some composed letters, which is `remove_diacritics 1`).
    ///   - tokenCharacters: characters to treat as part of tokens (`"-_"` keeps `e-mail` whole).
    ///   - separators: characters to treat as separators.
    case unicode61(removeDiacritics: DiacriticsRemoval? = nil, tokenCharacters: String? = nil, separators: String? = nil)
    /// ASCII word splitting: every non-ASCII character is a token character, only ASCII is folded.
    case ascii
    /// The Porter stemmer over another tokenizer: `running` matches `run`.
    case porter(_ base: FTS5Tokenizer)
    /// Every three-character sequence is a token: substring search (`LIKE '%abc%'`) for any language.
    case trigram
    /// A tokenizer by name, with its arguments: one of SQLite's, an extension's, or one
    /// registered with `Connection/registerFTS5Tokenizer(named:_:)`.
    case custom(name: String, arguments: [String] = [])

    /// `remove_diacritics` of `unicode61`.
    public enum DiacriticsRemoval: Int, Sendable, Hashable {
        /// `remove_diacritics 0`: `é` and `e` are different tokens.
        case keep = 0
        /// `remove_diacritics 1`: removed, except from letters that have several diacritics.
        case removeLegacy = 1
        /// `remove_diacritics 2`: removed from every letter (SQLite 3.27 and later).
        case always = 2
    }

    /// The words of the `tokenize` option: name, then arguments (a wrapped tokenizer follows).
    var words: [String] {
        switch self {
        case .unicode61(let removeDiacritics, let tokenCharacters, let separators):
            var words = ["unicode61"]
            if let removeDiacritics { words += ["remove_diacritics", String(removeDiacritics.rawValue)] }
            if let tokenCharacters { words += ["tokenchars", tokenCharacters] }
            if let separators { words += ["separators", separators] }
            return words
        case .ascii: return ["ascii"]
        case .porter(let base): return ["porter"] + base.words
        case .trigram: return ["trigram"]
        case .custom(let name, let arguments): return [name] + arguments
        }
    }

    /// The names of the tokenizers this one is made of, outermost first (`porter` and the
    /// tokenizer it wraps), which FTS5 looks up by name when a table is created.
    var tokenizerNames: [String] {
        switch self {
        case .porter(let base): return ["porter"] + base.tokenizerNames
        case .custom(let name, let arguments):
            // A `porter` spelled out: its arguments name the tokenizer it wraps.
            if name.lowercased() == "porter", let parent = arguments.first { return [name, parent] }
            return [name]
        default: return words.first.map { [$0] } ?? []
        }
    }

    /// The `tokenize = '…'` argument. FTS5 reads the option's value as words, each a bareword
    /// or a single-quoted literal, so every word that is not a bareword is single-quoted (inner
    /// quotes doubled) before the whole value becomes an SQL string literal.
    var optionSQL: String {
        let value = words.map { word -> String in
            let isBareword =
                !word.isEmpty
                && word.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                }
            return isBareword ? word : quoteStringLiteral(word)
        }.joined(separator: " ")
        return "tokenize = " + quoteStringLiteral(value)
    }
}

/// How an FTS5 table is created: its tokenizer, where its content lives, its prefix indexes and
/// the columns it stores without indexing.
///
/// ```swift
/// try db.createFTS5Table("book_fts", columns: ["title", "isbn"],
///                        options: FTS5Options(content: .external(table: "book", rowID: "id"),
///                                             prefixes: [2, 3], unindexedColumns: ["isbn"]))
/// ```
public struct FTS5Options: Sendable, Hashable {
    /// Where an FTS5 table's text is kept.
    public enum Content: Sendable, Hashable {
        /// In the index's own content table (FTS5's default).
        case `internal`
        /// Nowhere: the index can be searched, but its columns read as NULL (`content=''`).
        case contentless
        /// In another table, whose rows are indexed under `rowID` (its `INTEGER PRIMARY KEY`, or
        /// `rowid`). `Connection/createFTS5Table(_:columns:options:)` fills the index from it
        /// and creates triggers that keep the index in sync with it.
        case external(table: String, rowID: String = "rowid")
        /// In another table whose key is not its rowid (a TEXT key, a UUID, as synced tables
        /// have). The index's rowids come from a key map the library keeps, `<index>_keys(id
        /// INTEGER PRIMARY KEY, key UNIQUE)`, read through the view `<index>_content`, so they
        /// stay the same through `VACUUM` (which may renumber such a table's rowids), sync pulls
        /// and rebuilds. Triggers keep the map and the index in step with the table.
        case externalByKey(table: String, key: String)
    }

    /// The tokenizer; nil for FTS5's default (`unicode61`).
    public var tokenizer: FTS5Tokenizer?
    /// Where the text is kept.
    public var content: Content
    /// Prefix lengths, in characters, to index for fast prefix queries (`prefix = '2 3'`).
    public var prefixes: [Int]
    /// Columns stored but not indexed (`UNINDEXED`): never matched, still read back.
    public var unindexedColumns: [String]
    /// `IF NOT EXISTS`.
    public var ifNotExists: Bool

    /// Options for an FTS5 table; the defaults are FTS5's own.
    public init(
        tokenizer: FTS5Tokenizer? = nil, content: Content = .internal, prefixes: [Int] = [],
        unindexedColumns: [String] = [], ifNotExists: Bool = false
    ) {
        self.tokenizer = tokenizer
        self.content = content
        self.prefixes = prefixes
        self.unindexedColumns = unindexedColumns
        self.ifNotExists = ifNotExists
    }
}

extension Connection {
    /// The `CREATE VIRTUAL TABLE … USING fts5(…)` statement for a table, as the one table
    /// definition renders it.
    package static func fts5TableDefinition(_ name: String, columns: [String], options: FTS5Options) -> TableDefinition {
        let unindexed = Set(options.unindexedColumns)
        let definitions = columns.map { column in
            TableDefinition.Column(column, unindexed.contains(column) ? [.raw("UNINDEXED")] : [])
        }
        var arguments: [String] = []
        if let tokenizer = options.tokenizer { arguments.append(tokenizer.optionSQL) }
        switch options.content {
        case .internal: break
        case .contentless: arguments.append("content = ''")
        case .external(let table, let rowID):
            arguments.append("content = " + quoteStringLiteral(table))
            if !sameIdentifier(rowID, "rowid") { arguments.append("content_rowid = " + quoteStringLiteral(rowID)) }
        case .externalByKey:
            arguments.append("content = " + quoteStringLiteral(fts5KeyedContentView(name)))
            arguments.append("content_rowid = " + quoteStringLiteral(fts5KeyMapIDColumn))
        }
        if !options.prefixes.isEmpty {
            arguments.append("prefix = " + quoteStringLiteral(options.prefixes.map(String.init).joined(separator: " ")))
        }
        return .virtual(name, using: "fts5", columns: definitions, arguments: arguments, ifNotExists: options.ifNotExists)
    }

    /// Creates an FTS5 full-text index.
    ///
    /// ```swift
    /// try db.createFTS5Table("docs", columns: ["title", "body"])
    /// try db.createFTS5Table("book_fts", columns: ["title"],
    ///                        options: FTS5Options(content: .external(table: "book", rowID: "id")))
    /// ```
    /// With external content the index is filled from the content table now, and triggers named
    /// `<index>_ai`, `<index>_ad` and `<index>_au` keep it in sync on insert, delete and update.
    /// A keyed index's `<index>_bi` and `<index>_bu` also keep aside, in `<index>_replaced`, a
    /// row a REPLACE is about to remove (SQLite removes it without its delete trigger), so its
    /// tokens go too; after a REPLACE into a rowid-keyed index's table, rebuild it.
    /// Everything is created in one savepoint: on failure nothing is left behind. With
    /// `options.ifNotExists`, an index that exists already is left as it is, triggers included.
    /// - Throws: `SQLiteError` (FTS5 missing, an unknown tokenizer, a missing content column).
    public func createFTS5Table(_ name: String, columns: [String], options: FTS5Options = FTS5Options()) throws {
        if case .externalByKey = options.content, let clash = columns.first(where: { sameIdentifier($0, Self.fts5KeyMapIDColumn) }) {
            throw SQLiteError(
                code: SQLITE_ERROR,
                message: "A keyed FTS5 index reads its rowid as \(Self.fts5KeyMapIDColumn); the column \(clash) cannot be indexed under that name")
        }
        // IF NOT EXISTS covers the whole set: an index already there keeps its triggers and
        // content (re-creating the triggers failed with "trigger … already exists").
        if options.ifNotExists, try schemaReader.table(named: name) != nil { return }
        try strataSavepoint(named: "strata_fts5") {
            var keyCollation: String?
            if case .externalByKey(let table, let key) = options.content {
                // A key index that compares as BINARY is left to the column's collation, which
                // a later rebuild of the table may change; a looser one (NOCASE) is named, so a
                // REPLACE through it is caught. Finding too many rows is safe: a row kept aside
                // is unfiled only if the write really removed it.
                keyCollation = try schemaReader.keyIndexCollations(ofTable: table, column: key).first { !sameIdentifier($0, "BINARY") }
            }
            for statement in Self.fts5CreateStatements(name, columns: columns, options: options, keyCollation: keyCollation) { try execute(statement) }
        }
    }

    /// Everything that creates an FTS5 table, in order: the table, then for external content the
    /// sync triggers and the statement that fills the index from the content table.
    /// `keyCollation` is a collation a keyed table's key index declares beside BINARY, when known
    /// (nil: the key column's own).
    package static func fts5CreateStatements(_ name: String, columns: [String], options: FTS5Options, keyCollation: String? = nil) -> [String] {
        var statements = [fts5TableDefinition(name, columns: columns, options: options).sql]
        switch options.content {
        case .external(let table, let rowID):
            statements += fts5SyncTriggers(index: name, columns: columns, contentTable: table, rowID: rowID)
            statements.append(fts5RebuildSQL(name))
        case .externalByKey(let table, let key):
            statements += fts5KeyMapStatements(index: name, columns: columns, contentTable: table, key: key, keyCollation: keyCollation)
            statements.append(fts5RebuildSQL(name))
        case .internal, .contentless:
            break
        }
        return statements
    }

    /// What undoes ``fts5CreateStatements(_:columns:options:)``: the sync triggers (which would
    /// otherwise fail every later write to the content table), then the table and its shadow tables.
    static func fts5DropStatements(_ name: String, options: FTS5Options) -> [String] {
        var statements: [String] = []
        switch options.content {
        case .external, .externalByKey:
            statements = (fts5SyncTriggerSuffixes + fts5ReplaceTriggerSuffixes).map { "DROP TRIGGER IF EXISTS main." + quoteIdentifier(name + "_" + $0) }
        case .internal, .contentless:
            break
        }
        statements.append("DROP TABLE main." + quoteIdentifier(name))
        if case .externalByKey = options.content {
            statements.append("DROP VIEW IF EXISTS main." + quoteIdentifier(fts5KeyedContentView(name)))
            statements.append("DROP TABLE IF EXISTS main." + quoteIdentifier(fts5KeyMapTable(name)))
            statements.append("DROP TABLE IF EXISTS main." + quoteIdentifier(fts5KeySourceTable(name)))
            statements.append("DROP TABLE IF EXISTS main." + quoteIdentifier(fts5ReplacedRowTable(name)))
        }
        return statements
    }

    /// Rebuilds an FTS5 index from its content (the external table, for external content).
    ///
    /// Use it after changing the content table with the triggers bypassed or dropped.
    /// - Throws: `SQLiteError` (no such table, a contentless table, which has nothing to rebuild from).
    public func rebuildFTS5Table(_ name: String) throws {
        // A keyed index reads its content through the map: the map is brought back in step
        // with the table first (keys the bypassed triggers did not add or remove).
        guard let source = try fts5KeySource(name) else { return try execute(Self.fts5RebuildSQL(name)) }
        try strataSavepoint(named: "strata_fts5") {
            let map = quoteIdentifier(Self.fts5KeyMapTable(name)), table = quoteIdentifier(source.table), key = quoteIdentifier(source.key)
            try execute("DELETE FROM \(map) WHERE \"key\" NOT IN (SELECT \(key) FROM \(table) WHERE \(key) IS NOT NULL)")
            try execute(
                "INSERT INTO \(map)(\"key\") SELECT \(key) FROM \(table) WHERE \(key) IS NOT NULL AND \(key) NOT IN (SELECT \"key\" FROM \(map)) ORDER BY \(key)"
            )
            try execute(Self.fts5RebuildSQL(name))
        }
    }

    /// FTS5's `rebuild` command for a table.
    static func fts5RebuildSQL(_ name: String) -> String {
        "INSERT INTO " + quoteIdentifier(name) + "(" + quoteIdentifier(name) + ") VALUES('rebuild')"
    }

    /// The name suffixes of the sync triggers, on insert, delete and update.
    static let fts5SyncTriggerSuffixes = ["ai", "ad", "au"]
    /// The name suffixes of a keyed index's BEFORE INSERT and BEFORE UPDATE triggers, which keep
    /// aside the row a REPLACE is about to remove (see ``fts5ReplacedRowTable(_:)``).
    static let fts5ReplaceTriggerSuffixes = ["bi", "bu"]

    /// The triggers that keep an external-content index in sync with its table. A change
    /// deletes the old row's tokens (FTS5 needs the old values to find them) and inserts the new.
    /// These are the triggers SQLite's documentation gives: a REPLACE leaves the replaced row's
    /// tokens behind (a keyed index's triggers keep that row aside; these add no table beside
    /// the index, which users of this common form see), so rebuild after one.
    static func fts5SyncTriggers(index: String, columns: [String], contentTable: String, rowID: String) -> [String] {
        let target = quoteIdentifier(index)
        let table = quoteIdentifier(contentTable)
        let columnList = columns.map(quoteIdentifier).joined(separator: ", ")
        func values(_ row: String) -> String {
            ([row + "." + quoteIdentifier(rowID)] + columns.map { row + "." + quoteIdentifier($0) }).joined(separator: ", ")
        }
        let insert = "INSERT INTO \(target)(rowid, \(columnList)) VALUES (\(values("new")));"
        let delete = "INSERT INTO \(target)(\(target), rowid, \(columnList)) VALUES ('delete', \(values("old")));"
        let bodies = [insert, delete, delete + " " + insert]
        return zip(fts5SyncTriggerSuffixes, zip(["INSERT", "DELETE", "UPDATE"], bodies)).map { fts5Trigger(index, $0, "AFTER", $1.0, table, $1.1) }
    }

    /// One trigger of an index's set, `<index>_<suffix>`.
    static func fts5Trigger(_ index: String, _ suffix: String, _ timing: String, _ event: String, _ table: String, _ body: String) -> String {
        "CREATE TRIGGER " + quoteIdentifier(index + "_" + suffix) + " " + timing + " " + event + " ON " + table + " BEGIN " + body + " END"
    }

    /// Where a keyed index keeps aside, for one insert or update, the row a REPLACE is about to
    /// remove without its delete trigger: its id in the index and its indexed values.
    static func fts5ReplacedRowTable(_ index: String) -> String { index + "_replaced" }

    // MARK: - Keyed external content

    /// Whether `index` is a keyed external-content index (``FTS5Options/Content/externalByKey(table:key:)``):
    /// its rowids are the key map's ids, not the content table's rowids.
    func isKeyedFTS5Index(_ index: String) throws -> Bool {
        try fts5KeySource(index) != nil
    }

    /// The table and key column a keyed index maps, as its `<index>_key_source` row records them;
    /// nil for any other index.
    package func fts5KeySource(_ index: String) throws -> (table: String, key: String)? {
        guard try schemaReader.entry(named: Self.fts5KeySourceTable(index), types: ["table"]) != nil,
            try schemaReader.entry(named: Self.fts5KeyMapTable(index), types: ["table"]) != nil,
            try schemaReader.entry(named: Self.fts5KeyedContentView(index), types: ["view"]) != nil,
            let row: Row = try query(literal: "SELECT \"table\", \"key\" FROM \(identifier: Self.fts5KeySourceTable(index))"),
            let table: String = row.value(at: 0), let key: String = row.value(at: 1)
        else { return nil }
        return (table, key)
    }

    /// Where a keyed index records what it maps (one row): read by searches that join back.
    static func fts5KeySourceTable(_ index: String) -> String { index + "_key_source" }

    /// The key map of a keyed external-content index: a stable integer per key.
    package static func fts5KeyMapTable(_ index: String) -> String { index + "_keys" }
    /// The view the index reads its content through: the table's columns under the map's ids.
    static func fts5KeyedContentView(_ index: String) -> String { index + "_content" }
    /// The key map's integer column, and the view's rowid column (a content column of this
    /// name is refused by `createFTS5Table`).
    package static let fts5KeyMapIDColumn = "strata_fts_id"

    /// The key map, its content view, the triggers that keep both and the index in step, and
    /// the map filled from the table's rows (the index is then rebuilt through the view).
    static func fts5KeyMapStatements(index: String, columns: [String], contentTable: String, key: String, keyCollation: String?) -> [String] {
        let map = quoteIdentifier(fts5KeyMapTable(index))
        let id = quoteIdentifier(fts5KeyMapIDColumn)
        let target = quoteIdentifier(index)
        let table = quoteIdentifier(contentTable)
        let keyColumn = quoteIdentifier(key)
        let columnList = columns.map(quoteIdentifier).joined(separator: ", ")
        // Written as INSERT … SELECT from the map, so a row without a mapped key (a NULL key)
        // adds nothing to the index instead of an entry under a rowid FTS5 picks.
        func fromMap(_ row: String, _ command: String?) -> String {
            let list = (command.map { [quoteStringLiteral($0)] } ?? []) + ["m." + id] + columns.map { row + "." + quoteIdentifier($0) }
            let into = (command == nil ? "" : target + ", ") + "rowid, " + columnList
            return "INSERT INTO \(target)(\(into)) SELECT \(list.joined(separator: ", ")) FROM \(map) AS m WHERE m.\"key\" = \(row).\(keyColumn);"
        }
        let view =
            "CREATE VIEW " + quoteIdentifier(fts5KeyedContentView(index)) + " AS SELECT m." + id + " AS " + id
            + columns.map { ", t." + quoteIdentifier($0) + " AS " + quoteIdentifier($0) }.joined()
            + " FROM " + table + " AS t JOIN " + map + " AS m ON m.\"key\" = t." + keyColumn
        let keyMap = KeyMapSQL(map: fts5KeyMapTable(index), idColumn: fts5KeyMapIDColumn, table: contentTable, key: key)
        let addKey = keyMap.addNewKey, rekey = keyMap.rekey, dropKey = keyMap.dropOldKey
        let insert = fromMap("new", nil)
        let delete = fromMap("old", "delete")
        let aside = FTS5ReplacedRow(
            index: index, columns: columns, contentTable: table, key: keyColumn,
            keyCollation: keyCollation, map: map, id: id)
        let bodies = [
            aside.unfile + " " + addKey + " " + insert,
            aside.forgetDeleted + " " + delete + " " + dropKey,
            aside.unfile + " " + delete + " " + rekey + " " + addKey + " " + insert
        ]
        let sourceTable = quoteIdentifier(fts5KeySourceTable(index))
        return [
            keyMap.createTable(), keyMap.fill(),
            "CREATE TABLE \(sourceTable)(\"table\" TEXT NOT NULL, \"key\" TEXT NOT NULL)",
            "INSERT INTO \(sourceTable) VALUES (\(quoteStringLiteral(contentTable)), \(quoteStringLiteral(key)))",
            aside.createTable, view
        ]
            + zip(fts5SyncTriggerSuffixes, zip(["INSERT", "DELETE", "UPDATE"], bodies)).map { fts5Trigger(index, $0, "AFTER", $1.0, table, $1.1) }
            + aside.keepAsideTriggers.map { fts5Trigger(index, $0.suffix, "BEFORE", $0.event, table, $0.body) }
    }
}

/// The row a REPLACE is about to remove from a keyed index's table. SQLite removes it without
/// its delete trigger (unless recursive_triggers is on), and FTS5 can drop a row's tokens only
/// given the values it indexed: so before each insert or update, the other row of the new key,
/// if any, is kept aside in `<index>_replaced` under the key being written, and that write's
/// AFTER trigger unfiles it (tokens and map entry) when the row is really gone. Kept per key,
/// so a write nested in between (a foreign-key action, a user's trigger) neither uses nor clears
/// another write's row; what an ignored insert leaves is replaced at that key's next write, and
/// a deleted row's copy goes with it.
private struct FTS5ReplacedRow {
    /// The `<index>_replaced` table's CREATE TABLE statement.
    let createTable: String
    /// The AFTER trigger's statements that drop the replaced row's tokens and map entry.
    let unfile: String
    /// The BEFORE INSERT and BEFORE UPDATE triggers' suffixes, events and bodies, which keep the row aside.
    let keepAsideTriggers: [(suffix: String, event: String, body: String)]
    /// The AFTER DELETE trigger's statement that drops a copy of the deleted row (with
    /// recursive_triggers on, a REPLACE's delete trigger has unfiled it already).
    let forgetDeleted: String

    /// Names arrive quoted; `keyCollation` is the collation the table's key index compares
    /// with (nil: the column's own), so the row kept aside is the one a REPLACE would remove.
    init(index: String, columns: [String], contentTable table: String, key: String, keyCollation: String?, map: String, id: String) {
        let aside = quoteIdentifier(Connection.fts5ReplacedRowTable(index))
        let target = quoteIdentifier(index)
        let values = columns.indices.map { quoteIdentifier("c\($0)") }
        let valueList = values.map { ", " + $0 }.joined()
        let (newKey, oldKey, rowID) = (quoteIdentifier("new_key"), quoteIdentifier("old_key"), quoteIdentifier("row_id"))
        createTable = "CREATE TABLE \(aside)(\(newKey), \(oldKey), \(rowID) INTEGER\(valueList))"
        let collate = keyCollation.map { " COLLATE " + quoteIdentifier($0) } ?? ""
        let select =
            "INSERT INTO \(aside)(\(newKey), \(oldKey), \(rowID)\(valueList)) SELECT new.\(key), t.\(key), m.\(id)"
            + columns.map { ", t." + quoteIdentifier($0) }.joined()
            + " FROM \(table) AS t JOIN \(map) AS m ON m.\"key\" = t.\(key) WHERE t.\(key) = new.\(key)\(collate)"
        let forget = "DELETE FROM \(aside) WHERE \(newKey) IS new.\(key);"
        // An update's own row matches its new key too (a NOCASE key re-spelled): not that one.
        keepAsideTriggers = zip(
            Connection.fts5ReplaceTriggerSuffixes,
            [
                ("INSERT", "\(forget) \(select);"),
                ("UPDATE", "\(forget) \(select) AND t.\(key) IS NOT old.\(key) COLLATE BINARY;")
            ]
        ).map { ($0, $1.0, $1.1) }
        // Gone: the same key is written again, or no row keeps the replaced key's spelling (a
        // key index that tells 'a' from 'A' under a NOCASE column kept both rows).
        let gone =
            "r.\(newKey) IS new.\(key) AND (r.\(oldKey) IS new.\(key) COLLATE BINARY"
            + " OR NOT EXISTS (SELECT 1 FROM \(table) AS t WHERE t.\(key) = r.\(oldKey) COLLATE BINARY))"
        unfile =
            "INSERT INTO \(target)(\(target), rowid, \(columns.map(quoteIdentifier).joined(separator: ", ")))"
            + " SELECT 'delete', r.\(rowID)\(values.map { ", r." + $0 }.joined()) FROM \(aside) AS r WHERE \(gone);"
            + " DELETE FROM \(map) WHERE \(id) IN (SELECT r.\(rowID) FROM \(aside) AS r WHERE \(gone));"
            + " \(forget)"
        forgetDeleted = "DELETE FROM \(aside) WHERE \(rowID) IN (SELECT \(id) FROM \(map) WHERE \"key\" = old.\(key));"
    }
}
