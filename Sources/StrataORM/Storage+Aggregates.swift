extension Storage {
    /// The number of rows of `T`'s table that match `constraints` (`count(*)`).
    ///
    /// ```swift
    /// let users = try storage.count(all: User.self, where_(\User.typeId == 3))
    /// ```
    /// - Throws: `ORMError` for an unmapped type or key path; `SQLiteError`.
    public func count<T>(all type: T.Type, _ constraints: SelectConstraint...) throws -> Int {
        try count(all: type, constraints)
    }

    func count<T>(all type: T.Type, _ constraints: [SelectConstraint]) throws -> Int {
        try aggregate(StrataORM.count(), Int.self, constraints + [From(type: type)])
    }

    /// The number of non-NULL values of a column (`count(column)`).
    ///
    /// - Throws: as ``count(all:_:)``.
    public func count<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> Int {
        try aggregate(StrataORM.count(keyPath), Int.self, constraints)
    }

    /// The average of a column's non-NULL values, or nil when there are none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func avg<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> Double? {
        try aggregate(StrataORM.avg(keyPath), Double?.self, constraints)
    }

    /// The sum of a column's non-NULL values, or nil when there are none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func sum<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> Double? {
        try aggregate(StrataORM.sum(keyPath), Double?.self, constraints)
    }

    /// The sum of a column's non-NULL values; 0 when there are none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func total<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> Double {
        try aggregate(StrataORM.total(keyPath), Double.self, constraints)
    }

    /// A column's non-NULL values joined by commas, or nil when there are none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func groupConcat<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> String? {
        try aggregate(StrataORM.groupConcat(keyPath), String?.self, constraints)
    }

    /// A column's non-NULL values joined by `separator` (bound), or nil when there are none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func groupConcat<T, V>(_ keyPath: KeyPath<T, V>, separator: String, _ constraints: SelectConstraint...) throws -> String? {
        try aggregate(StrataORM.groupConcat(keyPath, separator: separator), String?.self, constraints)
    }

    /// The largest value of a column, or nil when the table has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func max<T, V: SelectableValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.max(keyPath), V?.self, constraints)
    }

    /// The largest value of an optional column, or nil when it has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func max<T, V: SelectableValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.max(keyPath), V?.self, constraints)
    }

    /// The smallest value of a column, or nil when the table has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func min<T, V: SelectableValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.min(keyPath), V?.self, constraints)
    }

    /// The smallest value of an optional column, or nil when it has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    public func min<T, V: SelectableValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.min(keyPath), V?.self, constraints)
    }

    /// Runs a one-row aggregate query and reads its value.
    func aggregate<V: SelectableValue>(_ call: any Expression, _ type: V.Type, _ constraints: [SelectConstraint]) throws -> V {
        try aggregate(call, constraints) { handle in try read(V.self, handle, 0) }
    }

    /// Runs a one-row aggregate query and reads its value with `readValue`.
    func aggregate<V>(
        _ call: any Expression, _ constraints: [SelectConstraint],
        readValue: (SQLiteStatementHandle) throws -> V
    ) throws -> V {
        let rows = try select([call], constraints, readRow: readValue)
        guard let first = rows.first else {
            throw ORMError.invalidQuery("the aggregate returned no row")
        }
        return first
    }
}
