// The one table definition: every `CREATE TABLE` Strata generates (records, the ORM, Swiftly's
// descriptions, the schema DSL, Squeal's helper, the migrator's bookkeeping table) is rendered
// here, and so is every column definition, including `ALTER TABLE … ADD COLUMN`'s. Callers keep
// their own public vocabulary and translate it into this one. DDL takes no bound parameters, so
// the output is plain SQL text: identifiers quoted with `quoteIdentifier`, values as literals.
import StrataKernel
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A table to create: its columns, table constraints and options, or a virtual table's module.
///
/// ```swift
/// let players = TableDefinition("players", columns: [
///     .init("id", type: "INTEGER", [.primaryKey()]),
///     .init("name", type: "TEXT", [.notNull(), .collate("NOCASE")]),
/// ], options: .strict)
/// try db.execute(players.sql)  // CREATE TABLE "players" ("id" INTEGER PRIMARY KEY, …) STRICT
/// ```
package struct TableDefinition: Equatable, Sendable {
    /// The table's name, unquoted.
    package var name: String
    /// The schema that holds it (`main`, `temp`, an attached database), or nil for SQLite's choice.
    package var schema: String?
    /// The columns, in order. A virtual table's are its first module arguments.
    package var columns: [Column]
    /// The table constraints, after the columns (an ordinary table's only).
    package var constraints: [Constraint]
    /// An ordinary table with its options, or a virtual table.
    package var kind: Kind
    /// `IF NOT EXISTS`.
    package var ifNotExists: Bool
    /// `CREATE TEMP TABLE` (a virtual table goes to the `temp` schema instead, which SQLite requires).
    package var isTemporary: Bool
    /// Whether a space separates the name from the column list: `"t" (…)`, or `"t"(…)` as
    /// SQLite.swiftly writes it.
    package var spaceBeforeColumnList: Bool

    /// An ordinary table.
    package init(
        _ name: String, schema: String? = nil, columns: [Column] = [], constraints: [Constraint] = [],
        options: Options = [], ifNotExists: Bool = false, isTemporary: Bool = false, spaceBeforeColumnList: Bool = true
    ) {
        self.name = name
        self.schema = schema
        self.columns = columns
        self.constraints = constraints
        self.kind = .ordinary(options)
        self.ifNotExists = ifNotExists
        self.isTemporary = isTemporary
        self.spaceBeforeColumnList = spaceBeforeColumnList
    }

    /// A virtual table: `CREATE VIRTUAL TABLE "name" USING "module"(columns…, arguments…)`.
    /// Columns render as column definitions (FTS5 reads `"id" UNINDEXED`); `arguments` are the
    /// module's own SQL fragments (`tokenize = 'porter'`), written as given.
    package static func virtual(
        _ name: String, schema: String? = nil, using module: String, columns: [Column] = [],
        arguments: [String] = [], ifNotExists: Bool = false, isTemporary: Bool = false
    ) -> TableDefinition {
        var table = TableDefinition(name, schema: schema, columns: columns, ifNotExists: ifNotExists, isTemporary: isTemporary)
        table.kind = .virtual(module: module, arguments: arguments)
        return table
    }

    /// What kind of table.
    package enum Kind: Equatable, Sendable {
        /// `CREATE TABLE`, with its options.
        case ordinary(Options)
        /// `CREATE VIRTUAL TABLE … USING module(arguments)`.
        case virtual(module: String, arguments: [String])
    }

    /// The options after an ordinary table's column list.
    package struct Options: OptionSet, Equatable, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// `WITHOUT ROWID`: the primary key is the storage key.
        package static let withoutRowID = Options(rawValue: 1)
        /// `STRICT` (SQLite 3.37 and later; see ``supportsStrict``): values must match the declared types.
        package static let strict = Options(rawValue: 2)
    }

    /// Whether the SQLite Strata runs on accepts `STRICT` tables (3.37.0 and later).
    package static var supportsStrict: Bool { sqlite3_libversion_number() >= 3_037_000 }

    /// The whole statement.
    package var sql: String {
        switch kind {
        case .ordinary(let options):
            let words = [options.contains(.withoutRowID) ? "WITHOUT ROWID" : nil, options.contains(.strict) ? "STRICT" : nil].compactMap { $0 }
            return Self.createTableSQL(
                temporary: isTemporary, ifNotExists: ifNotExists, schema: schema, name: name,
                spaceBeforeColumnList: spaceBeforeColumnList, body: bodySQL, options: words.joined(separator: ", "))
        case .virtual(let module, let arguments):
            var sql = "CREATE VIRTUAL TABLE " + (ifNotExists ? "IF NOT EXISTS " : "")
            if let schema = schema ?? (isTemporary ? "temp" : nil) { sql += quoteIdentifier(schema) + "." }
            sql += quoteIdentifier(name) + " USING " + quoteIdentifier(module)
            let all = columns.map(\.sql) + arguments
            if !all.isEmpty { sql += "(" + all.joined(separator: ", ") + ")" }
            return sql
        }
    }

    /// The one place `CREATE TABLE` is written: `CREATE [TEMP] TABLE [IF NOT EXISTS] "schema"."name"
    /// (body) options`. A rebuild passes the body and options as SQL (copied from the stored table
    /// or from a declaration); everything else renders a definition through ``sql``.
    package static func createTableSQL(
        temporary: Bool = false, ifNotExists: Bool = false, schema: String?, name: String,
        spaceBeforeColumnList: Bool = true, body: String, options: String
    ) -> String {
        var sql = temporary ? "CREATE TEMP TABLE " : "CREATE TABLE "
        if ifNotExists { sql += "IF NOT EXISTS " }
        if let schema { sql += quoteIdentifier(schema) + "." }
        sql += quoteIdentifier(name) + (spaceBeforeColumnList ? " (" : "(") + body + ")"
        return options.isEmpty ? sql : sql + " " + options
    }

    /// The text between the parentheses of an ordinary table: column definitions, then constraints.
    package var bodySQL: String {
        (columns.map(\.sql) + constraints.map(\.sql)).joined(separator: ", ")
    }

    private var isVirtual: Bool {
        if case .virtual = kind { return true }
        return false
    }

    /// `ALTER TABLE "table" ADD COLUMN definition`: the column rendered as `CREATE TABLE` renders it.
    package static func addColumnSQL(table: String, column: Column) -> String {
        addColumnSQL(table: table, definition: column.sql)
    }

    /// `ALTER TABLE "table" ADD COLUMN definition`, for a definition that is already SQL (Squeal's helper).
    package static func addColumnSQL(table: String, definition: String) -> String {
        "ALTER TABLE " + quoteIdentifier(table) + " ADD COLUMN " + definition
    }
}

// MARK: - Columns

extension TableDefinition {
    /// One column: `"name" TYPE constraints…`.
    package struct Column: Equatable, Sendable {
        /// The column's name, unquoted.
        package var name: String
        /// The declared type as SQL (`INTEGER`, `INT(11)`, `DECIMAL(10,2)`), or nil for none.
        package var type: String?
        /// The column constraints, rendered in this order.
        package var constraints: [ColumnConstraint]

        /// A column; an empty `type` declares none.
        package init(_ name: String, type: String? = nil, _ constraints: [ColumnConstraint] = []) {
            self.name = name
            self.type = type
            self.constraints = constraints
        }

        /// The column definition.
        package var sql: String {
            var parts = [quoteIdentifier(name)]
            if let type, !type.isEmpty { parts.append(type) }
            return (parts + constraints.map(\.sql)).joined(separator: " ")
        }
    }

    /// A column constraint.
    package indirect enum ColumnConstraint: Equatable, Sendable {
        /// `PRIMARY KEY [ASC|DESC] [ON CONFLICT …] [AUTOINCREMENT]`.
        case primaryKey(order: SortOrder? = nil, onConflict: Conflict? = nil, autoincrement: Bool = false)
        /// `NOT NULL [ON CONFLICT …]`.
        case notNull(onConflict: Conflict? = nil)
        /// `NULL`: says the column accepts NULL, which it does anyway (SQLite.swiftly writes it).
        case null
        /// `UNIQUE [ON CONFLICT …]`.
        case unique(onConflict: Conflict? = nil)
        /// `DEFAULT literal` (DDL takes no parameters: text quoted, blobs in hex).
        case defaultValue(BindingValue)
        /// `DEFAULT (expression)`.
        case defaultExpression(String)
        /// `CHECK (expression)`.
        case check(String)
        /// `COLLATE "name"`.
        case collate(String)
        /// `REFERENCES "table" ("column", …) [ON DELETE …] [ON UPDATE …]`.
        case references(ForeignKey)
        /// `GENERATED ALWAYS AS (expression) STORED|VIRTUAL`.
        case generated(String, stored: Bool)
        /// A constraint written as SQL, as given (the schema DSL's fragments).
        case raw(String)
        /// `CONSTRAINT "name" constraint`.
        case named(String, ColumnConstraint)

        /// The constraint's SQL.
        package var sql: String {
            switch self {
            case .primaryKey(let order, let onConflict, let autoincrement):
                return "PRIMARY KEY" + (order.map { " " + $0.rawValue } ?? "") + (onConflict.map { " " + $0.sql } ?? "")
                    + (autoincrement ? " AUTOINCREMENT" : "")
            case .notNull(let onConflict):
                return "NOT NULL" + (onConflict.map { " " + $0.sql } ?? "")
            case .null:
                return "NULL"
            case .unique(let onConflict):
                return "UNIQUE" + (onConflict.map { " " + $0.sql } ?? "")
            case .defaultValue(let value):
                return "DEFAULT " + sqlLiteral(value)
            case .defaultExpression(let expression):
                return "DEFAULT (" + expression + ")"
            case .check(let expression):
                return "CHECK (" + expression + ")"
            case .collate(let collation):
                return "COLLATE " + quoteIdentifier(collation)
            case .references(let foreignKey):
                return foreignKey.sql
            case .generated(let expression, let stored):
                return "GENERATED ALWAYS AS (" + expression + ")" + (stored ? " STORED" : " VIRTUAL")
            case .raw(let sql):
                return sql
            case .named(let name, let constraint):
                return "CONSTRAINT " + quoteIdentifier(name) + " " + constraint.sql
            }
        }
    }

    /// A table constraint.
    package indirect enum Constraint: Equatable, Sendable {
        /// `PRIMARY KEY ("a", "b") [ON CONFLICT …]`.
        case primaryKey([String], onConflict: Conflict? = nil)
        /// `UNIQUE ("a", "b") [ON CONFLICT …]`.
        case unique([String], onConflict: Conflict? = nil)
        /// `CHECK (expression)`.
        case check(String)
        /// `FOREIGN KEY ("a") REFERENCES …`.
        case foreignKey([String], ForeignKey)
        /// A definition written as SQL, as given: a table constraint, or, for Squeal's
        /// `createTable(_:definitions:)`, any element of the column list.
        case raw(String)
        /// `CONSTRAINT "name" constraint`.
        case named(String, Constraint)

        /// The constraint's SQL.
        package var sql: String {
            switch self {
            case .primaryKey(let columns, let onConflict):
                return "PRIMARY KEY (" + quotedList(columns) + ")" + (onConflict.map { " " + $0.sql } ?? "")
            case .unique(let columns, let onConflict):
                return "UNIQUE (" + quotedList(columns) + ")" + (onConflict.map { " " + $0.sql } ?? "")
            case .check(let expression):
                return "CHECK (" + expression + ")"
            case .foreignKey(let columns, let foreignKey):
                return "FOREIGN KEY (" + quotedList(columns) + ") " + foreignKey.sql
            case .raw(let sql):
                return sql
            case .named(let name, let constraint):
                return "CONSTRAINT " + quoteIdentifier(name) + " " + constraint.sql
            }
        }
    }

    /// `REFERENCES "table" ("column", …)` and its actions.
    package struct ForeignKey: Equatable, Sendable {
        /// The parent table.
        package var table: String
        /// The parent columns; empty for the parent's primary key.
        package var columns: [String]
        /// `ON DELETE …`.
        package var onDelete: Action?
        /// `ON UPDATE …`.
        package var onUpdate: Action?
        /// `DEFERRABLE INITIALLY DEFERRED`: checked at commit rather than per statement.
        package var isDeferred: Bool

        package init(table: String, columns: [String] = [], onDelete: Action? = nil, onUpdate: Action? = nil, isDeferred: Bool = false) {
            self.table = table
            self.columns = columns
            self.onDelete = onDelete
            self.onUpdate = onUpdate
            self.isDeferred = isDeferred
        }

        /// What a change to the parent does to the child rows.
        package enum Action: String, Sendable {
            case setNull = "SET NULL", setDefault = "SET DEFAULT", cascade = "CASCADE", restrict = "RESTRICT", noAction = "NO ACTION"
        }

        /// The `REFERENCES` clause.
        package var sql: String {
            "REFERENCES " + quoteIdentifier(table) + (columns.isEmpty ? "" : " (" + quotedList(columns) + ")")
                + (onDelete.map { " ON DELETE " + $0.rawValue } ?? "") + (onUpdate.map { " ON UPDATE " + $0.rawValue } ?? "")
                + (isDeferred ? " DEFERRABLE INITIALLY DEFERRED" : "")
        }
    }

    /// A primary key column's order.
    package enum SortOrder: String, Sendable {
        case asc = "ASC", desc = "DESC"
    }

    /// What SQLite does when a constraint fails.
    package enum Conflict: String, Sendable {
        case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"

        /// `ON CONFLICT …`.
        package var sql: String { "ON CONFLICT " + rawValue }
    }
}

private func quotedList(_ names: [String]) -> String {
    names.map(quoteIdentifier).joined(separator: ", ")
}
