/// `lhs op rhs`, in parentheses.
public struct BinaryOperator: ResultExpression {
    public typealias Value = Bool
    let lhs: any Expression
    let op: String
    let rhs: any Expression

    public func appendSQL(to serializer: inout SQLSerializer) throws {
        serializer.append("(")
        try serializer.append(lhs)
        // `= NULL` is never true: a nil optional value compares with IS / IS NOT, as Swift's == does.
        var op = op
        if op == "=" || op == "<>", (rhs as? NilCheckable)?.isNilValue == true || (lhs as? NilCheckable)?.isNilValue == true {
            op = op == "=" ? "IS" : "IS NOT"
        }
        serializer.append(" \(op) ")
        try serializer.append(rhs)
        serializer.append(")")
    }
}

/// An arithmetic result (`\User.id + 1`), typed as its left side's values.
public struct ArithmeticOperator<Value>: ResultExpression {
    let base: BinaryOperator

    public func appendSQL(to serializer: inout SQLSerializer) throws { try base.appendSQL(to: &serializer) }
}

/// `NOT expression`, `expression IS NULL`, `expression IN (...)`, and similar.
public struct UnaryOperator: ResultExpression {
    public typealias Value = Bool
    let prefix: String
    let operand: any Expression
    let suffix: String

    public func appendSQL(to serializer: inout SQLSerializer) throws {
        serializer.append("(" + prefix)
        try serializer.append(operand)
        serializer.append(suffix + ")")
    }
}

/// `expression [NOT] IN (?, ?, ...)`, each value bound.
public struct InOperator: ResultExpression {
    public typealias Value = Bool
    let operand: any Expression
    let values: [any Strata.Bindable]
    let negated: Bool

    public func appendSQL(to serializer: inout SQLSerializer) throws {
        serializer.append("(")
        try serializer.append(operand)
        serializer.append(negated ? " NOT IN (" : " IN (")
        for (index, value) in values.enumerated() {
            if index > 0 { serializer.append(", ") }
            serializer.appendValue(value)
        }
        serializer.append("))")
    }
}

extension OperableExpression {
    /// `self LIKE pattern` (the pattern is bound).
    public func like(_ pattern: String) -> BinaryOperator { BinaryOperator(lhs: self, op: "LIKE", rhs: pattern) }
    /// `self GLOB pattern` (the pattern is bound).
    public func glob(_ pattern: String) -> BinaryOperator { BinaryOperator(lhs: self, op: "GLOB", rhs: pattern) }
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
