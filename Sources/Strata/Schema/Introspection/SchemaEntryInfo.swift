import Foundation

/// One row of `sqlite_master`: a table, index, view or trigger.
///
/// ```swift
/// for entry in try db.schema.schemaEntries where entry.isIndex { print(entry.name, entry.tableName) }
/// ```
/// See <https://www.sqlite.org/schematab.html>.
public struct SchemaEntryInfo: Hashable, Sendable {
    /// `table`, `index`, `view` or `trigger`.
    public let type: String
    /// The object's name.
    public let name: String
    /// The table the object belongs to (its own name for tables and views).
    public let tableName: String
    /// The root b-tree page; 0 for views and triggers.
    public let rootPage: Int
    /// The SQL that created the object; nil for automatic indexes (from `UNIQUE`/`PRIMARY KEY`).
    public let sql: String?

    /// Creates an entry.
    public init(type: String, name: String, tableName: String, rootPage: Int, sql: String?) {
        self.type = type
        self.name = name
        self.tableName = tableName
        self.rootPage = rootPage
        self.sql = sql
    }

    /// Whether the entry is a table.
    public var isTable: Bool { type == "table" }
    /// Whether the entry is an index.
    public var isIndex: Bool { type == "index" }
    /// Whether the entry is a view.
    public var isView: Bool { type == "view" }
    /// Whether the entry is a trigger.
    public var isTrigger: Bool { type == "trigger" }

    /// Whether the entry is a virtual table (`CREATE VIRTUAL TABLE`: FTS5, R*Tree, ...), which
    /// SQLite lists as a table without storage of its own.
    public var isVirtualTable: Bool { virtualTableModule != nil }

    /// The module of a virtual table (`fts5`, `rtree`, ...), lowercased; nil for any other entry.
    public var virtualTableModule: String? {
        guard isTable, rootPage == 0, let sql else { return nil }
        return Self.module(ofCreateVirtualTableSQL: sql)
    }

    /// The module named after `USING` in a `CREATE VIRTUAL TABLE` statement. SQLite stores the
    /// statement with its first words normalized, so only the name (bare, quoted or
    /// schema-qualified) has to be skipped to reach `USING`.
    static func module(ofCreateVirtualTableSQL sql: String) -> String? {
        let prefix = "CREATE VIRTUAL TABLE"
        guard sql.count > prefix.count, sql.prefix(prefix.count).uppercased() == prefix else { return nil }
        var rest = Substring(sql.dropFirst(prefix.count))
        func skipSpaces() { rest = rest.drop { $0.isWhitespace } }
        func identifier() -> String? {
            skipSpaces()
            guard let first = rest.first else { return nil }
            let closing: Character? = ["\"": "\"", "`": "`", "[": "]", "'": "'"][first]
            guard let closing else {
                let word = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
                rest = rest.dropFirst(word.count)
                return word.isEmpty ? nil : String(word)
            }
            var name = ""
            rest = rest.dropFirst()
            while let character = rest.first {
                rest = rest.dropFirst()
                if character == closing {
                    guard closing != "]", rest.first == closing else { return name }
                    rest = rest.dropFirst()
                }
                name.append(character)
            }
            return nil
        }
        guard identifier() != nil else { return nil }
        skipSpaces()
        if rest.first == "." {
            rest = rest.dropFirst()
            guard identifier() != nil else { return nil }
        }
        guard identifier()?.uppercased() == "USING" else { return nil }
        return identifier()?.lowercased()
    }
}
