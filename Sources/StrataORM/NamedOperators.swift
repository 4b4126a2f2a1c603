// SQLiteORM-Swift's named forms of its operators (`equal(lhs:rhs:)`, `add(_:_:)`, `and(_:_:)`,
// ...), for code that builds expressions without the operator overloads. Each is the operator's
// own expression: the same SQL, values bound, NULL compared with IS as `==` does.

/// `lhs = rhs` (`lhs IS NULL` when `rhs` is a nil value), as `==` writes it.
public func equal<L: Expression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .equal, rhs: rhs) }
/// `lhs <> rhs` (`lhs IS NOT NULL` when `rhs` is a nil value), as `!=` writes it.
public func notEqual<L: Expression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .notEqual, rhs: rhs) }
/// `lhs < rhs`.
public func lesserThan<L: Expression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .less, rhs: rhs) }
/// `lhs <= rhs`.
public func lesserOrEqual<L: Expression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .lessOrEqual, rhs: rhs) }
/// `lhs > rhs`.
public func greaterThan<L: Expression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .greater, rhs: rhs) }
/// `lhs >= rhs`.
public func greaterOrEqual<L: Expression, R: Expression>(lhs: L, rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .greaterOrEqual, rhs: rhs) }
/// `lhs || rhs`: the two as text, one after the other.
public func conc<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .concatenate, rhs: rhs) }
/// `lhs + rhs`.
public func add<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .plus, rhs: rhs) }
/// `lhs - rhs`.
public func sub<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .minus, rhs: rhs) }
/// `lhs * rhs`.
public func mul<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .times, rhs: rhs) }
/// `lhs / rhs` (integer division when both are integers, as SQLite divides).
public func div<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .divide, rhs: rhs) }
/// `lhs % rhs`.
public func mod<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .remainder, rhs: rhs) }
/// `lhs AND rhs`.
public func and<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .and, rhs: rhs) }
/// `lhs OR rhs`.
public func or<L: Expression, R: Expression>(_ lhs: L, _ rhs: R) -> BinaryOperator { BinaryOperator(lhs: lhs, op: .or, rhs: rhs) }

extension Expression {
    /// `self AND rhs`: `where_((\User.age > 18).and(\User.name != nil))`.
    public func and<R: Expression>(_ rhs: R) -> BinaryOperator { BinaryOperator(lhs: self, op: .and, rhs: rhs) }
    /// `self OR rhs`.
    public func or<R: Expression>(_ rhs: R) -> BinaryOperator { BinaryOperator(lhs: self, op: .or, rhs: rhs) }
}
