/// Resolves expressions into a `SQLFragment` for the core's renderer: each key path (a late
/// column of the expression's fragment) becomes a column segment of the storage's columns
/// (quoted; a join can qualify them), and the tables they belong to are recorded.
public struct SQLSerializer {
    let schema: Schema
    /// What the expressions wrote so far.
    var fragment = SQLFragment()
    /// The tables whose columns the expression names, in order of appearance.
    var referencedTables: [AnyTable] = []

    init(schema: Schema) { self.schema = schema }

    mutating func append(_ text: String) { fragment.append(SQLFragment(sql: text)) }

    /// Appends `expression`'s SQL, its key paths resolved.
    /// - Throws: `ORMError.columnIsNotMapped` for a key path that is no column of the storage.
    mutating func append(_ expression: any Expression) throws {
        fragment.append(try resolved(expression.fragment))
    }

    /// `fragment` with its key paths resolved to the storage's columns.
    /// - Throws: `ORMError.columnIsNotMapped` for a key path that is no column of the storage.
    mutating func resolved(_ fragment: SQLFragment) throws -> SQLFragment {
        let schema = schema
        var tables = referencedTables
        defer { referencedTables = tables }
        return try fragment.resolvingLateColumns { column in
            guard let keyPath = column.key.base as? AnyKeyPath, let mapped = schema.columnsByKeyPath[keyPath] else {
                throw ORMError.columnIsNotMapped(keyPath: column.description)
            }
            if !tables.contains(where: { $0 === mapped.table }) { tables.append(mapped.table) }
            return (mapped.column.name, nil)
        }
    }
}
