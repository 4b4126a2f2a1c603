/// Anything a table is made of: its columns (``AnyColumn``).
public protocol TableElement {}

/// A column of any model type, as tables and storages hold it.
public class AnyColumn: TableElement {
    /// The column's name in the table.
    public let name: String
    let constraints: [ColumnConstraint]
    /// The declared type: INTEGER, REAL, TEXT or BLOB.
    let sqlType: String
    let isOptional: Bool
    let keyPath: AnyKeyPath
    let objectType: Any.Type
    /// The mapped property's type, for error messages.
    let valueType: Any.Type
    /// A `ColumnAccessor<T>` for the column's model type `T`.
    let accessor: AnyObject

    @usableFromInline
    init(
        name: String, constraints: [ColumnConstraint], sqlType: String, isOptional: Bool,
        keyPath: AnyKeyPath, objectType: Any.Type, valueType: Any.Type, accessor: AnyObject
    ) {
        self.name = name
        self.constraints = constraints
        self.sqlType = sqlType
        self.isOptional = isOptional
        self.keyPath = keyPath
        self.objectType = objectType
        self.valueType = valueType
        self.accessor = accessor
    }

    var isPrimaryKey: Bool {
        constraints.contains { if case .primaryKey = $0 { return true } else { return false } }
    }

    /// The `ASC`/`DESC` of the column's `PRIMARY KEY` constraint, if it has one with an order.
    var primaryKeyOrder: Order? {
        for case .primaryKey(let order, _, _) in constraints { return order }
        return nil
    }

    var isNotNull: Bool {
        constraints.contains { if case .notNull = $0 { return true } else { return false } }
    }

    var isUnique: Bool {
        constraints.contains { if case .unique = $0 { return true } else { return false } }
    }

    var hasDefault: Bool {
        constraints.contains { if case .defaultValue = $0 { return true } else { return false } }
    }

    /// The column in the table definition; the primary key inline when it is the only one.
    func definition(inlinePrimaryKey: Bool) -> TableDefinition.Column {
        TableDefinition.Column(name, type: sqlType, constraints.compactMap { $0.definition(inlinePrimaryKey: inlinePrimaryKey) })
    }
}
