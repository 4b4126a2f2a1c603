// What `assertQuery` compares: a query's SQL and arguments, and its rows as a table. Every value
// is written as an SQL expression that evaluates to that value in SQLite (its storage class
// kept), so a snapshot can be read, and checked, as SQL.
import Foundation
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// A query's SQL with its arguments, and the rows it returned, as the text `assertQuery`
/// compares with its inline snapshots.
///
/// ```
/// SELECT "id", "title" FROM "todo" WHERE "done" = ?
/// -- ?1: 0
/// ```
/// ```
/// ┌────┬────────┐
/// │ id │ title  │
/// ├────┼────────┤
/// │ 1  │ 'milk' │
/// └────┴────────┘
/// ```
public struct QuerySnapshot: Sendable, Hashable {
    /// The SQL text, then a `-- ?N: value` line per bound argument.
    public let sql: String
    /// The rows as a table: a header of column names, then a line per row.
    public let results: String

    /// Runs `query` on `connection` and records its SQL, arguments and rows.
    /// - Throws: `SQLiteError` when preparing, binding or stepping fails, and `SQLITE_MISUSE` for
    ///   a statement that writes (a snapshot must not change what it reads); a value's encoding
    ///   error.
    public init(of query: SQLFragment, on connection: Connection) throws {
        let (text, arguments) = try query.rendered
        var lines = [text]
        for (offset, argument) in arguments.enumerated() {
            lines.append("-- ?\(offset + 1): " + Self.literal(argument))
        }
        sql = lines.joined(separator: "\n")
        let statement = try Statement(connection: connection, sql: text)
        try statement.bind(values: arguments)
        let handle = statement.statementHandle
        guard sqlite3_stmt_readonly(handle) != 0 else {
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message: "assertQuery runs statements that only read, and this one writes: \(text)")
        }
        let columnCount = Int(sqlite3_column_count(handle))
        let names = (0..<columnCount).map { column in
            Self.displayName(sqlite3_column_name(handle, Int32(column)).map { String(cString: $0) } ?? "")
        }
        var rows: [[String]] = []
        while try statement.step() {
            rows.append((0..<columnCount).map { Self.literal(column: Int32($0), of: handle) })
        }
        results = Self.table(header: names, rows: rows)
    }

    // MARK: - Values as SQL

    /// `value` as an SQL expression that evaluates to it: `NULL`, `42`, `1.5`, `'it''s'`,
    /// `X'00FF'`. Control characters in text are written as `char(N)` joined with `||`, so a
    /// snapshot stays one line per row; infinities as `9e999` and `-9e999`. A real is written as
    /// the kernel writes it for dumps, so the linked SQLite reads it back as the same `Double`.
    public static func literal(_ value: BindingValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real): return realLiteral(real)
        case .text(let text): return textLiteral(Array(text.utf8))
        case .blob(let data): return blobLiteral(Array(data))
        }
    }

    /// A column of the current row, read in its storage class; text by its bytes, so text that
    /// is not valid UTF-8 keeps them.
    static func literal(column: Int32, of handle: OpaquePointer) -> String {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return String(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return realLiteral(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_text(handle, column), count > 0 else { return "''" }
            return textLiteral(Array(UnsafeBufferPointer(start: bytes, count: count)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return "X''" }
            return blobLiteral(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return "NULL"
        }
    }

    static func realLiteral(_ real: Double) -> String {
        if real.isInfinite { return real < 0 ? "-9e999" : "9e999" }
        // NaN never reaches a snapshot from SQLite (it stores NULL); an argument can hold one.
        if real.isNaN { return "NULL" }
        // The kernel's literal, checked against the linked SQLite's own reader (as dumps write).
        return exactRealLiteral(real)
    }

    /// Text on one line (control characters as `char(N)`); bytes that are not valid UTF-8 as
    /// `CAST(X'...' AS TEXT)`: the kernel's writer, which dumps share.
    static func textLiteral(_ bytes: [UInt8]) -> String {
        StrataKernel.textLiteral(bytes, style: .oneLine)
    }

    static func blobLiteral(_ bytes: [UInt8]) -> String {
        hexLiteral(bytes)
    }

    /// A column name on one line: control characters (a newline in an unaliased expression's
    /// name) as `\u{N}`.
    static func displayName(_ name: String) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    // MARK: - The table

    /// A box-drawn table; columns as wide as their widest cell, counted in characters (grapheme
    /// clusters: wide characters such as CJK take two terminal columns and misalign the borders,
    /// never the comparison). Display only: the cells are already escaped SQL.
    static func table(header: [String], rows: [[String]]) -> String {
        guard !header.isEmpty else { return "(no columns)" }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func rule(_ left: String, _ middle: String, _ right: String) -> String {
            left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right
        }
        func line(_ cells: [String]) -> String {
            "│" + zip(cells, widths).map { " " + $0 + String(repeating: " ", count: $1 - $0.count) + " " }.joined(separator: "│") + "│"
        }
        var lines = [rule("┌", "┬", "┐"), line(header)]
        if !rows.isEmpty {
            lines.append(rule("├", "┼", "┤"))
            lines += rows.map(line)
        }
        lines.append(rule("└", "┴", "┘"))
        return lines.joined(separator: "\n")
    }
}
