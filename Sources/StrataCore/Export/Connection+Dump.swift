// Dump and restore: the database as SQL text (schema, rows, then indexes, views and triggers),
// written one statement at a time, and read back one statement at a time.
import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Why a dump or a restore could not run.
public enum DumpError: Error, Equatable, CustomStringConvertible {
    /// `tables:` named a table or view the database does not have.
    case noSuchTable(String)
    /// A restore needs an empty database; this one has schema objects.
    case databaseNotEmpty(objectCount: Int)
    /// The dump's text ended inside a statement.
    case incompleteStatement(String)
    /// Writing the dump's file or reading it failed.
    case io(String)
    /// A restore was asked for inside an open transaction: the dump opens and commits its own,
    /// and ending the caller's transaction would discard the caller's writes.
    case inTransaction

    public var description: String {
        switch self {
        case .noSuchTable(let name): return "no such table: \(name)"
        case .databaseNotEmpty(let count):
            return "cannot restore a dump into a database that is not empty (it has \(count) schema object\(count == 1 ? "" : "s"))"
        case .incompleteStatement(let text): return "the dump ends inside a statement: \(text.prefix(80))"
        case .io(let message): return message
        case .inTransaction:
            return "cannot restore a dump inside a transaction: the dump begins and commits its own; commit or roll back first"
        }
    }
}

extension Connection {
    /// Writes the database as SQL text: `PRAGMA foreign_keys=OFF`, then in one transaction the
    /// tables' CREATE statements (virtual tables included), their rows as INSERTs, then
    /// indexes, views and triggers. Objects come sorted by name and rows by rowid or primary
    /// key, so the same database always dumps to the same text. Rows are written as they are
    /// read: memory stays constant however large the database.
    ///
    /// ```swift
    /// var text = ""
    /// try connection.dump(to: &text)
    /// try emptyConnection.restore(fromDump: text)
    /// ```
    /// SQLite's own tables are left out, except `sqlite_sequence` (AUTOINCREMENT counters), and so
    /// are the shadow tables of virtual tables: FTS and R*Tree tables are dumped by their rows,
    /// except FTS indexes of external content or none (`content=''`), whose index data is copied
    /// exactly. A table an FTS index names as its content is the user's, whatever its name.
    /// `PRAGMA user_version` and `application_id` are kept (SQLite's own `.dump` loses them), and
    /// line breaks in text are written as `char(13)`/`char(10)` so that the `sqlite3` shell, which
    /// reads its input by lines, loads the same text.
    /// - Parameters:
    ///   - output: Where the text goes, statement by statement.
    ///   - tables: Only these tables and views, with their indexes and triggers; nil dumps
    ///     everything.
    /// - Throws: `DumpError.noSuchTable` for an unknown name in `tables`; `SQLiteError`.
    public func dump<Output: TextOutputStream>(to output: inout Output, tables: [String]? = nil) throws {
        try withReadTransaction { try DumpWriter(connection: self).write(to: &output, tables: tables) }
    }

    /// Writes the dump (as the `TextOutputStream` form does) to a file, replacing it.
    /// - Throws: `DumpError.io` when the file cannot be written; `DumpError.noSuchTable`; `SQLiteError`.
    public func dump(to url: URL, tables: [String]? = nil) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: url)
        else {
            throw DumpError.io("cannot create \(url.path)")
        }
        defer { try? handle.close() }
        var output = FileOutput(handle: handle)
        try dump(to: &output, tables: tables)
        try output.flush()
    }

    /// Runs a dump's SQL text on this connection, which must hold an empty database. The
    /// connection's `foreign_keys` setting is kept (the dump turns it off while it loads).
    /// - Throws: `DumpError.databaseNotEmpty`; the `SQLiteError` of the first statement that
    ///   fails, after rolling the restore back.
    public func restore(fromDump text: String) throws {
        try restoring { try execute(text) }
    }

    /// Runs the dump in a file one statement at a time (constant memory); see
    /// ``restore(fromDump:)``.
    /// - Throws: `DumpError.io` when the file cannot be read; `DumpError.incompleteStatement`
    ///   when it ends inside a statement; as ``restore(fromDump:)``.
    public func restore(fromDumpAt url: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw DumpError.io("cannot read \(url.path)") }
        defer { try? handle.close() }
        try restoring {
            var splitter = SQLStatementSplitter()
            while true {
                let chunk: Data?
                do { chunk = try handle.read(upToCount: 1 << 16) } catch { throw DumpError.io("cannot read \(url.path): \(error)") }
                guard let chunk, !chunk.isEmpty else { break }
                try splitter.append(chunk) { try execute($0) }
            }
            if let rest = splitter.remainder { throw DumpError.incompleteStatement(rest) }
        }
    }

    private func restoring(_ load: () throws -> Void) throws {
        // Checked before anything runs: the error path below rolls back, which must only ever
        // end the dump's own transaction.
        guard !isInTransaction else { throw DumpError.inTransaction }
        let objects: Int = try query("SELECT count(*) FROM main.sqlite_master") ?? 0
        guard objects == 0 else { throw DumpError.databaseNotEmpty(objectCount: objects) }
        defer { noteChangeOutsideStatements() }
        let foreignKeys: Int = try query("PRAGMA foreign_keys") ?? 0
        defer { try? execute("PRAGMA foreign_keys = \(foreignKeys == 0 ? "OFF" : "ON")") }
        do {
            try load()
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a read transaction (a consistent snapshot), unless one is already open.
    private func withReadTransaction<T>(_ body: () throws -> T) throws -> T {
        guard !isInTransaction else { return try body() }
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// Buffers text for a file, written 64 KiB at a time.
private struct FileOutput: TextOutputStream {
    let handle: FileHandle
    var buffer = Data()
    var failure: Error?

    init(handle: FileHandle) {
        self.handle = handle
        buffer.reserveCapacity(1 << 16)
    }

    mutating func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= 1 << 16 { try? flush() }
    }

    mutating func flush() throws {
        if failure == nil, !buffer.isEmpty {
            do { try handle.write(contentsOf: buffer) } catch { failure = error }
        }
        buffer.removeAll(keepingCapacity: true)
        if let failure { throw DumpError.io("cannot write the dump: \(failure)") }
    }
}

/// Writes one dump.
private struct DumpWriter {
    let connection: Connection
    let reals: RealFormatter

    init(connection: Connection) throws {
        self.connection = connection
        self.reals = RealFormatter()
    }

    func write<Output: TextOutputStream>(to output: inout Output, tables filter: [String]?) throws {
        let reader = connection.schemaReader
        let entries = try reader.entries()
        let shadowTables = try reader.shadowTableNames()
        func named(_ entry: SchemaEntryInfo) -> Bool {
            guard let filter else { return true }
            return filter.contains { sameIdentifier($0, entry.name) }
        }
        func onNamedTable(_ entry: SchemaEntryInfo) -> Bool {
            guard let filter else { return true }
            return filter.contains { sameIdentifier($0, entry.tableName) }
        }
        if let filter {
            for name in filter where !entries.contains(where: { ($0.isTable || $0.isView) && sameIdentifier($0.name, name) }) {
                throw DumpError.noSuchTable(name)
            }
        }
        let byName: (SchemaEntryInfo, SchemaEntryInfo) -> Bool = { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let tables = entries.filter {
            $0.isTable && $0.sql != nil && !SchemaReader.isInternalTable($0.name, shadowTables: shadowTables) && named($0)
        }.sorted(by: byName)

        output.write("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
        for table in tables { output.write(statementText(table.sql ?? "")) }
        for table in tables {
            if let module = table.virtualTableModule {
                guard Self.dumpsRowsOfModules.contains(module) else { continue }
                if module.hasPrefix("fts"), table.ftsContentOption != nil {
                    // External content or none: the rows are not the table's to insert (a
                    // contentless table refuses 'rebuild', a view may not exist yet), so the
                    // index itself is copied, shadow table by shadow table.
                    for shadow in Self.shadowTables(of: table, module: module, among: entries, shadowTables: shadowTables) {
                        output.write("DELETE FROM " + quoteIdentifier(shadow.name) + ";\n")
                        try writeRows(of: shadow, to: &output)
                    }
                    continue
                }
            }
            try writeRows(of: table, to: &output)
        }
        if entries.contains(where: { $0.isTable && $0.name == "sqlite_sequence" }) {
            try writeSequences(for: tables, to: &output)
        }
        let rest = entries.filter { $0.sql != nil && !SchemaReader.isInternalTable($0.tableName, shadowTables: shadowTables) }
        for index in rest.filter({ $0.isIndex && onNamedTable($0) }).sorted(by: byName) { output.write(statementText(index.sql ?? "")) }
        for view in rest.filter({ $0.isView && named($0) }).sorted(by: byName) { output.write(statementText(view.sql ?? "")) }
        for trigger in rest.filter({ $0.isTrigger && onNamedTable($0) }).sorted(by: byName) { output.write(statementText(trigger.sql ?? "")) }
        // The header fields apps keep their own state in (Squeal's Schema its version).
        for pragma in ["user_version", "application_id"] {
            let value: Int64 = try connection.query("PRAGMA main.\(pragma)") ?? 0
            if value != 0 { output.write("PRAGMA \(pragma)=\(value);\n") }
        }
        output.write("COMMIT;\n")
    }

    /// The virtual tables whose rows a dump writes through the table itself; others (an
    /// extension's module) get their CREATE only.
    static let dumpsRowsOfModules: Set<String> = ["fts5", "fts4", "fts3", "rtree", "rtree_i32"]

    /// The shadow tables of the FTS table `table` that exist, in name order.
    static func shadowTables(of table: SchemaEntryInfo, module: String, among entries: [SchemaEntryInfo], shadowTables: IdentifierSet) -> [SchemaEntryInfo] {
        let suffixes = SchemaReader.shadowTableSuffixes[module] ?? []
        return entries.filter { entry in
            entry.isTable && shadowTables.contains(entry.name)
                && suffixes.contains { sameIdentifier(table.name + "_" + $0, entry.name) }
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    private func statementText(_ sql: String) -> String { sql + ";\n" }

    private func writeRows<Output: TextOutputStream>(of table: SchemaEntryInfo, to output: inout Output) throws {
        let allColumns = try connection.schemaReader.columns(ofTable: table.name)
        let isVirtual = table.isVirtualTable
        let columns = allColumns.filter { $0.hidden == 0 }
        let withoutRowid = try isWithoutRowid(table)
        let primaryKey = columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let aliasesRowid = try !isVirtual && connection.schemaReader.rowIDAliasColumn(ofTable: table.name) != nil
        // The rowid itself, when no column holds it, by a name no column shadows.
        let rowidName: String? =
            withoutRowid || table.virtualTableModule?.hasPrefix("rtree") == true
            ? nil
            : ["rowid", "_rowid_", "oid"].first { name in !allColumns.contains { sameIdentifier($0.name, name) } }
        let explicitRowid = aliasesRowid ? nil : rowidName
        let order: String
        if withoutRowid {
            order = primaryKey.map { quoteIdentifier($0.name) }.joined(separator: ", ")
        } else if let rowidName {
            order = rowidName
        } else {
            order = primaryKey.isEmpty ? "" : primaryKey.map { quoteIdentifier($0.name) }.joined(separator: ", ")
        }
        let selected = (explicitRowid.map { [$0] } ?? []) + columns.map { quoteIdentifier($0.name) }
        guard !selected.isEmpty else { return }
        let head = "INSERT INTO " + quoteIdentifier(table.name) + "(" + selected.joined(separator: ",") + ") VALUES("
        let select = StatementClauses(orderings: SQLFragment.written(order).map { [$0] } ?? [])
            .select(
                SQLFragment(sql: selected.joined(separator: ", ")),
                from: "main.\(identifier: table.name)")
        let statement = try connection.prepare(select.sql)
        let handle = statement.handle
        let count = Int32(selected.count)
        var line = ""
        while try statement.step() {
            line.removeAll(keepingCapacity: true)
            line += head
            for column in 0..<count {
                if column > 0 { line += "," }
                appendLiteral(of: handle, column: column, to: &line, reals: reals)
            }
            line += ");\n"
            output.write(line)
        }
    }

    private func writeSequences<Output: TextOutputStream>(for tables: [SchemaEntryInfo], to output: inout Output) throws {
        let statement = try connection.prepare("SELECT name, seq FROM main.sqlite_sequence ORDER BY name")
        var lines: [String] = []
        while try statement.step() {
            guard let name = statement.value(at: 0, as: String.self), tables.contains(where: { sameIdentifier($0.name, name) }) else { continue }
            var line = "INSERT INTO sqlite_sequence(name,seq) VALUES(" + quoteStringLiteral(name) + ","
            appendLiteral(of: statement.handle, column: 1, to: &line, reals: reals)
            lines.append(line + ");\n")
        }
        guard !lines.isEmpty else { return }
        output.write("DELETE FROM sqlite_sequence;\n")
        for line in lines { output.write(line) }
    }

    private func isWithoutRowid(_ table: SchemaEntryInfo) throws -> Bool {
        guard !table.isVirtualTable else { return false }
        if sqlite3_libversion_number() >= 3_037_000 {
            let wr: Int? = try connection.query("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", table.name)
            return wr == 1
        }
        return (table.sql ?? "").uppercased().filter { !$0.isWhitespace }.hasSuffix("WITHOUTROWID")
    }
}

/// Appends the SQL literal of a result column: exact for every storage class.
private func appendLiteral(of handle: SQLiteStatementHandle, column: Int32, to line: inout String, reals: RealFormatter) {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_INTEGER:
        line += String(sqlite3_column_int64(handle, column))
    case SQLITE_FLOAT:
        line += reals.literal(sqlite3_column_double(handle, column))
    case SQLITE_TEXT:
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_text(handle, column) else { line += "''"; return }
        line += textLiteral(UnsafeBufferPointer(start: pointer, count: count), style: .dump)
    case SQLITE_BLOB:
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { line += "X''"; return }
        line += hexLiteral(UnsafeRawBufferPointer(start: pointer, count: count))
    default:
        line += "NULL"
    }
}

/// Writes REAL literals that SQLite reads back as the same double (the kernel's
/// `exactRealLiteral`, checked against the linked SQLite's own reader), and the infinities as
/// SQLite's shell writes them.
package struct RealFormatter {
    package init() {}

    package func literal(_ value: Double) -> String {
        if value.isNaN { return "NULL" }
        if value.isInfinite { return value > 0 ? "1e999" : "-1e999" }
        return exactRealLiteral(value)
    }
}

extension DumpError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
