// SafeStorage's aggregates, select and transaction: Storage's, with `Result` returns.
extension SafeStorage {
    /// ``Storage/count(_:_:)``.
    public func count<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<Int, ORMError> {
        result { try storage.aggregate(StrataORM.count(keyPath), Int.self, constraints) }
    }
    /// ``Storage/avg(_:_:)``.
    public func avg<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<Double?, ORMError> {
        result { try storage.aggregate(StrataORM.avg(keyPath), Double?.self, constraints) }
    }
    /// ``Storage/sum(_:_:)``.
    public func sum<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<Double?, ORMError> {
        result { try storage.aggregate(StrataORM.sum(keyPath), Double?.self, constraints) }
    }
    /// ``Storage/total(_:_:)``.
    public func total<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<Double, ORMError> {
        result { try storage.aggregate(StrataORM.total(keyPath), Double.self, constraints) }
    }
    /// ``Storage/groupConcat(_:_:)``.
    public func groupConcat<T, V>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<String?, ORMError> {
        result { try storage.aggregate(StrataORM.groupConcat(keyPath), String?.self, constraints) }
    }
    /// ``Storage/groupConcat(_:separator:_:)``.
    public func groupConcat<T, V>(
        _ keyPath: KeyPath<T, V>, separator: String, _ constraints: SelectConstraint...
    )
        -> Result<String?, ORMError>
    {
        result { try storage.aggregate(StrataORM.groupConcat(keyPath, separator: separator), String?.self, constraints) }
    }
    /// `Storage.max(_:_:)`.
    public func max<T, V: SelectableValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.max(keyPath), V?.self, constraints) }
    }
    /// `Storage.max(_:_:)`.
    public func max<T, V: SelectableValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.max(keyPath), V?.self, constraints) }
    }
    /// `Storage.min(_:_:)`.
    public func min<T, V: SelectableValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.min(keyPath), V?.self, constraints) }
    }
    /// `Storage.min(_:_:)`.
    public func min<T, V: SelectableValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.min(keyPath), V?.self, constraints) }
    }

    /// `Storage.select(_:_:)`.
    public func select<E: ResultExpression>(_ expression: E, _ constraints: SelectConstraint...) -> Result<[E.Value], ORMError>
    where E.Value: SelectableValue {
        result { try storage.select([expression], constraints) { try storage.read(E.Value.self, $0, 0) } }
    }

    /// ``Storage/select(_:_:_:)``.
    public func select<E1: ResultExpression, E2: ResultExpression>(
        _ first: E1, _ second: E2, _ constraints: SelectConstraint...
    ) -> Result<[(E1.Value, E2.Value)], ORMError> where E1.Value: SelectableValue, E2.Value: SelectableValue {
        result {
            try storage.select([first, second], constraints) { handle in
                (try storage.read(E1.Value.self, handle, 0), try storage.read(E2.Value.self, handle, 1))
            }
        }
    }

    /// ``Storage/select(_:_:_:_:)``.
    public func select<E1: ResultExpression, E2: ResultExpression, E3: ResultExpression>(
        _ first: E1, _ second: E2, _ third: E3, _ constraints: SelectConstraint...
    ) -> Result<[(E1.Value, E2.Value, E3.Value)], ORMError>
    where E1.Value: SelectableValue, E2.Value: SelectableValue, E3.Value: SelectableValue {
        result {
            try storage.select([first, second, third], constraints) { handle in
                (
                    try storage.read(E1.Value.self, handle, 0), try storage.read(E2.Value.self, handle, 1),
                    try storage.read(E3.Value.self, handle, 2)
                )
            }
        }
    }

    /// ``Storage/transaction(_:)``: `body` returns normally to commit, throws to roll back.
    @discardableResult
    public func transaction<R>(_ body: () throws -> R) -> Result<R, ORMError> {
        result { try storage.transaction(body) }
    }
}
