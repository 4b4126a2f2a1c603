// `checkSchema`: whether the database holds the table a record declares, in the form its reads and
// writes need, asked of the kernel's one schema reader. A difference that SQLite would absorb
// (a table name in another case, an extra nullable column, a BLOB column for a TEXT property) is
// not reported; one that makes a read, a write or a declared constraint go wrong is.
import Foundation

/// Why a record's declared schema and the database disagree.
public enum RecordSchemaError: Error, CustomStringConvertible, Equatable {
    /// Every difference found, one sentence each, naming the table and the column.
    case mismatch([String])
    /// `RecordSchema.migrate` refused a plan whose steps drop columns or tables holding data:
    /// one sentence per such step. Nothing was changed.
    case wouldLoseData([String])
    /// `RecordSchema.migrate` found rows without a parent after applying the plan, and rolled
    /// the plan back.
    case foreignKeysViolated([ForeignKeyViolation])
    /// `RecordSchema.migrate` found a new non-optional column without a `@Default` for a table
    /// that has rows, which nothing could fill. Nothing was changed.
    case newColumnNeedsDefault(table: String, column: String)
    /// `RecordSchema.plan` cannot make `table` match `record` (an FTS5 table that differs
    /// from the record's declaration, say); `reason` says why and what to do. Nothing was planned.
    case cannotPlan(record: String, table: String, reason: String)

    /// The differences, one per line.
    public var description: String {
        switch self {
        case .mismatch(let differences):
            return "The database does not match the records:\n" + differences.map { "- " + $0 }.joined(separator: "\n")
        case .wouldLoseData(let steps):
            return "Migrating would lose data, so nothing was changed (pass allowingDataLoss: true to accept):\n"
                + steps.map { "- " + $0 }.joined(separator: "\n")
        case .foreignKeysViolated(let violations):
            return "Migrating would leave rows without a parent, so it was rolled back: " + violations.map(\.description).joined(separator: "; ")
        case .newColumnNeedsDefault(let table, let column):
            return
                "Column \(quoteIdentifier(column)) of table \(quoteIdentifier(table)) is new and not optional, but the table has rows and the column no default "
                + "to give them, so nothing was changed: declare one on the property with @Default(…), or make the property optional"
        case .cannotPlan(let record, let table, let reason):
            return "Cannot plan table \(quoteIdentifier(table)) of record \(record): \(reason)"
        }
    }
}

extension Record {
    /// Checks that the database's table has what the record declares, and throws one error naming
    /// every difference: a missing table or column, a column name in another case (`authorID` for
    /// `authorId`), a column whose type affinity or nullability would not give back what the record
    /// stores, a NOT NULL column the record cannot fill, another primary key, and a missing foreign
    /// key (or one with other actions), UNIQUE constraint or index.
    ///
    /// ```swift
    /// try Book.checkSchema(db)   // throws RecordSchemaError.mismatch([...]) when they differ
    /// ```
    /// `@Check` expressions are not compared: SQLite keeps them only inside the table's SQL text.
    /// Nor are column defaults (`@Default`): a record writes every column, so a default only
    /// fills rows that were there before its column.
    /// - Throws: ``RecordSchemaError/mismatch(_:)``; `SQLiteError` when the schema cannot be read.
    public static func checkSchema(_ db: Connection) throws {
        let differences = try schemaDifferences(in: db)
        if !differences.isEmpty { throw RecordSchemaError.mismatch(differences) }
    }

    /// The differences ``checkSchema(_:)`` reports, in the record's column order.
    static func schemaDifferences(in db: Connection) throws -> [String] {
        try recordSchemaDifferences(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex, constraints: recordConstraints, in: db)
    }
}

/// The differences between a record's declared table (`table` with `columns`, the key at
/// `primaryKeyIndex`, `constraints`) and the database's.
func recordSchemaDifferences(
    table: String, columns recordColumns: [RecordColumn], primaryKeyIndex: Int?, constraints: [RecordConstraint],
    in db: Connection
) throws -> [String] {
    let reader = db.schemaReader
    guard let entry = try reader.table(named: table, includingViews: true) else {
        return ["table \(quoteIdentifier(table)) is missing"]
    }
    let name = quoteIdentifier(table)
    // A view or a virtual table says nothing of its columns' types, nullability or keys.
    let isPlainTable = entry.type == "table" && entry.virtualTableModule == nil
    let withoutRowID = tableOptionsAreWithoutRowID(Connection.tableOptions(ofCreateTableSQL: entry.sql ?? ""))
    let databaseColumns = try reader.columns(ofTable: entry.name)
    let rowIDAlias = isPlainTable ? try reader.rowIDAliasColumn(ofTable: entry.name)?.name : nil
    var differences: [String] = []
    var matched: Set<String> = []

    for column in recordColumns {
        let label = "column \(quoteIdentifier(column.name)) of table \(name)"
        let found = databaseColumns.first { $0.name == column.name } ?? databaseColumns.first { sameIdentifier($0.name, column.name) }
        guard let found else {
            // The rowid (`@Column("rowid")`) is no declared column, yet reads and writes reach it.
            if entry.type == "table", !withoutRowID, isRowIDName(column.name) { continue }
            differences.append("\(label) is missing")
            continue
        }
        matched.insert(found.name.lowercased())
        if found.name != column.name {
            differences.append("\(label) is spelled \(quoteIdentifier(found.name)) in the database (the names differ in case)")
        }
        guard isPlainTable else { continue }
        if found.hidden >= 2 {
            differences.append("\(label) is a generated column, which an INSERT or UPDATE cannot write")
        }
        if let problem = affinityProblem(recordType: column.sqlType, declaredType: found.declaredType) {
            differences.append("\(label) \(problem)")
        }
        let isRowID = rowIDAlias.map { sameIdentifier($0, found.name) } ?? false
        if !isRowID, !column.isOptional, !found.notNull {
            differences.append("\(label) allows NULL, but the record's property is not optional: a NULL would not read back")
        } else if !isRowID, !column.isPrimaryKey, column.isOptional, found.notNull {
            // (An optional key is NOT NULL as `createTable` declares it, unless it is the rowid.)
            differences.append("\(label) is NOT NULL, but the record's property is optional: saving nil would fail")
        }
    }
    guard isPlainTable else { return differences }

    for column in databaseColumns
    where !matched.contains(column.name.lowercased()) && column.hidden == 0 && column.notNull
        && column.defaultValue == nil && !(rowIDAlias.map { sameIdentifier($0, column.name) } ?? false)
    {
        differences.append(
            "column \(quoteIdentifier(column.name)) of table \(name) is NOT NULL without a default, and the record has no property for it: inserting a record would fail"
        )
    }

    let key = primaryKeyIndex.map { recordColumns[$0].name }
    if let key {
        let databaseKey = databaseColumns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }.map(\.name)
        // A key that is the rowid itself needs no declared key, or the column that aliases it.
        let keyIsRowID =
            !withoutRowID && isRowIDName(key) && !databaseColumns.contains { sameIdentifier($0.name, key) }
            && (databaseKey.isEmpty || rowIDAlias != nil)
        if !keyIsRowID, databaseKey.count != 1 || !sameIdentifier(databaseKey[0], key) {
            let actual = databaseKey.isEmpty ? "has no primary key" : "has the primary key (" + databaseKey.map(quoteIdentifier).joined(separator: ", ") + ")"
            differences.append("table \(name) \(actual), but the record's is \(quoteIdentifier(key))")
        }
    }

    guard !constraints.isEmpty else { return differences }
    let foreignKeys = try reader.foreignKeys(ofTable: entry.name)
    let indexes = try reader.indexes(ofTable: entry.name).filter { !$0.isPartial }
    for constraint in constraints {
        let label = "column \(quoteIdentifier(constraint.column)) of table \(name)"
        switch constraint.kind {
        case .references(_, let parent, let parentKey, let onDelete, let onUpdate):
            let target = quoteIdentifier(parent) + (parentKey.map { " (" + quoteIdentifier($0) + ")" } ?? "")
            // A foreign key of one column; a nil parent column means the parent's primary key.
            let candidates = foreignKeys.filter { foreignKey in
                sameIdentifier(foreignKey.column, constraint.column) && sameIdentifier(foreignKey.parentTable, parent)
                    && foreignKeys.filter { $0.id == foreignKey.id }.count == 1
                    && (foreignKey.parentColumn.map { column in parentKey.map { sameIdentifier(column, $0) } ?? false } ?? true)
            }
            let wanted = (delete: onDelete?.rawValue ?? "NO ACTION", update: onUpdate?.rawValue ?? "NO ACTION")
            if candidates.isEmpty {
                differences.append("\(label) has no foreign key to \(target)")
            } else if !candidates.contains(where: { $0.onDelete == wanted.delete && $0.onUpdate == wanted.update }) {
                let actual = candidates[0]
                differences.append(
                    "\(label) references \(target) ON DELETE \(actual.onDelete) ON UPDATE \(actual.onUpdate), but the record declares ON DELETE \(wanted.delete) ON UPDATE \(wanted.update)"
                )
            }
            if !isIndexed(constraint.column, in: indexes, key: key) { differences.append("\(label) has no index") }
        case .indexed:
            if !isIndexed(constraint.column, in: indexes, key: key) { differences.append("\(label) has no index") }
        case .unique:
            let isUnique =
                indexes.contains { $0.isUnique && $0.columns.count == 1 && $0.columnNames.count == 1 && sameIdentifier($0.columnNames[0], constraint.column) }
                || (key.map { sameIdentifier($0, constraint.column) } ?? false)
            if !isUnique { differences.append("\(label) is not UNIQUE") }
        case .check:
            continue
        }
    }
    // A column both `@Indexed` and `@References` lacks its index once.
    var seen: Set<String> = []
    return differences.filter { seen.insert($0).inserted }
}

/// Whether `name` is one of the names SQLite gives the rowid.
func isRowIDName(_ name: String) -> Bool {
    ["rowid", "oid", "_rowid_"].contains { sameIdentifier($0, name) }
}

/// Whether lookups by `column` find an index: one whose first column it is, or the primary key
/// (the rowid, or the key's own index; a table with another key is reported on its own).
private func isIndexed(_ column: String, in indexes: [IndexInfo], key: String?) -> Bool {
    if let key, sameIdentifier(key, column) { return true }
    return indexes.contains { $0.columns.first?.name.map { sameIdentifier($0, column) } ?? false }
}

/// Why a column of `declaredType` would not give back the values a record column of
/// `recordType` stores, or nil when it would. Affinity converts on the way in: a TEXT column turns
/// integers into text, an INTEGER or NUMERIC one turns numeric-looking text into numbers, a REAL
/// one turns integers into reals. A BLOB-affinity column converts nothing, and a blob is never
/// converted.
func affinityProblem(recordType: String, declaredType: String) -> String? {
    let affinity = DeclaredTypeAffinity(declaredType: declaredType)
    let accepted: [DeclaredTypeAffinity]
    switch recordType {
    case "INTEGER": accepted = [.integer, .numeric, .blob]
    case "REAL": accepted = [.real, .numeric, .integer, .blob]
    case "TEXT": accepted = [.text, .blob]
    default: return nil // BLOB, or a custom binding that declares no type
    }
    guard !accepted.contains(affinity) else { return nil }
    let declared = declaredType.isEmpty ? "no type" : quoteStringLiteral(declaredType)
    return "is declared \(declared) (\(affinity.name) affinity), which would not give back the record's \(recordType) values"
}

extension RecordSchemaError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
