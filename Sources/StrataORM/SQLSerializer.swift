/// Turns expressions into a `SQLFragment`: SQL text, values bound as `?` parameters, and key
/// paths resolved to column segments of the storage's columns (quoted; a join can qualify them).
public struct SQLSerializer {
    let schema: Schema
    /// What the expressions wrote so far.
    var fragment = SQLFragment()
    /// The tables whose columns the expression names, in order of appearance.
    var referencedTables: [AnyTable] = []

    init(schema: Schema) { self.schema = schema }

    /// The SQL written so far, `?` for each value.
    var sql: String { fragment.sql }

    mutating func append(_ text: String) { fragment.append(segment: .text(text)) }

    mutating func appendValue(_ value: any Strata.Bindable) {
        fragment.append(segment: .value(value.bindingValue))
    }

    mutating func appendColumn(_ keyPath: AnyKeyPath) throws {
        guard let mapped = schema.columnsByKeyPath[keyPath] else {
            throw ORMError.columnIsNotMapped(keyPath: "\(keyPath)")
        }
        if !referencedTables.contains(where: { $0 === mapped.table }) { referencedTables.append(mapped.table) }
        fragment.append(segment: .column(mapped.column.name, qualifier: nil))
    }

    /// A table's quoted name.
    mutating func appendTable(_ table: AnyTable) {
        fragment.append(segment: .identifier(table.name))
    }

    mutating func append(_ expression: any Expression) throws {
        try expression.appendSQL(to: &self)
    }
}
