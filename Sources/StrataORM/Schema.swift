/// The storage's tables, indexed by model type and by key path.
@usableFromInline
struct Schema {
    let tables: [AnyTable]
    @usableFromInline let tablesByType: [ObjectIdentifier: AnyTable]
    let columnsByKeyPath: [AnyKeyPath: (table: AnyTable, column: AnyColumn)]

    /// Indexes `tables`.
    ///
    /// - Throws: `ORMError.invalidDefinition` for a bad table, two tables with one name, or two
    ///   tables for one type.
    init(tables: [AnyTable]) throws {
        var byType: [ObjectIdentifier: AnyTable] = [:]
        var byKeyPath: [AnyKeyPath: (table: AnyTable, column: AnyColumn)] = [:]
        var names = Set<String>()
        for table in tables {
            if let error = table.definitionError { throw error }
            guard names.insert(table.name.lowercased()).inserted else {
                throw ORMError.invalidDefinition("two tables are named '\(table.name)'")
            }
            guard byType.updateValue(table, forKey: ObjectIdentifier(table.objectType)) == nil else {
                throw ORMError.invalidDefinition("two tables map \(table.objectType)")
            }
            for column in table.columns {
                byKeyPath[column.keyPath] = (table, column)
            }
        }
        self.tables = tables
        self.tablesByType = byType
        self.columnsByKeyPath = byKeyPath
    }

    /// The table of `T`.
    ///
    /// - Throws: `ORMError.typeIsNotMapped`.
    @inlinable
    func table<T>(for type: T.Type) throws -> Table<T> {
        guard let table = tablesByType[ObjectIdentifier(type)] else {
            throw ORMError.typeIsNotMapped(type: "\(type)")
        }
        // The index maps ObjectIdentifier(T.self) only to the Table<T> that declared it.
        return unsafeDowncast(table, to: Table<T>.self)
    }

    /// The table of a type known only at run time (`from(User.self)`).
    func table(forAnyType type: Any.Type) throws -> AnyTable {
        guard let table = tablesByType[ObjectIdentifier(type)] else {
            throw ORMError.typeIsNotMapped(type: "\(type)")
        }
        return table
    }
}
