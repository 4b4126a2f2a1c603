/// Turns expressions into SQL text and the values to bind, resolving key paths to the quoted
/// names of the storage's columns.
public struct SQLSerializer {
    let schema: Schema
    var sql = ""
    var arguments: [any Strata.Bindable] = []
    /// The tables whose columns the expression names, in order of appearance.
    var referencedTables: [AnyTable] = []

    init(schema: Schema) { self.schema = schema }

    mutating func append(_ text: String) { sql += text }

    mutating func appendValue(_ value: any Strata.Bindable) {
        sql += "?"
        arguments.append(value)
    }

    mutating func appendColumn(_ keyPath: AnyKeyPath) throws {
        guard let mapped = schema.columnsByKeyPath[keyPath] else {
            throw ORMError.columnIsNotMapped(keyPath: "\(keyPath)")
        }
        if !referencedTables.contains(where: { $0 === mapped.table }) { referencedTables.append(mapped.table) }
        sql += mapped.column.name.quotedIdentifier
    }

    mutating func append(_ expression: any Expression) throws {
        try expression.appendSQL(to: &self)
    }
}
