import StrataKernel
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

    /// The arguments of a virtual table's module (`CREATE VIRTUAL TABLE t USING fts5(a, b,
    /// content='docs')` gives `["a", "b", "content='docs'"]`), as written; empty for any other entry.
    public var virtualTableArguments: [String] {
        guard isTable, rootPage == 0, let sql else { return [] }
        return Self.parseCreateVirtualTable(sql)?.arguments ?? []
    }

    /// The value of an FTS table's `content` option, unquoted: `""` for a contentless table
    /// (`content=''`), a table or view name for an external-content one, nil when the table
    /// keeps its own content (or is not an FTS table).
    public var ftsContentOption: String? { ftsOption("content") }

    /// The value of an FTS table's option `key` (`content`, `columnsize`, `tokenize`, ...), unquoted.
    func ftsOption(_ key: String) -> String? {
        guard let module = virtualTableModule, module.hasPrefix("fts") else { return nil }
        for argument in virtualTableArguments {
            let scalars = Array(argument.unicodeScalars)
            guard let equals = Self.topLevelEquals(in: scalars) else { continue }
            let name = String(String.UnicodeScalarView(scalars[..<equals])).trimmingCharacters(in: .whitespacesAndNewlines)
            guard sameIdentifier(name, key) else { continue }
            let value = String(String.UnicodeScalarView(scalars[(equals + 1)...])).trimmingCharacters(in: .whitespacesAndNewlines)
            return Self.unquoted(value)
        }
        return nil
    }

    /// The module named after `USING` in a `CREATE VIRTUAL TABLE` statement, lowercased.
    static func module(ofCreateVirtualTableSQL sql: String) -> String? {
        parseCreateVirtualTable(sql)?.module
    }

    /// Reads `CREATE VIRTUAL TABLE [schema.]name USING module[(arguments)]` on Unicode scalars
    /// (a quote followed by a combining mark is one Character on Linux, and must still close a
    /// name). SQLite stores the statement with its first words normalized.
    static func parseCreateVirtualTable(_ sql: String) -> (module: String, arguments: [String])? {
        let prefix = Array("CREATE VIRTUAL TABLE".unicodeScalars)
        let scalars = Array(sql.unicodeScalars)
        guard scalars.count > prefix.count,
            zip(scalars, prefix).allSatisfy({ ($0.value < 128 ? Unicode.Scalar(UInt8($0.value) & ~0x20) : $0) == $1 || $0 == $1 })
        else {
            return nil
        }
        var index = prefix.count
        func skipSpaces() { while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 } }
        func identifier() -> String? {
            skipSpaces()
            guard index < scalars.count else { return nil }
            let first = scalars[index]
            let closing: Unicode.Scalar? = ["\"": "\"", "`": "`", "[": "]", "'": "'"][first]
            guard let closing else {
                let start = index
                while index < scalars.count,
                    scalars[index].properties.isAlphabetic || scalars[index].properties.numericType != nil
                        || scalars[index] == "_" || scalars[index] == "$" || scalars[index].value >= 0x80
                {
                    if scalars[index].properties.isWhitespace { break }
                    index += 1
                }
                return index == start ? nil : String(String.UnicodeScalarView(scalars[start..<index]))
            }
            var name = String.UnicodeScalarView()
            index += 1
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == closing {
                    guard closing != "]", index < scalars.count, scalars[index] == closing else { return String(name) }
                    index += 1
                }
                name.append(scalar)
            }
            return nil
        }
        guard identifier() != nil else { return nil }
        skipSpaces()
        if index < scalars.count, scalars[index] == "." {
            index += 1
            guard identifier() != nil else { return nil }
        }
        guard let using = identifier(), sameIdentifier(using, "USING"), let module = identifier() else { return nil }
        skipSpaces()
        var arguments: [String] = []
        if index < scalars.count, scalars[index] == "(" {
            index += 1
            var depth = 0
            var current = String.UnicodeScalarView()
            var quote: Unicode.Scalar?
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if let open = quote {
                    current.append(scalar)
                    if scalar == (open == "[" ? "]" : open) { quote = nil }
                    continue
                }
                switch scalar {
                case "'", "\"", "`", "[":
                    quote = scalar
                    current.append(scalar)
                case "(":
                    depth += 1
                    current.append(scalar)
                case ")" where depth > 0:
                    depth -= 1
                    current.append(scalar)
                case "," where depth > 0:
                    current.append(scalar)
                case ")", ",":
                    let argument = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
                    if !argument.isEmpty || scalar == "," { arguments.append(argument) }
                    current = String.UnicodeScalarView()
                    if scalar == ")" { return (module.lowercased(), arguments) }
                default:
                    current.append(scalar)
                }
            }
        }
        return (module.lowercased(), arguments)
    }

    /// Where an `=` outside quotes is in an argument.
    private static func topLevelEquals(in scalars: [Unicode.Scalar]) -> Int? {
        var quote: Unicode.Scalar?
        for (offset, scalar) in scalars.enumerated() {
            if let open = quote {
                if scalar == (open == "[" ? "]" : open) { quote = nil }
            } else if scalar == "'" || scalar == "\"" || scalar == "`" || scalar == "[" {
                quote = scalar
            } else if scalar == "=" {
                return offset
            }
        }
        return nil
    }

    /// A value as FTS reads it: quotes removed and doubled inner quotes made single.
    static func unquoted(_ value: String) -> String {
        let scalars = Array(value.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last, scalars.count >= 2 else { return value }
        let closing: Unicode.Scalar? = ["\"": "\"", "`": "`", "[": "]", "'": "'"][first]
        guard let closing, last == closing else { return value }
        var result = String.UnicodeScalarView()
        var index = 1
        while index < scalars.count - 1 {
            let scalar = scalars[index]
            result.append(scalar)
            index += scalar == closing && closing != "]" && index + 1 < scalars.count - 1 && scalars[index + 1] == closing ? 2 : 1
        }
        return String(result)
    }
}
