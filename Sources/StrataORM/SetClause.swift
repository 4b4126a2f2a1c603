/// One `column = value` of an update.
public struct Assignment {
    let keyPath: AnyKeyPath
    let value: any Expression
}

/// The `SET` clause of ``Storage/update(all:_:_:)``.
public struct SetClause {
    let assignments: [Assignment]
}

/// `column = value` (bound): `set(assign(\User.lastName, "Doe"))`.
public func assign<T, V: Strata.Bindable & Expression>(_ keyPath: WritableKeyPath<T, V>, _ value: V) -> Assignment {
    Assignment(keyPath: keyPath, value: value)
}

/// `column = NULL` or a value, for an optional property.
@_disfavoredOverload
public func assign<T, V: Strata.Bindable & Expression>(_ keyPath: WritableKeyPath<T, V?>, _ value: V?) -> Assignment {
    Assignment(keyPath: keyPath, value: value.map { $0 as any Expression } ?? NullValue())
}

/// `column = expression`: `assign(\User.typeId, \User.typeId + 1)`.
public func assign<T, V, E: OperableExpression>(_ keyPath: WritableKeyPath<T, V>, _ expression: E) -> Assignment {
    Assignment(keyPath: keyPath, value: expression)
}

/// The `SET` clause of an update.
public func set(_ assignments: Assignment...) -> SetClause { SetClause(assignments: assignments) }

/// SQL NULL as an expression.
struct NullValue: Expression {
    typealias Value = Never?
    var fragment: SQLFragment { "NULL" }
}
