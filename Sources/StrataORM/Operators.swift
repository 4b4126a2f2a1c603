// The ORM's operators build SQL expressions: `\User.id < 10` is `("id" < ?)` with 10 bound.
// Each takes a column, operator or function on at least one side, so operators on plain values
// (`1 + 2`, `a == b`) keep their usual meaning.

/// `lhs = rhs`: true when `lhs` is equal to `rhs`.
public func == <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .equal, rhs: rhs)
}

/// `lhs = rhs`, with a value on the left.
public func == <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .equal, rhs: rhs)
}

/// `lhs <> rhs`: true when `lhs` is not equal to `rhs`.
public func != <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .notEqual, rhs: rhs)
}

/// `lhs <> rhs`, with a value on the left.
public func != <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .notEqual, rhs: rhs)
}

/// `lhs < rhs`: true when `lhs` is less than `rhs`.
public func < <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .less, rhs: rhs)
}

/// `lhs < rhs`, with a value on the left.
public func < <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .less, rhs: rhs)
}

/// `lhs <= rhs`: true when `lhs` is less than or equal to `rhs`.
public func <= <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .lessOrEqual, rhs: rhs)
}

/// `lhs <= rhs`, with a value on the left.
public func <= <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .lessOrEqual, rhs: rhs)
}

/// `lhs > rhs`: true when `lhs` is greater than `rhs`.
public func > <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .greater, rhs: rhs)
}

/// `lhs > rhs`, with a value on the left.
public func > <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .greater, rhs: rhs)
}

/// `lhs >= rhs`: true when `lhs` is greater than or equal to `rhs`.
public func >= <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .greaterOrEqual, rhs: rhs)
}

/// `lhs >= rhs`, with a value on the left.
public func >= <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .greaterOrEqual, rhs: rhs)
}

/// `lhs AND rhs`: true when `lhs` is and `rhs`.
public func && <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .and, rhs: rhs)
}

/// `lhs AND rhs`, with a value on the left.
public func && <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .and, rhs: rhs)
}

/// `lhs OR rhs`: true when `lhs` is or `rhs`.
public func || <L: OperableExpression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .or, rhs: rhs)
}

/// `lhs OR rhs`, with a value on the left.
public func || <L: ValueExpression, R: OperableExpression>(lhs: L, rhs: R) -> BinaryOperator {
    BinaryOperator(lhs: lhs, op: .or, rhs: rhs)
}

/// `lhs + rhs`: `lhs` plus `rhs`, typed as `lhs`'s values.
public func + <L: ResultExpression, R: Expression>(lhs: L, rhs: R) -> ArithmeticOperator<L.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .plus, rhs: rhs))
}

/// `lhs + rhs`, with a value on the left, typed as `rhs`'s values.
public func + <L: ValueExpression, R: ResultExpression>(lhs: L, rhs: R) -> ArithmeticOperator<R.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .plus, rhs: rhs))
}

/// `lhs - rhs`: `lhs` minus `rhs`, typed as `lhs`'s values.
public func - <L: ResultExpression, R: Expression>(lhs: L, rhs: R) -> ArithmeticOperator<L.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .minus, rhs: rhs))
}

/// `lhs - rhs`, with a value on the left, typed as `rhs`'s values.
public func - <L: ValueExpression, R: ResultExpression>(lhs: L, rhs: R) -> ArithmeticOperator<R.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .minus, rhs: rhs))
}

/// `lhs * rhs`: `lhs` times `rhs`, typed as `lhs`'s values.
public func * <L: ResultExpression, R: Expression>(lhs: L, rhs: R) -> ArithmeticOperator<L.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .times, rhs: rhs))
}

/// `lhs * rhs`, with a value on the left, typed as `rhs`'s values.
public func * <L: ValueExpression, R: ResultExpression>(lhs: L, rhs: R) -> ArithmeticOperator<R.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .times, rhs: rhs))
}

/// `lhs / rhs`: `lhs` divided by `rhs`, typed as `lhs`'s values.
public func / <L: ResultExpression, R: Expression>(lhs: L, rhs: R) -> ArithmeticOperator<L.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .divide, rhs: rhs))
}

/// `lhs / rhs`, with a value on the left, typed as `rhs`'s values.
public func / <L: ValueExpression, R: ResultExpression>(lhs: L, rhs: R) -> ArithmeticOperator<R.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .divide, rhs: rhs))
}

/// `lhs % rhs`: `lhs` modulo `rhs`, typed as `lhs`'s values.
public func % <L: ResultExpression, R: Expression>(lhs: L, rhs: R) -> ArithmeticOperator<L.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .remainder, rhs: rhs))
}

/// `lhs % rhs`, with a value on the left, typed as `rhs`'s values.
public func % <L: ValueExpression, R: ResultExpression>(lhs: L, rhs: R) -> ArithmeticOperator<R.Value> {
    ArithmeticOperator(base: BinaryOperator(lhs: lhs, op: .remainder, rhs: rhs))
}

/// `lhs IS NULL`: `where_(\User.imageUrl == nil)` (SQL's `= NULL` is never true).
public func == <L: OperableExpression>(lhs: L, rhs: _OptionalNilComparisonType) -> UnaryOperator {
    isNull(lhs)
}

/// `lhs IS NOT NULL`: `where_(\User.imageUrl != nil)`.
public func != <L: OperableExpression>(lhs: L, rhs: _OptionalNilComparisonType) -> UnaryOperator {
    isNotNull(lhs)
}

/// `rhs IS NULL`, with nil on the left.
public func == <R: OperableExpression>(lhs: _OptionalNilComparisonType, rhs: R) -> UnaryOperator {
    isNull(rhs)
}

/// `rhs IS NOT NULL`, with nil on the left.
public func != <R: OperableExpression>(lhs: _OptionalNilComparisonType, rhs: R) -> UnaryOperator {
    isNotNull(rhs)
}
