/// A table of any model type, as a storage holds it.
public class AnyTable {
    /// The table's name in the database.
    public let name: String
    @usableFromInline let columns: [AnyColumn]
    let objectType: Any.Type
    /// Why the definition is unusable, reported when a storage is created with it.
    let definitionError: ORMError?

    /// The primary key's columns, in declaration order.
    let primaryKeyColumns: [AnyColumn]
    /// The column that aliases the rowid (a single INTEGER primary key, not `DESC`), which
    /// inserts omit so SQLite assigns it.
    @usableFromInline let rowidColumn: AnyColumn?
    /// The statement that reads back the key of the row an insert stored, by its rowid, when the
    /// key is one column that does not alias the rowid (`INTEGER PRIMARY KEY DESC`, say): the
    /// insert returns that key, as it returns an alias key, so `get(id:)` finds the row. Nil for
    /// an alias key, a composite or TEXT key, or columns that hide every name of the rowid.
    let insertedKeyStatement: StatementCacheKey?

    init(name: String, columns: [AnyColumn], objectType: Any.Type, definitionError: ORMError?) {
        self.name = name
        self.columns = columns
        self.objectType = objectType
        self.definitionError = definitionError
        primaryKeyColumns = columns.filter(\.isPrimaryKey)
        rowidColumn = AnyTable.rowidColumn(of: columns)
        statementKeys = AnyTable.crudSQL(name: name, columns: columns, keys: primaryKeyColumns, rowid: rowidColumn)
            .map(StatementCacheKey.init(reusing:))
        insertedKeyStatement = AnyTable.insertedKeySQL(name: name, columns: columns, keys: primaryKeyColumns, rowid: rowidColumn)
            .map(StatementCacheKey.init(reusing:))
    }

    /// `SELECT "key" FROM "table" WHERE rowid = ?` for ``insertedKeyStatement``, naming the rowid
    /// by the first of `rowid`, `oid`, `_rowid_` that no column hides.
    private static func insertedKeySQL(name: String, columns: [AnyColumn], keys: [AnyColumn], rowid: AnyColumn?) -> SQL? {
        // A TEXT key never holds an integer, so there is no key to return in its place.
        guard rowid == nil, keys.count == 1, DeclaredTypeAffinity(declaredType: keys[0].sqlType) != .text else { return nil }
        let rowidName = ["rowid", "oid", "_rowid_"].first { alias in !columns.contains { sameIdentifier($0.name, alias) } }
        guard let rowidName else { return nil }
        return "SELECT \(keys[0].name.quotedIdentifier) FROM \(name.quotedIdentifier) WHERE \(rowidName) = ?"
    }

    /// The column among `columns` that aliases the rowid, by SQLite's rule (the kernel's
    /// `isRowIDAlias`): a single key is declared inline, so its `DESC` is the column
    /// constraint's, which makes `INTEGER PRIMARY KEY DESC` an ordinary column that an insert
    /// must fill.
    static func rowidColumn(of columns: [AnyColumn]) -> AnyColumn? {
        let keys = columns.filter(\.isPrimaryKey)
        guard keys.count == 1 else { return nil }
        return isRowIDAlias(
            declaredType: keys[0].sqlType, isSolePrimaryKey: true,
            descendingColumnConstraint: keys[0].primaryKeyOrder == .desc, withoutRowID: false) ? keys[0] : nil
    }

    /// The table in the one table definition: a single-column primary key inline, a composite
    /// one as a table constraint (its columns' order and conflict clauses are not rendered, as in
    /// SQLiteORM).
    var tableDefinition: TableDefinition {
        let keys = primaryKeyColumns
        return TableDefinition(
            name, columns: columns.map { $0.definition(inlinePrimaryKey: keys.count == 1) },
            constraints: keys.count > 1 ? [.primaryKey(keys.map(\.name))] : [])
    }

    /// The text between the parentheses of the table's CREATE TABLE.
    var definitionSQL: String { tableDefinition.bodySQL }

    /// `CREATE TABLE "name" (...)`.
    var createSQL: String { tableDefinition.sql }

    /// The table's CRUD statements' keys in the connection's statement cache, built once with the
    /// table (their SQL depends on it alone), so a row's insert hashes no SQL.
    private let statementKeys: [StatementCacheKey]

    /// The quoted column names, in order, for a SELECT.
    var columnList: String { columns.map(\.name.quotedIdentifier).joined(separator: ", ") }

    /// The cache key of the table's `kind` statement.
    func statementKey(_ kind: CRUDStatement) -> StatementCacheKey { statementKeys[kind.rawValue] }

    /// The SQL of each CRUD statement, in ``CRUDStatement`` order. Statements that need a
    /// primary key are only run when the table has one.
    private static func crudSQL(name: String, columns: [AnyColumn], keys: [AnyColumn], rowid: AnyColumn?) -> [SQL] {
        let byKey = StatementClauses.byKey(name, keyColumns: keys.map(\.name))
        return CRUDStatement.allCases.map { kind in
            switch kind {
            case .insert: return StatementClauses.insert(into: name, columns: columns.filter { $0 !== rowid }.map(\.name)).sql
            case .replace: return StatementClauses.insert(into: name, columns: columns.map(\.name), onConflict: .replace).sql
            case .get: return byKey.select(columns.map(\.name))
            case .update: return byKey.update(columns.filter { !$0.isPrimaryKey }.map(\.name))
            case .delete: return byKey.delete()
            }
        }
    }
}

/// The statements the ORM runs per object.
@usableFromInline
enum CRUDStatement: Int, CaseIterable {
    case insert, replace, get, update, delete
}

/// The mapping of model type `T` to a table: its name and its columns.
///
/// ```swift
/// Table<UserType>(name: "user_types",
///                 Column(name: "id", keyPath: \UserType.id, constraints: primaryKey(), notNull()),
///                 Column(name: "name", keyPath: \UserType.name, constraints: notNull()))
/// ```
/// A column mapped to another type, or two columns with one name, make `Storage(...)` throw.
public final class Table<T>: AnyTable {
    /// The accessors, parallel to `columns`.
    @usableFromInline let accessors: [ColumnAccessor<T>]
    /// The accessors' read closures, held directly so a row costs one closure load per column.
    @usableFromInline let readers: [(inout T, SQLiteStatementHandle, Int32) -> Bool]
    /// The accessors' bind closures.
    @usableFromInline let binders: [(T, SQLiteStatementHandle, Int32) throws -> Int32]
    /// The bind closures of the columns an insert lists (all but the rowid alias).
    @usableFromInline let insertBinders: [(T, SQLiteStatementHandle, Int32) throws -> Int32]

    /// A table with the given columns (the seed README's spelling).
    // Disfavoured so `Table<T>(name:)` with no column is not ambiguous with `columns:`.
    @_disfavoredOverload
    public convenience init(name: String, _ columns: AnyColumn...) {
        self.init(name: name, elements: columns)
    }

    /// A table with the given columns (upstream's current spelling).
    public convenience init(name: String, columns: AnyColumn...) {
        self.init(name: name, elements: columns)
    }

    /// A table made of `elements` (columns).
    public init(name: String, elements: [TableElement]) {
        var columns: [AnyColumn] = []
        var accessors: [ColumnAccessor<T>] = []
        var error: ORMError?
        for element in elements {
            guard let column = element as? AnyColumn else {
                error = .invalidDefinition("table '\(name)' has an element that is not a column: \(element)")
                continue
            }
            guard let accessor = column.accessor as? ColumnAccessor<T> else {
                error = .invalidDefinition("column '\(column.name)' of table '\(name)' maps \(column.objectType), not \(T.self)")
                continue
            }
            if columns.contains(where: { $0.name.lowercased() == column.name.lowercased() }) {
                error = .invalidDefinition("table '\(name)' has two columns named '\(column.name)'")
            }
            columns.append(column)
            accessors.append(accessor)
        }
        if columns.isEmpty, error == nil { error = .invalidDefinition("table '\(name)' has no columns") }
        self.accessors = accessors
        self.readers = accessors.map(\.read)
        self.binders = accessors.map(\.bind)
        let rowid = AnyTable.rowidColumn(of: columns)
        insertBinders = zip(columns, accessors).filter { $0.0 !== rowid }.map(\.1.bind)
        super.init(name: name, columns: columns, objectType: T.self, definitionError: error)
    }
}
