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
    /// The clauses for the core's one statement renderer: the `where_` conditions joined by AND,
    /// the orderings with their directions, the limit and offset (bound when rendered). Columns
    /// the expressions name are resolved, and recorded, by `serializer`.
    func statementClauses(_ serializer: inout SQLSerializer) throws -> StatementClauses {
        var clauses = StatementClauses()
        if !whereExpressions.isEmpty {
            let start = serializer.fragment
            serializer.fragment = SQLFragment()
            for (index, expression) in whereExpressions.enumerated() {
                if index > 0 { serializer.append(" AND ") }
                try serializer.append(expression)
            }
            clauses.predicate = serializer.fragment
            serializer.fragment = start
        }
        for ordering in orderings {
            let start = serializer.fragment
            serializer.fragment = SQLFragment()
            try serializer.append(ordering.expression)
            if let collation = ordering.collation { serializer.append(" COLLATE " + quoteIdentifier(collation)) }
            if let direction = ordering.direction { serializer.append(" " + direction) }
            if let nulls = ordering.nulls { serializer.append(" " + nulls) }
            clauses.orderings.append(serializer.fragment)
            serializer.fragment = start
        }
        if let limit {
            clauses.limit = limit.count
            clauses.offset = limit.offset
        }
        return clauses
    }
}

public struct Where: SelectConstraint {
    let expression: any Expression

    public func apply(to query: inout QueryClauses) { query.whereExpressions.append(expression) }
}

/// `ORDER BY expression [COLLATE name] [ASC|DESC] [NULLS FIRST|LAST]`.
public struct OrderBy: SelectConstraint {
    let expression: any Expression
    var direction: String?
    var collation: String?
    var nulls: String?

    init(expression: any Expression, direction: String?) {
        self.expression = expression
        self.direction = direction
    }

    /// Ascending order.
    public func asc() -> OrderBy { with { $0.direction = "ASC" } }
    /// Descending order.
    public func desc() -> OrderBy { with { $0.direction = "DESC" } }
    /// Compares with the collation `name` (`BINARY`, `NOCASE`, `RTRIM` or one the connection added); the name is quoted.
    public func collate(_ name: String) -> OrderBy { with { $0.collation = name } }
    /// NULLs before every value.
    public func nullsFirst() -> OrderBy { with { $0.nulls = "NULLS FIRST" } }
    /// NULLs after every value.
    public func nullsLast() -> OrderBy { with { $0.nulls = "NULLS LAST" } }

    private func with(_ change: (inout OrderBy) -> Void) -> OrderBy {
        var copy = self
        change(&copy)
        return copy
    }

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
