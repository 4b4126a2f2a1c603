import Foundation
import Strata

extension Connection {
    /// Creates a database file at `path`; throws if a file is already there.
    ///
    /// Inherited by subclasses of `Connection`, as SQLite.swiftly's README subclasses it.
    public convenience init(toNewDatabaseAt path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw TableDescriptionError.databaseAlreadyExists(path: path)
        }
        try self.init(storageLocation: .onDisk(path), flags: OpenFlags.make())
    }

    /// Creates a database file at a file URL; throws if a file is already there.
    public convenience init(toNewDatabaseAt url: URL) throws {
        try self.init(toNewDatabaseAt: url.path)
    }

    /// Opens the database file at `path`; throws if there is none.
    public convenience init(toExistingDatabaseAt path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TableDescriptionError.databaseNotFound(path: path)
        }
        try self.init(storageLocation: .onDisk(path), flags: OpenFlags.make())
    }

    /// Opens the database file at a file URL; throws if there is none.
    public convenience init(toExistingDatabaseAt url: URL) throws {
        try self.init(toExistingDatabaseAt: url.path)
    }

    /// Runs the `CREATE TABLE` the description generates.
    public func createTable(describedBy table: TableDescription) throws {
        try execute(table.createTableSQL)
    }

    /// Prepares an `INSERT` into the described table, to run with `insert(_:)`.
    public func prepareInsertIntoTable(describedBy table: TableDescription) throws -> InsertStatement {
        try InsertStatement(insertingIntoTable: table, on: self)
    }

    /// Every row of the described table in rowid order, values typed by the column descriptions
    /// (`Int`, `String`, `Bool`, or nil for NULL).
    ///
    /// Reads the whole table into memory: meant for small tables.
    /// - Throws: `SQLiteError` when the table or one of its described columns is missing.
    public func readAllRows(fromTable table: TableDescription) throws -> [TableRow] {
        let columns = table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(quoteIdentifier(table.name))" + (try rowOrder(ofTable: table.name))
        return try query(sql, [Bindable?]()) { row in
            TableRow(
                columns: table.columns,
                values: table.columns.indices.map { index in
                    TableRow.value(in: row, at: index, as: table.columns[index].type)
                })
        }
    }
}

extension Connection {
    /// `readAllRows(fromTable:)` under the spelling SQLite.swiftly's README uses
    /// (`db.readlAllRows(fromTable:)`), so its reference example compiles as written.
    /// - Throws: `SQLiteError` when the table or one of its described columns is missing.
    public func readlAllRows(fromTable table: TableDescription) throws -> [TableRow] {
        try readAllRows(fromTable: table)
    }
}

extension Connection {
    /// The `ORDER BY` that lists a table's rows in rowid order: by a rowid alias no column hides
    /// (`rowid`, `oid` or `_rowid_`), by the primary key for a `WITHOUT ROWID` table, or none
    /// when columns hide all three aliases (SQLite then scans in rowid order anyway).
    func rowOrder(ofTable name: String) throws -> String {
        let columns = try schemaReader.visibleColumns(ofTable: name).map { (name: $0.name, primaryKeyPosition: $0.primaryKeyIndex) }
        let names = Set(columns.map { $0.name.lowercased() })
        guard let alias = ["rowid", "oid", "_rowid_"].first(where: { !names.contains($0) }) else { return "" }
        // A WITHOUT ROWID table has no rowid: compiling a read of it fails.
        if (try? Statement(connection: self, sql: "SELECT \(alias) FROM \(quoteIdentifier(name))")) != nil {
            return " ORDER BY \(alias)"
        }
        let primaryKey = columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }
        guard !primaryKey.isEmpty else { return "" }
        return " ORDER BY " + primaryKey.map { quoteIdentifier($0.name) }.joined(separator: ", ")
    }
}

/// An `INSERT` into a described table, taking values by column name.
///
/// ```swift
/// let insert = try db.prepareInsertIntoTable(describedBy: contacts)
/// try insert.insert(["id": 1, "name": "Alice"])
/// ```
open class InsertStatement: Statement {
    /// The table the statement inserts into; its columns give the parameter order.
    public let table: TableDescription

    /// Prepares `INSERT INTO "table"("a", "b") VALUES(?, ?)` for every column of `table`.
    public init(insertingIntoTable table: TableDescription, on connection: Connection) throws {
        self.table = table
        try super.init(connection: connection, sql: StatementClauses.insert(into: table.name, columns: table.columns.map(\.name)).sql)
    }

    /// Inserts one row. Every column must have a value (nil for NULL) and every key must name a
    /// column; values are bound as parameters.
    ///
    /// - Throws: `TableDescriptionError` for a missing or unknown column or a value of the wrong
    ///   kind; `SQLiteError` for a constraint (a nil in a NOT NULL column, say). Nothing is
    ///   inserted when it throws.
    public func insert(_ values: [String: Any?]) throws {
        if let unknown = values.keys.first(where: { !table.hasColumn(withName: $0) }) {
            throw TableDescriptionError.unknownColumn(column: unknown, table: table.name)
        }
        let parameters: [Bindable?] = try table.columns.map { column in
            guard let entry = values[column.name] else {
                throw TableDescriptionError.missingValue(column: column.name, table: table.name)
            }
            return try Self.bindable(entry, for: column)
        }
        try bind(parameters).run()
    }

    /// The value with any optionals inside the `Any` unwrapped (`Int?.none` as `Any` is NULL).
    static func flattened(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return flattened(mirror.children.first?.value)
    }

    /// The value as a parameter for `column`, checked against the column's type.
    static func bindable(_ value: Any?, for column: ColumnDescription) throws -> Bindable? {
        guard let value = flattened(value), !(value is NSNull) else { return nil }
        let fits: Bool
        switch column.type {
        case .int: fits = value is Bool ? false : (value as? Bindable).map { if case .integer = $0.bindingValue { return true } else { return false } } ?? false
        case .char: fits = value is String || value is Substring
        case .bool: fits = value is Bool
        }
        guard fits, let bindable = (value as? Substring).map(String.init) ?? (value as? Bindable) else {
            throw TableDescriptionError.invalidValue(column: column.name, type: column.type, value: String(describing: value))
        }
        return bindable
    }
}

/// One row read by `readAllRows(fromTable:)`: iterate it as `(column, value)` pairs or subscript it.
///
/// A row made with fewer values than columns reads nil for the columns without one; values past
/// the last column are ignored.
public struct TableRow: Sequence {
    /// The table's columns, in the order of ``values``.
    public let columns: [ColumnDescription]
    /// The row's values by column position, nil for NULL.
    public let values: [Any?]

    /// Pairs the values with the columns by position.
    public init(columns: [ColumnDescription], values: [Any?]) {
        self.columns = columns
        self.values = values
    }

    /// The value at `index`, or nil when the row has no value there.
    private func value(at index: Int) -> Any? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// The value of `column`, or nil for NULL or a column not in the row.
    public subscript(column: ColumnDescription) -> Any? {
        columns.firstIndex(of: column).flatMap { value(at: $0) }
    }

    /// The value of the column named `name`, or nil for NULL or no such column.
    public subscript(name: String) -> Any? {
        columns.firstIndex { $0.name == name }.flatMap { value(at: $0) }
    }

    /// Iterates the `(column, value)` pairs in column order.
    public func makeIterator() -> AnyIterator<(column: ColumnDescription, value: Any?)> {
        var index = 0
        return AnyIterator {
            guard index < columns.count else { return nil }
            defer { index += 1 }
            return (columns[index], value(at: index))
        }
    }

    static func value(in row: Row, at index: Int, as type: ColumnType) -> Any? {
        switch type {
        case .int: return row.value(at: index) as Int?
        case .char: return row.value(at: index) as String?
        case .bool: return row.value(at: index) as Bool?
        }
    }
}
