/// A call of one of SQLite's functions (`length("name")`, `count(*)`), typed as its result.
///
/// ```swift
/// let lengths: [Int?] = try storage.select(length(\User.firstName), from(User.self))
/// ```
public struct FunctionCall<Value>: ResultExpression {
    /// The call, built once: its key paths resolve when the storage renders it.
    public let fragment: SQLFragment

    /// `name(arguments)`; `star` writes `count(*)`, and `castToReal` wraps the call in
    /// `CAST(... AS REAL)`, for a result typed Double that SQLite may return as an INTEGER (`sum`
    /// of integers), since extraction converts only a matching storage class.
    init(_ name: String, _ arguments: [any Expression], distinct: Bool = false, star: Bool = false, castToReal: Bool = false) {
        let call = SQLFragment.call(name, star ? ["*"] : arguments.map(\.fragment), distinct: distinct)
        fragment = castToReal ? "CAST(\(call) AS REAL)" : call
    }
}

/// `abs(x)`: the absolute value.
public func abs<E: ResultExpression>(_ expression: E) -> FunctionCall<E.Value> { FunctionCall("abs", [expression]) }
/// `length(x)`: characters in text, bytes in a blob; NULL for NULL.
public func length<E: ResultExpression>(_ expression: E) -> FunctionCall<Int?> { FunctionCall("length", [expression]) }
/// `lower(x)`: ASCII lower case.
public func lower<E: ResultExpression>(_ expression: E) -> FunctionCall<String?> { FunctionCall("lower", [expression]) }
/// `upper(x)`: ASCII upper case.
public func upper<E: ResultExpression>(_ expression: E) -> FunctionCall<String?> { FunctionCall("upper", [expression]) }
/// `trim(x)`: without leading and trailing spaces.
public func trim<E: ResultExpression>(_ expression: E) -> FunctionCall<String?> { FunctionCall("trim", [expression]) }
/// `ltrim(x)`: without leading spaces.
public func ltrim<E: ResultExpression>(_ expression: E) -> FunctionCall<String?> { FunctionCall("ltrim", [expression]) }
/// `rtrim(x)`: without trailing spaces.
public func rtrim<E: ResultExpression>(_ expression: E) -> FunctionCall<String?> { FunctionCall("rtrim", [expression]) }
/// `typeof(x)`: "integer", "real", "text", "blob" or "null".
public func typeof<E: ResultExpression>(_ expression: E) -> FunctionCall<String> { FunctionCall("typeof", [expression]) }
/// `count(x)`: the number of non-NULL values.
public func count<E: ResultExpression>(_ expression: E) -> FunctionCall<Int> { FunctionCall("count", [expression]) }
/// `count(*)`: the number of rows.
public func count() -> FunctionCall<Int> { FunctionCall("count", [], star: true) }
/// `avg(x)`: the average of non-NULL values; NULL when there are none.
public func avg<E: ResultExpression>(_ expression: E) -> FunctionCall<Double?> { FunctionCall("avg", [expression]) }
/// `sum(x)`: the sum of non-NULL values as a Double; NULL when there are none.
public func sum<E: ResultExpression>(_ expression: E) -> FunctionCall<Double?> { FunctionCall("sum", [expression], castToReal: true) }
/// `total(x)`: the sum of non-NULL values; 0.0 when there are none.
public func total<E: ResultExpression>(_ expression: E) -> FunctionCall<Double> { FunctionCall("total", [expression]) }
/// `max(x)`: the largest value; NULL when there are none.
public func max<E: ResultExpression>(_ expression: E) -> FunctionCall<E.Value?> { FunctionCall("max", [expression]) }
/// `min(x)`: the smallest value; NULL when there are none.
public func min<E: ResultExpression>(_ expression: E) -> FunctionCall<E.Value?> { FunctionCall("min", [expression]) }
/// `group_concat(x)`: the values joined by commas; NULL when there are none.
public func groupConcat<E: ResultExpression>(_ expression: E) -> FunctionCall<String?> { FunctionCall("group_concat", [expression]) }
/// `group_concat(x, separator)`; the separator is bound.
public func groupConcat<E: ResultExpression>(_ expression: E, separator: String) -> FunctionCall<String?> {
    FunctionCall("group_concat", [expression, separator])
}
/// `coalesce(x, y)`: the first non-NULL argument.
public func coalesce<E: ResultExpression, D: Expression>(_ expression: E, _ fallback: D) -> FunctionCall<E.Value> {
    FunctionCall("coalesce", [expression, fallback])
}
