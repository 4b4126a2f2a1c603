import Foundation

/// How the helpers turn Squeal's `from` and `columns` arguments into SQL.
///
/// Squeal splices them as SQL fragments (a join, an expression, `count(*)`); Strata keeps that,
/// but quotes an argument that names an existing table or column, so names with spaces, quotes
/// or keywords work too. Names that are never expressions (`insertInto`'s table and columns,
/// `update`, `deleteFrom`, DDL) are always quoted.
extension Connection {
    /// `from` quoted when it names a table or view, else the fragment as written; and the name
    /// of the table when it is one.
    func sqlSource(_ from: String) throws -> (sql: String, table: String?) {
        if try isPlainIdentifier(from) || namesTableOrView(from) {
            return (quoteIdentifier(from), from)
        }
        return (from, nil)
    }

    /// The result-column list: `*` when nil; otherwise each entry quoted when it names a column
    /// of `table`, else spliced as an expression.
    func sqlColumnList(_ columns: [String]?, of table: String?) throws -> String {
        guard let columns, !columns.isEmpty else { return "*" }
        let names = try table.map(columnNames(ofTable:)) ?? []
        return columns.map { column in
            names.contains { sameIdentifier($0, column) } ? quoteIdentifier(column) : column
        }.joined(separator: ", ")
    }

    /// The column names of `table`, hidden ones included (empty when there is no such table).
    func columnNames(ofTable table: String) throws -> [String] {
        try withStatement(cachedFor: "SELECT name FROM pragma_table_xinfo(?)", .positional([table])) { statement in
            var names: [String] = []
            while try statement.step() {
                if let name = statement.value(at: 0, as: String.self) { names.append(name) }
            }
            return names
        }
    }

    /// Whether a table or view named `name` exists in the main or temp schema.
    private func namesTableOrView(_ name: String) throws -> Bool {
        let sql = """
            SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1 COLLATE NOCASE
            UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type IN ('table', 'view') AND name = ?1 COLLATE NOCASE
            """
        return try withStatement(cachedFor: sql, .positional([name])) { try $0.step() }
    }
}

/// Whether `text` is a bare identifier (`[A-Za-z_][A-Za-z0-9_]*`), which names the same thing
/// quoted or not, except that quoting also admits keywords such as `order`.
func isPlainIdentifier(_ text: String) -> Bool {
    var utf8 = text.utf8.makeIterator()
    guard let first = utf8.next(), first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")) else {
        return false
    }
    while let byte = utf8.next() {
        let isLetter = byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")
        let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        guard isLetter || isDigit || byte == UInt8(ascii: "_") else { return false }
    }
    return true
}

/// Whether SQLite reads `a` and `b` as the same identifier: equal but for ASCII letter case
/// (SQLite folds only ASCII; quoting a near-miss would turn it into a string literal).
func sameIdentifier(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8) { x, y in
        x == y || (x | 0x20 == y | 0x20 && x | 0x20 >= UInt8(ascii: "a") && x | 0x20 <= UInt8(ascii: "z"))
    }
}

/// `" WHERE expr"`, or nothing.
func clause(_ keyword: String, _ fragment: String?) -> String {
    guard let fragment, !fragment.isEmpty else { return "" }
    return " " + keyword + " " + fragment
}

/// `" LIMIT ? OFFSET ?"` with the values to bind after the caller's parameters.
func limitClause(limit: Int?, offset: Int?) -> (sql: String, parameters: [Bindable?]) {
    switch (limit, offset) {
    case (nil, nil): return ("", [])
    case (let limit?, nil): return (" LIMIT ?", [limit])
    case (nil, let offset?): return (" LIMIT -1 OFFSET ?", [offset])
    case (let limit?, let offset?): return (" LIMIT ? OFFSET ?", [limit, offset])
    }
}

/// The `?, ?, ?` placeholder list for `count` parameters.
func placeholders(_ count: Int) -> String {
    count == 0 ? "" : "?" + String(repeating: ", ?", count: count - 1)
}
