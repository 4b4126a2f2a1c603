/// `(lhs op rhs)`.
public struct BinaryOperator: ResultExpression {
    public typealias Value = Bool
    let lhs: any Expression
    let op: SQLOperator
    let rhs: any Expression

    /// `(lhs op rhs)`; `==`/`!=` with a nil value on either side test the other side with
    /// `IS NULL`/`IS NOT NULL` (`= NULL` is never true), through the core's one comparison.
    public var fragment: SQLFragment { "(\(SQLFragment.comparison(lhs.fragment, op, rhs.fragment)))" }
}

/// An arithmetic result (`\User.id + 1`), typed as its left side's values.
public struct ArithmeticOperator<Value>: ResultExpression {
    let base: BinaryOperator

    public var fragment: SQLFragment { base.fragment }
}

/// `NOT expression`, `expression IS NULL`, and similar.
public struct UnaryOperator: ResultExpression {
    public typealias Value = Bool
    let prefix: String
    let operand: any Expression
    let suffix: String

    public var fragment: SQLFragment { "(\(sql: prefix)\(operand.fragment)\(sql: suffix))" }
}

/// `expression [NOT] IN (?, ?, ...)`, each value bound.
public struct InOperator: ResultExpression {
    public typealias Value = Bool
    let operand: any Expression
    let values: [any Strata.Bindable]
    let negated: Bool

    public var fragment: SQLFragment {
        "(\(operand.fragment.membership(in: values.map { .value($0) }, negated: negated)))"
    }
}

extension OperableExpression {
    /// `self LIKE pattern` (the pattern is bound).
    public func like(_ pattern: String) -> BinaryOperator { BinaryOperator(lhs: self, op: .like, rhs: pattern) }
    /// `self GLOB pattern` (the pattern is bound).
    public func glob(_ pattern: String) -> BinaryOperator { BinaryOperator(lhs: self, op: .glob, rhs: pattern) }
    /// `self IN (values)`, each value bound.
    public func `in`<V: Strata.Bindable>(_ values: [V]) -> InOperator { InOperator(operand: self, values: values, negated: false) }
    /// `self NOT IN (values)`, each value bound.
    public func notIn<V: Strata.Bindable>(_ values: [V]) -> InOperator { InOperator(operand: self, values: values, negated: true) }
}

/// `expression LIKE pattern`: `where_(like(\User.name, "J%"))`.
public func like<E: OperableExpression>(_ expression: E, _ pattern: String) -> BinaryOperator { expression.like(pattern) }
/// `expression GLOB pattern`.
public func glob<E: OperableExpression>(_ expression: E, _ pattern: String) -> BinaryOperator { expression.glob(pattern) }
/// `expression IN (values)`: ``in(_:_:)`` needs backticks, so `in_` is also offered.
public func `in`<E: OperableExpression, V: Strata.Bindable>(_ expression: E, _ values: [V]) -> InOperator { expression.in(values) }
/// `expression IN (values)`.
public func in_<E: OperableExpression, V: Strata.Bindable>(_ expression: E, _ values: [V]) -> InOperator { expression.in(values) }
/// `expression NOT IN (values)`.
public func notIn<E: OperableExpression, V: Strata.Bindable>(_ expression: E, _ values: [V]) -> InOperator { expression.notIn(values) }
/// `expression IS NULL`.
public func isNull<E: OperableExpression>(_ expression: E) -> UnaryOperator { UnaryOperator(prefix: "", operand: expression, suffix: " IS NULL") }
/// `expression IS NOT NULL`.
public func isNotNull<E: OperableExpression>(_ expression: E) -> UnaryOperator { UnaryOperator(prefix: "", operand: expression, suffix: " IS NOT NULL") }
/// `NOT expression`.
public prefix func ! <E: OperableExpression>(_ expression: E) -> UnaryOperator { UnaryOperator(prefix: "NOT ", operand: expression, suffix: "") }
