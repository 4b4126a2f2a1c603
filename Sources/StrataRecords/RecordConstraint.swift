// The constraints a record's properties declare (`@References`, `@Indexed`, `@Unique`,
// `@Check`), as `@Record` lists them, and the DDL `createTable` renders from them through the
// kernel's one table definition.
import Foundation

/// Marks a property as a foreign key to another record's primary key; `createTable` declares the
/// `FOREIGN KEY` and an index on the column (which SQLite needs to find the children of a parent
/// without scanning the table).
///
/// ```swift
/// @Record struct Book {
///     @PrimaryKey var id: Int64?
///     @References(Author.self, onDelete: .cascade) var authorId: Int64
/// }
/// ```
/// SQLite enforces foreign keys only on connections that enable them (`PRAGMA foreign_keys = ON`).
/// The referenced record must declare a `@PrimaryKey`: `createTable` throws
/// ``RecordError/noPrimaryKey(record:)`` otherwise.
@attached(peer)
public macro References<Referenced: Record>(_ record: Referenced.Type, onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil) =
    #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// Marks a property whose column `createTable` indexes (`CREATE INDEX "<table>_<column>_idx"`).
@attached(peer)
public macro Indexed() = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// Marks a property whose column `createTable` declares `UNIQUE`.
@attached(peer)
public macro Unique() = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// A `CHECK` constraint written as SQL, which `createTable` adds to the record's table. The
/// expression may name any column of the table: `@Check("year > 0")`, `@Check("end >= start")`.
@attached(peer)
public macro Check(_ sql: String) = #externalMacro(module: "StrataRecordsMacros", type: "RecordPropertyMarkerMacro")

/// What a change to a referenced row does to the rows that refer to it
/// (<https://www.sqlite.org/foreignkeys.html#fk_actions>).
public enum ForeignKeyAction: String, Sendable, CaseIterable {
    /// Deleting (updating) the parent deletes (updates) the children.
    case cascade = "CASCADE"
    /// The children's column becomes NULL.
    case setNull = "SET NULL"
    /// The change is refused while children refer to the parent, even inside a transaction.
    case restrict = "RESTRICT"
    /// The change is refused if children still refer to the parent when the statement ends
    /// (SQLite's default).
    case noAction = "NO ACTION"
    /// The children's column takes its default value.
    case setDefault = "SET DEFAULT"

    var tableDefinitionAction: TableDefinition.ForeignKey.Action {
        switch self {
        case .cascade: return .cascade
        case .setNull: return .setNull
        case .restrict: return .restrict
        case .noAction: return .noAction
        case .setDefault: return .setDefault
        }
    }
}

/// One constraint a record property declares; `@Record` lists them in ``Record/recordConstraints``.
public struct RecordConstraint: Sendable, Equatable {
    /// The constrained column.
    public let column: String
    /// What the constraint says.
    public let kind: Kind

    /// The kinds of constraint.
    public enum Kind: Sendable, Equatable {
        /// `FOREIGN KEY (column) REFERENCES table (key)`, with an index on the column. `key` is nil
        /// when the referenced record declares no primary key (which `createTable` refuses).
        case references(record: String, table: String, key: String?, onDelete: ForeignKeyAction?, onUpdate: ForeignKeyAction?)
        /// An index on the column.
        case indexed
        /// `UNIQUE`.
        case unique
        /// `CHECK (sql)`, on the table.
        case check(String)
    }

    /// A constraint by its parts.
    public init(column: String, kind: Kind) {
        self.column = column
        self.kind = kind
    }

    /// `@References`: a foreign key to `record`'s primary key.
    public static func references<Referenced: Record>(
        _ column: String, _ record: Referenced.Type, onDelete: ForeignKeyAction? = nil,
        onUpdate: ForeignKeyAction? = nil
    ) -> RecordConstraint {
        RecordConstraint(
            column: column,
            kind: .references(
                record: "\(Referenced.self)", table: Referenced.tableName,
                key: Referenced.primaryKeyIndex.map { Referenced.recordColumns[$0].name },
                onDelete: onDelete, onUpdate: onUpdate))
    }

    /// `@Indexed`.
    public static func indexed(_ column: String) -> RecordConstraint { RecordConstraint(column: column, kind: .indexed) }

    /// `@Unique`.
    public static func unique(_ column: String) -> RecordConstraint { RecordConstraint(column: column, kind: .unique) }

    /// `@Check`: `sql` is an SQL expression, written into the table's definition as given.
    public static func check(_ column: String, _ sql: String) -> RecordConstraint { RecordConstraint(column: column, kind: .check(sql)) }

    /// The referenced record's name, for a `@References` constraint.
    var referencedRecord: String? {
        if case .references(let record, _, _, _, _) = kind { return record }
        return nil
    }

    /// Whether `createTable` indexes the column for this constraint.
    var wantsIndex: Bool {
        switch kind {
        case .references, .indexed: return true
        case .unique, .check: return false
        }
    }
}

extension QueryableRecord {
    /// No constraints beyond the key and NOT NULL: `@Record` writes this member when a property
    /// declares `@References`, `@Indexed`, `@Unique` or `@Check`.
    public static var recordConstraints: [RecordConstraint] { [] }
}

/// The name `createTable` gives the index on one column of a table: deterministic, so a schema
/// check or a later migration finds it again.
func recordIndexName(table: String, column: String) -> String {
    table + "_" + column + "_idx"
}

extension RecordStatements {
    /// The statements that create the table with `constraints`: `CREATE TABLE` (UNIQUE on its
    /// columns, then the foreign keys and CHECKs as table constraints), then one `CREATE INDEX` per
    /// indexed column that neither the key nor a UNIQUE constraint already indexes.
    /// - Throws: ``RecordError/noPrimaryKey(record:)`` for a reference to a record without a key.
    func createTableStatements(ifNotExists: Bool, constraints: [RecordConstraint]) throws -> [String] {
        guard !constraints.isEmpty else { return [createTableSQL(ifNotExists: ifNotExists)] }
        let (unique, tableConstraints) = try tableParts(constraints: constraints)
        return [createTableSQL(ifNotExists: ifNotExists, unique: unique, constraints: tableConstraints)]
            + indexStatements(ifNotExists: ifNotExists, constraints: constraints).map(\.sql)
    }

    /// The UNIQUE columns and the table constraints (foreign keys, then CHECKs) of the table.
    func tableParts(constraints: [RecordConstraint]) throws -> (unique: Set<String>, constraints: [TableDefinition.Constraint]) {
        let unique = Set(constraints.filter { $0.kind == .unique }.map(\.column))
        var tableConstraints: [TableDefinition.Constraint] = []
        for constraint in constraints {
            guard case .references(let record, let table, let key, let onDelete, let onUpdate) = constraint.kind else { continue }
            guard let key else { throw RecordError.noPrimaryKey(record: record) }
            tableConstraints.append(
                .foreignKey(
                    [constraint.column],
                    .init(
                        table: table, columns: [key], onDelete: onDelete?.tableDefinitionAction,
                        onUpdate: onUpdate?.tableDefinitionAction)))
        }
        for constraint in constraints {
            if case .check(let sql) = constraint.kind { tableConstraints.append(.check(sql)) }
        }
        return (unique, tableConstraints)
    }

    /// The columns indexed by name (`<table>_<column>_idx`) and their `CREATE INDEX` statements:
    /// those neither the key nor a UNIQUE constraint already indexes.
    func indexStatements(ifNotExists: Bool, constraints: [RecordConstraint]) -> [(column: String, sql: String)] {
        var indexed = Set(constraints.filter { $0.kind == .unique }.map(\.column))
        if let keyColumn { indexed.insert(keyColumn) }
        var sql: [(column: String, sql: String)] = []
        for constraint in constraints where constraint.wantsIndex && indexed.insert(constraint.column).inserted {
            sql.append(
                (
                    constraint.column,
                    "CREATE INDEX " + (ifNotExists ? "IF NOT EXISTS " : "") + quoteIdentifier(recordIndexName(table: table, column: constraint.column))
                        + " ON " + quoteIdentifier(table) + " (" + quoteIdentifier(constraint.column) + ")"
                ))
        }
        return sql
    }
}
