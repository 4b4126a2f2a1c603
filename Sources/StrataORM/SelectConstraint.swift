/// A clause of a query: `where_`, `orderBy`, `limit`, `from`.
public protocol SelectConstraint {
    /// Adds the clause to the query being built.
    func apply(to query: inout QueryClauses)
}

/// The clauses of one query, collected from its constraints.
public struct QueryClauses {
    var whereExpressions: [any Expression] = []
    var orderings: [OrderBy] = []
    var limit: (count: Int, offset: Int?)?
    var fromTypes: [Any.Type] = []

    init(_ constraints: [any SelectConstraint]) {
        for constraint in constraints { constraint.apply(to: &self) }
    }

    /// Appends ` WHERE ... ORDER BY ... LIMIT ? OFFSET ?` (whichever are present).
    func appendClauses(to serializer: inout SQLSerializer) throws {
        if !whereExpressions.isEmpty {
            serializer.append(" WHERE ")
            for (index, expression) in whereExpressions.enumerated() {
                if index > 0 { serializer.append(" AND ") }
                try serializer.append(expression)
            }
        }
        if !orderings.isEmpty {
            serializer.append(" ORDER BY ")
            for (index, ordering) in orderings.enumerated() {
                if index > 0 { serializer.append(", ") }
                try serializer.append(ordering.expression)
                if let direction = ordering.direction { serializer.append(" " + direction) }
            }
        }
        if let limit {
            serializer.append(" LIMIT ")
            serializer.appendValue(limit.count)
            if let offset = limit.offset {
                serializer.append(" OFFSET ")
                serializer.appendValue(offset)
            }
        }
    }
}

/// `WHERE condition`; several `where_` clauses are joined with AND.
public struct Where: SelectConstraint {
    let expression: any Expression

    public func apply(to query: inout QueryClauses) { query.whereExpressions.append(expression) }
}

/// `ORDER BY expression [ASC|DESC]`.
public struct OrderBy: SelectConstraint {
    let expression: any Expression
    let direction: String?

    /// Ascending order.
    public func asc() -> OrderBy { OrderBy(expression: expression, direction: "ASC") }
    /// Descending order.
    public func desc() -> OrderBy { OrderBy(expression: expression, direction: "DESC") }

    public func apply(to query: inout QueryClauses) { query.orderings.append(self) }
}

/// `LIMIT count [OFFSET offset]`, both bound.
public struct Limit: SelectConstraint {
    let count: Int
    let offset: Int?

    public func apply(to query: inout QueryClauses) { query.limit = (count, offset) }
}

/// `FROM table`: names the table a `select` reads when its expressions don't.
public struct From: SelectConstraint {
    let type: Any.Type

    public func apply(to query: inout QueryClauses) { query.fromTypes.append(type) }
}

/// Filters rows: `try storage.getAll(where_(\User.id < 10))`. Values in the condition are bound.
public func where_<E: OperableExpression>(_ condition: E) -> Where { Where(expression: condition) }

/// Orders rows: `orderBy(\User.lastName)`, `orderBy(\User.id).desc()`.
public func orderBy<E: OperableExpression>(_ expression: E) -> OrderBy { OrderBy(expression: expression, direction: nil) }

/// At most `count` rows.
public func limit(_ count: Int) -> Limit { Limit(count: count, offset: nil) }

/// At most `count` rows after skipping `offset`.
public func limit(_ count: Int, offset: Int) -> Limit { Limit(count: count, offset: offset) }

/// The table of `type`, for a `select` of expressions that name no column.
public func from<T>(_ type: T.Type) -> From { From(type: type) }
