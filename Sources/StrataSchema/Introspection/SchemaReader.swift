// The one introspection reader: whether a table exists, its columns, indexes and foreign keys,
// and the schema list. The helpers, the rebuild, both migrators, the ORM and the CLI ask it.
//
// What it reads is cached until `PRAGMA schema_version` moves, which catches schema changes
// made by this connection and, at the start of each read, by any other connection or process.
// Inside a transaction nothing is cached: a rolled-back schema change can bring the version back
// to a number the cache has already seen with other contents.
import StrataKernel
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A column as `PRAGMA table_xinfo` reports it, hidden and generated columns included.
package struct TableColumn: Hashable, Sendable {
    /// Position among all columns, hidden ones included.
    package let position: Int
    package let name: String
    package let declaredType: String
    package let notNull: Bool
    package let defaultValue: String?
    package let primaryKeyIndex: Int
    /// 0 for an ordinary column, 1 for a virtual table's hidden column, 2 or 3 for a generated one.
    package let hidden: Int
}

/// One foreign key of a table, as `PRAGMA foreign_key_list` reports it (one row per column).
package struct ForeignKeyColumn: Hashable, Sendable {
    package let id: Int
    package let parentTable: String
    package let column: String
    package let parentColumn: String?
    /// The actions as SQLite spells them (`NO ACTION`, `CASCADE`, `SET NULL`, ...).
    package var onUpdate = "NO ACTION"
    package var onDelete = "NO ACTION"
}

/// Reads the main schema of one connection, caching by schema version.
package final class SchemaReader {
    private struct Cache {
        var version: Int64
        var entries: [SchemaEntryInfo]?
        // Keyed as SQLite matches names (bytes, ASCII folded): `É` and `é`, or `é` and `e` +
        // U+0301, are different tables, which String keys would merge.
        var columns: [[UInt8]: [TableColumn]] = [:]
        var indexes: [[UInt8]: [IndexInfo]] = [:]
        var foreignKeys: [[UInt8]: [ForeignKeyColumn]] = [:]
        var shadowTables: IdentifierSet?
        /// What a change capture needs of each table (nil: no such table).
        var captureShapes: [[UInt8]: CaptureTableShape?] = [:]
    }

    /// Whether a read inside a transaction may use the cache: never (the default), while its
    /// version is the schema's, or also to refill it (the caller vouches that the transaction has
    /// not changed the schema, so what it reads is the committed schema of that version).
    private enum TransactionUse {
        case never, whileCurrent, refill
    }

    private unowned let connection: Connection
    private var cache: Cache?

    init(connection: Connection) { self.connection = connection }

    /// Filed under a key of its own: every cache check runs it (a captured commit, twice), and
    /// its text need not be hashed each time.
    private static let schemaVersionKey = StatementCacheKey(reusing: "PRAGMA main.schema_version")

    /// The main schema's version (`PRAGMA schema_version`), which every schema change moves.
    package func schemaVersion() throws -> Int64 {
        try connection.withCacheCheck {
            try connection.withStatement(cachedFor: Self.schemaVersionKey) { statement in
                try statement.step() ? statement.value(at: 0, as: Int64.self) ?? 0 : 0
            }
        }
    }

    /// Runs `read` against the cache when one may be kept (valid for the current schema version),
    /// or with a scratch cache inside a transaction.
    private func withCache<T>(inTransaction use: TransactionUse = .never, _ read: (inout Cache) throws -> T) throws -> T {
        let inTransaction = connection.isInTransaction
        guard !inTransaction || use != .never else {
            cache = nil
            var scratch = Cache(version: -1)
            return try read(&scratch)
        }
        let version = try schemaVersion()
        // A version the transaction reached by changing the schema may come back, with other
        // contents, once it rolls back: nothing read then is kept.
        if inTransaction, use == .whileCurrent, cache?.version != version {
            // Never kept; it carries the version read for callers that report it.
            var scratch = Cache(version: version)
            return try read(&scratch)
        }
        var current = cache.flatMap { $0.version == version ? $0 : nil } ?? Cache(version: version)
        cache = nil // held by `current` alone, so `read` mutates it without a copy
        defer { cache = current }
        return try read(&current)
    }

    /// The cached answer for `table` in one of the per-table caches, read by `read` when missing.
    private func perTable<T>(_ cacheOf: WritableKeyPath<Cache, [[UInt8]: T]>, _ table: String, _ read: () throws -> T) throws -> T {
        try withCache { cache in
            let key = IdentifierSet.key(table)
            if let cached = cache[keyPath: cacheOf][key] { return cached }
            let value = try read()
            cache[keyPath: cacheOf][key] = value
            return value
        }
    }

    /// Forgets everything read; the next question reads the schema again.
    package func invalidate() { cache = nil }

    /// Every entry of `main.sqlite_master`, in schema order (SQLite's own `sqlite_*` included).
    package func entries() throws -> [SchemaEntryInfo] {
        try withCache { cache in
            if let entries = cache.entries { return entries }
            let entries = try rows("SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_master ORDER BY rowid", []) { statement in
                SchemaEntryInfo(
                    type: statement.value(at: 0, as: String.self) ?? "", name: statement.value(at: 1, as: String.self) ?? "",
                    tableName: statement.value(at: 2, as: String.self) ?? "", rootPage: statement.value(at: 3, as: Int.self) ?? 0,
                    sql: statement.value(at: 4, as: String.self))
            }
            cache.entries = entries
            return entries
        }
    }

    /// The schema entry named `name` (as SQLite matches names: ASCII case folded) whose type is
    /// one of `types` (any type when nil).
    package func entry(named name: String, types: Set<String>? = nil) throws -> SchemaEntryInfo? {
        try entries().first { sameIdentifier($0.name, name) && (types?.contains($0.type) ?? true) }
    }

    /// Whether a foreign key of the main database acts on its rows (ON DELETE or ON UPDATE
    /// CASCADE, SET NULL, SET DEFAULT): a DROP TABLE or an applied change may then change rows
    /// the statement does not name.
    package func hasForeignKeyActions() throws -> Bool {
        let inert: Set<String> = ["NO ACTION", "RESTRICT"]
        for table in try userTableNames() {
            for key in try foreignKeys(ofTable: table)
            where !inert.contains(key.onDelete.uppercased()) || !inert.contains(key.onUpdate.uppercased()) {
                return true
            }
        }
        return false
    }

    /// The table (or view, when `includingViews`) named `name`, found as SQLite finds it.
    package func table(named name: String, includingViews: Bool = false) throws -> SchemaEntryInfo? {
        try entry(named: name, types: includingViews ? ["table", "view"] : ["table"])
    }

    /// Whether a table or view named `name` exists in the temp schema (never cached: temporary
    /// objects are this connection's own and rare).
    package func temporaryTableOrViewExists(named name: String) throws -> Bool {
        try connection.withBookkeeping {
            try connection.withStatement(
                cachedFor: "SELECT 1 FROM sqlite_temp_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
                .positional([name])
            ) { try $0.step() }
        }
    }

    /// The tables that are the application's: not SQLite's own (`sqlite_*`), nor those of a tool
    /// that keeps tables in the application's database (``toolTablePrefixes``), nor the shadow
    /// tables where a virtual table keeps its data (``shadowTableNames()``). Virtual tables are
    /// listed: they are the application's.
    package func userTableNames() throws -> [String] {
        let shadowTables = try shadowTableNames()
        return try entries().filter { $0.type == "table" && !Self.isInternalTable($0.name, shadowTables: shadowTables) }.map(\.name)
    }

    /// Whether a table belongs to SQLite (`sqlite_*`), to a tool beside the application (its
    /// name starts with one of ``toolTablePrefixes``), or to a virtual table (it is one of
    /// `shadowTables`, as ``shadowTableNames()`` or ``shadowTableNames(among:)`` give them).
    /// Names compare as SQLite compares them: bytes, ASCII letters folded.
    package static func isInternalTable(_ name: String, shadowTables: IdentifierSet = []) -> Bool {
        identifier(name, hasPrefix: "sqlite_") || toolTablePrefixes.contains { identifier(name, hasPrefix: $0) } || shadowTables.contains(name)
    }

    /// Name prefixes (lowercase) of the tables that tools beside the application keep in its
    /// database; introspection, the schema DSL's reset and changesets leave them alone.
    static let toolTablePrefixes: [String] = [LitestreamTables.prefix]

    /// The suffixes of the shadow tables that SQLite's own modules keep beside a virtual table
    /// `t` (`t_data`, `t_idx`, ...): what each module's `xShadowName` accepts.
    package static let shadowTableSuffixes: [String: Set<String>] = {
        let fts3: Set<String> = ["content", "segments", "segdir", "docsize", "stat"]
        let rtree: Set<String> = ["node", "parent", "rowid"]
        return [
            "fts5": ["data", "idx", "content", "docsize", "config"], "fts4": fts3, "fts3": fts3,
            "rtree": rtree, "rtree_i32": rtree, "geopoly": rtree
        ]
    }()

    /// The shadow tables among `entries`, found from the virtual tables of SQLite's
    /// own modules and their fixed suffixes. Works on any SQLite version; ``shadowTableNames()``
    /// adds what SQLite itself reports, for modules of extensions.
    package static func shadowTableNames(among entries: [SchemaEntryInfo]) -> IdentifierSet {
        var names = IdentifierSet()
        for entry in entries {
            guard let module = entry.virtualTableModule, var suffixes = shadowTableSuffixes[module] else { continue }
            // An FTS table with a `content=` option (external or contentless) keeps no `_content`,
            // and FTS5 with `columnsize=0` no `_docsize`: a user table may carry those names.
            if module.hasPrefix("fts"), entry.ftsContentOption != nil { suffixes.remove("content") }
            if module == "fts5", entry.ftsOption("columnsize") == "0" { suffixes.remove("docsize") }
            for suffix in suffixes { names.insert(entry.name + "_" + suffix) }
        }
        let tables = IdentifierSet(entries.filter { $0.type == "table" }.map(\.name))
        return names.intersection(tables).subtracting(externalContentTableNames(among: entries))
    }

    /// The tables and views that FTS indexes name as their external content: the user's,
    /// whatever their names look like (FTS5 calls any `<index>_content` a shadow name).
    static func externalContentTableNames(among entries: [SchemaEntryInfo]) -> IdentifierSet {
        IdentifierSet(
            entries.compactMap { entry in
                guard let content = entry.ftsContentOption, !content.isEmpty else { return nil }
                return content
            })
    }

    /// Whether SQLite reports shadow tables itself (`PRAGMA table_list`, 3.37.0 and later).
    private static let hasTableList = sqlite3_libversion_number() >= 3_037_000

    /// The shadow tables of the main schema: those of SQLite's modules by their
    /// suffixes, and those `PRAGMA table_list` types `shadow` where SQLite has it. A virtual
    /// table whose module or tokenizer is missing on this connection makes the pragma fail; the
    /// suffixes then answer alone.
    package func shadowTableNames() throws -> IdentifierSet {
        let entries = try entries()
        return try withCache { cache in
            if let names = cache.shadowTables { return names }
            var names = Self.shadowTableNames(among: entries)
            if Self.hasTableList, entries.contains(where: \.isVirtualTable) {
                let reported = try? rows("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'", []) {
                    $0.value(at: 0, as: String.self)
                }
                names.formUnion((reported ?? []).compactMap { $0 })
                names.subtract(Self.externalContentTableNames(among: entries))
            }
            cache.shadowTables = names
            return names
        }
    }

    /// The columns of a table or view, hidden and generated ones included; empty when there is none.
    package func columns(ofTable table: String) throws -> [TableColumn] {
        try perTable(\.columns, table) {
            try rows("SELECT cid, name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, 'main')", [table]) { statement in
                TableColumn(
                    position: statement.value(at: 0, as: Int.self) ?? 0, name: statement.value(at: 1, as: String.self) ?? "",
                    declaredType: statement.value(at: 2, as: String.self) ?? "", notNull: (statement.value(at: 3, as: Int.self) ?? 0) != 0,
                    defaultValue: statement.value(at: 4, as: String.self), primaryKeyIndex: statement.value(at: 5, as: Int.self) ?? 0,
                    hidden: statement.value(at: 6, as: Int.self) ?? 0)
            }
        }
    }

    /// The collation `column` of `table` declares (`BINARY` when it declares none), as SQLite
    /// compares the column's values with others; nil when there is no such column.
    package func declaredCollation(ofTable table: String, column: String) -> String? {
        var type: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0, primaryKey: Int32 = 0, autoincrement: Int32 = 0
        let code = sqlite3_table_column_metadata(
            connection.handle, "main", table, column, &type, &collation, &notNull, &primaryKey, &autoincrement)
        guard code == SQLITE_OK else { return nil }
        return collation.map { String(cString: $0) } ?? "BINARY"
    }

    /// The columns `PRAGMA table_info` shows (no hidden or generated ones), numbered as it does.
    package func visibleColumns(ofTable table: String) throws -> [ColumnInfo] {
        try columns(ofTable: table).filter { $0.hidden == 0 }.enumerated().map { ordinal, column in
            ColumnInfo(
                index: ordinal, name: column.name, type: column.declaredType, notNull: column.notNull,
                defaultValue: column.defaultValue, primaryKeyIndex: column.primaryKeyIndex)
        }
    }

    /// The indexes of a table, automatic ones included, with their key columns.
    package func indexes(ofTable table: String) throws -> [IndexInfo] {
        try perTable(\.indexes, table) {
            let listed = try rows("SELECT seq, name, \"unique\", origin, partial FROM pragma_index_list(?, 'main')", [table]) { statement in
                (
                    seq: statement.value(at: 0, as: Int.self) ?? 0, name: statement.value(at: 1, as: String.self) ?? "",
                    unique: (statement.value(at: 2, as: Int.self) ?? 0) != 0, origin: statement.value(at: 3, as: String.self) ?? "c",
                    partial: (statement.value(at: 4, as: Int.self) ?? 0) != 0
                )
            }
            var indexes: [IndexInfo] = []
            for entry in listed {
                let keyColumns = try rows("SELECT seqno, cid, name, \"desc\", coll, key FROM pragma_index_xinfo(?, 'main')", [entry.name]) {
                    statement -> IndexedColumnInfo? in
                    guard (statement.value(at: 5, as: Int.self) ?? 0) != 0 else { return nil }
                    return IndexedColumnInfo(
                        indexSequenceNumber: statement.value(at: 0, as: Int.self) ?? 0,
                        tableColumnIndex: statement.value(at: 1, as: Int.self) ?? 0,
                        name: statement.value(at: 2, as: String.self),
                        isDescending: (statement.value(at: 3, as: Int.self) ?? 0) != 0,
                        collation: statement.value(at: 4, as: String.self))
                }
                indexes.append(
                    IndexInfo(
                        name: entry.name, sequenceNumber: entry.seq, isUnique: entry.unique,
                        origin: IndexOrigin(rawValue: entry.origin) ?? .createIndex, isPartial: entry.partial,
                        columns: keyColumns.compactMap { $0 }))
            }
            return indexes
        }
    }

    /// The columns an index covers, in order; nil entries for expressions.
    func indexedColumnNames(ofIndex index: String) throws -> [String?] {
        try rows("SELECT name FROM pragma_index_info(?)", [index]) { $0.value(at: 0, as: String.self) }
    }

    /// The foreign keys of a table, one element per referencing column.
    package func foreignKeys(ofTable table: String) throws -> [ForeignKeyColumn] {
        try perTable(\.foreignKeys, table) {
            try rows("SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?, 'main')", [table]) { statement in
                ForeignKeyColumn(
                    id: statement.value(at: 0, as: Int.self) ?? 0, parentTable: statement.value(at: 1, as: String.self) ?? "",
                    column: statement.value(at: 2, as: String.self) ?? "", parentColumn: statement.value(at: 3, as: String.self),
                    onUpdate: statement.value(at: 4, as: String.self) ?? "NO ACTION",
                    onDelete: statement.value(at: 5, as: String.self) ?? "NO ACTION")
            }
        }
    }

    /// The user tables whose foreign keys refer to `table`.
    package func tablesReferencing(_ table: String) throws -> [String] {
        try userTableNames().filter { candidate in
            guard !sameIdentifier(candidate, table) else { return false }
            return try foreignKeys(ofTable: candidate).contains { sameIdentifier($0.parentTable, table) }
        }
    }

    /// Runs a cached pragma or schema query and maps each row.
    private func rows<T>(_ sql: SQL, _ parameters: [Bindable?], _ map: (Statement) throws -> T) throws -> [T] {
        try connection.withBookkeeping {
            try connection.withStatement(cachedFor: sql, .positional(parameters)) { statement in
                var result: [T] = []
                while try statement.step() { result.append(try map(statement)) }
                return result
            }
        }
    }
}

/// Where a connection keeps its one reader: made on first use, released with the connection
/// (the reader holds the connection unowned, so there is no cycle).
private final class SchemaReaderHolder {
    var reader: SchemaReader?
    static let slot = ConnectionSlot { SchemaReaderHolder() }
}

extension Connection {
    /// The connection's one introspection reader, cached by schema version.
    package var schemaReader: SchemaReader {
        let holder = state(in: SchemaReaderHolder.slot)
        if let reader = holder.reader { return reader }
        let reader = SchemaReader(connection: self)
        holder.reader = reader
        return reader
    }
}

/// A table as the hook capture needs it: its columns, its key, and the statement that reads a row
/// again by its key. Cached by the schema reader by schema version.
package struct CaptureTableShape: Sendable {
    /// Whether a changeset written for `self` describes a table of shape `other` (same columns,
    /// in the same order, and the same key).
    package func matches(_ other: CaptureTableShape) -> Bool {
        columnCount == other.columnCount && keyFlags == other.keyFlags && withoutRowID == other.withoutRowID
            && selectByKey.sql == other.selectByKey.sql
    }

    /// The name as the schema spells it.
    package let name: String
    /// The columns a changeset carries (no hidden or generated ones).
    package let columnCount: Int
    /// Each column's place in the primary key (1 for its first column), 0 off it: the changeset
    /// header's flags.
    package let keyFlags: [UInt8]
    /// The key's columns, in key order.
    package let keyColumns: [Int]
    package let withoutRowID: Bool
    /// Whether the table has generated columns (the session of SQLite 3.40 cannot record them).
    package let hasGeneratedColumns: Bool
    /// `SELECT <columns> FROM main.<table> WHERE <key1> = ?1 AND ...`, keyed for the statement cache.
    package let selectByKey: StatementCacheKey
}

extension SchemaReader {
    /// What ``ChangeCapture`` needs of `table` (nil when there is no such table), cached by schema
    /// version like the rest. Inside a transaction the cache answers while its version is the
    /// schema's; `atTransactionStart` (the caller vouches that the transaction has not changed the
    /// schema yet) lets a read there refill it, so a replica's writes keep it warm.
    package func captureShape(ofTable table: String, atTransactionStart: Bool) throws -> CaptureTableShape? {
        try captureShapes(ofTables: [table], atTransactionStart: atTransactionStart).shapes[0]
    }

    /// The shapes of `tables` (in their order) and the schema version they were read at, from one
    /// read of the version: a capture of many tables starts with one `PRAGMA`, not one a table.
    package func captureShapes(ofTables tables: [String], atTransactionStart: Bool) throws -> (version: Int64, shapes: [CaptureTableShape?]) {
        let (cacheVersion, shapes) = try withCache(inTransaction: atTransactionStart ? .refill : .whileCurrent) { cache in
            let shapes = try tables.map { table in
                let key = IdentifierSet.key(table)
                if let cached = cache.captureShapes[key] { return cached }
                let shape = try readCaptureShape(table)
                cache.captureShapes.updateValue(shape, forKey: key)
                return shape
            }
            return (cache.version, shapes)
        }
        // Only the scratch cache outside `.refill`/`.whileCurrent` (never used here) lacks a version.
        return (cacheVersion >= 0 ? cacheVersion : try schemaVersion(), shapes)
    }

    private func readCaptureShape(_ table: String) throws -> CaptureTableShape? {
        let entry = try rows("SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", [table]) { statement in
            (name: statement.value(at: 0, as: String.self) ?? table, sql: statement.value(at: 1, as: String.self) ?? "")
        }.first
        guard let entry else { return nil }
        let columns = try rows("SELECT name, pk, hidden FROM pragma_table_xinfo(?, 'main')", [table]) { statement in
            (
                name: statement.value(at: 0, as: String.self) ?? "", key: statement.value(at: 1, as: Int.self) ?? 0,
                hidden: statement.value(at: 2, as: Int.self) ?? 0
            )
        }
        let visible = columns.filter { $0.hidden == 0 }
        let keyColumns = visible.indices.filter { visible[$0].key > 0 }.sorted { visible[$0].key < visible[$1].key }
        let predicate = keyColumns.enumerated().map { "\(quoteIdentifier(visible[$0.element].name)) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        let select = "SELECT \(visible.map { quoteIdentifier($0.name) }.joined(separator: ", ")) FROM main.\(quoteIdentifier(entry.name)) WHERE \(predicate)"
        return CaptureTableShape(
            name: entry.name, columnCount: visible.count, keyFlags: visible.map { UInt8(clamping: $0.key) }, keyColumns: keyColumns,
            withoutRowID: tableOptionsAreWithoutRowID(Connection.tableOptions(ofCreateTableSQL: entry.sql)),
            hasGeneratedColumns: columns.contains { $0.hidden == 2 || $0.hidden == 3 },
            selectByKey: StatementCacheKey(reusing: select))
    }
}
