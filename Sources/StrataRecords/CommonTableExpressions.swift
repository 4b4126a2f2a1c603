// Common table expressions: a typed query named once in a WITH clause and read as a table
// (`CTE`), and the recursive walk built on one (`recursive(start:step:)`). Both render through
// `StatementClauses` (its `commonTables` and `commonTable(_:columns:as:)`), their values bound.
import Foundation

/// A typed query that runs as one SELECT and reads rows as `Output`: what a ``CTE`` names and a
/// view's ``ViewRecord/definition`` is.
public protocol SelectQuery<Output>: QuerySource {
    /// What one row reads as: a record, a value, or a tuple of values.
    associatedtype Output
    /// The SELECT the query runs, values bound.
    var selectStatement: SQLFragment { get }
    /// The names of the columns the SELECT returns, when they are a record's (nil: SQLite's own
    /// names for the selected expressions).
    var selectedColumnNames: [String]? { get }
}

extension RecordQuery: SelectQuery {
    /// A row reads as the record.
    public typealias Output = R
    /// The SELECT of the record's columns.
    public var selectStatement: SQLFragment { selectFragment }
    /// The record's columns.
    public var selectedColumnNames: [String]? { R.recordColumns.map(\.name) }
}

extension Selection: SelectQuery {
    /// The SELECT of the selected expressions.
    public var selectStatement: SQLFragment { statement }
    /// Nil: the expressions' own names.
    public var selectedColumnNames: [String]? { nil }
}

/// A query named once in a statement's `WITH` clause, then read as a table: a subquery written
/// once and used where a `where` needs it, without repeating it.
///
/// ```swift
/// let recentAuthors = CTE("recent_authors", Book.where { $0.year > 2000 }.select(\.authorId))
/// let authors: [Author] = try Author.with(recentAuthors)
///     .where { $0.id.in(recentAuthors) }
///     .fetchAll(db)
/// ```
/// `Output` is what one of its rows reads as: a value or tuple for a `select`, the record for a
/// record query (whose rows ``QueryableRecord/from(_:)`` reads as records). A query that uses
/// one names it with `with`; the name is quoted, and the query's values are bound.
// @unchecked Sendable: `definition` is a Sendable fragment and `name` a string; `Output` is only
// a phantom type, whose metatype need not be Sendable.
public struct CTE<Output>: @unchecked Sendable {
    /// The name the WITH clause gives the query.
    public let name: String
    /// `"name"(columns) AS (select)`.
    let definition: SQLFragment
    /// Whether the named query reads itself (``QueryableRecord/recursive(start:step:)``).
    let isRecursive: Bool

    /// Names `query` as `name`.
    public init<Query: SelectQuery>(_ name: String, _ query: Query) where Query.Output == Output {
        self.name = name
        definition = StatementClauses.commonTable(name, columns: query.selectedColumnNames ?? [], as: query.selectStatement)
        isRecursive = false
    }

    /// Names `query` as `name`, its rows read as `record`s: the named query's columns take the
    /// record's column names, in declaration order, so ``QueryableRecord/from(_:)`` reads it.
    ///
    /// ```swift
    /// let totals = CTE("totals", as: AuthorTotal.self, Book.group(by: \.authorId).select { ($0.authorId, $0.id.count()) })
    /// try AuthorTotal.from(totals).where { $0.books > 3 }.fetchAll(db)
    /// ```
    /// A query whose column count differs from the record's is SQLite's error when it runs.
    public init<Query: SelectQuery>(_ name: String, as record: Output.Type, _ query: Query) where Output: QueryableRecord {
        self.name = name
        definition = StatementClauses.commonTable(name, columns: Output.recordColumns.map(\.name), as: query.selectStatement)
        isRecursive = false
    }

    init(name: String, definition: SQLFragment, isRecursive: Bool) {
        self.name = name
        self.definition = definition
        self.isRecursive = isRecursive
    }

    /// `SELECT * FROM "name"`: the rows, as an IN subquery reads them.
    var rows: SQLFragment { "SELECT * FROM \(identifier: name)" }
}

extension RecordQuery {
    /// The query with `cte` named in its WITH clause, so its conditions can read it.
    public func with<Output>(_ cte: CTE<Output>) -> RecordQuery {
        modifyingParts { $0.addCommonTable(cte.name, cte.definition, recursive: cte.isRecursive) }
    }
}

extension QueryableRecord {
    /// Every record, with `cte` named in the query's WITH clause.
    ///
    /// ```swift
    /// try Author.with(recentAuthors).where { $0.id.in(recentAuthors) }.fetchAll(db)
    /// ```
    public static func with<Output>(_ cte: CTE<Output>) -> RecordQuery<Self> {
        all().with(cte)
    }

    /// The rows of a named query of this record, read as records: `FROM "name" AS "table"`, so
    /// `where`, `order`, `select` and joins work as on the table.
    ///
    /// ```swift
    /// let recent = CTE("recent_books", Book.where { $0.year > 2000 })
    /// try Book.from(recent).where { $0.price != nil }.fetchAll(db)
    /// ```
    public static func from(_ cte: CTE<Self>) -> RecordQuery<Self> {
        RecordQuery<Self>(reading: .identifier(cte.name)).with(cte)
    }
}

extension RecordQuery {
    /// A query of `source` (a named query or a subquery with the record's columns) in place of
    /// the table, aliased as the table's qualifier so the typed columns read it.
    init(reading source: SQLFragment) {
        self.init()
        queryParts.from = source.aliased(qualifier)
    }
}

extension TypedColumn {
    /// `column IN (SELECT * FROM "name")`: the query must also be named with `with`.
    public func `in`(_ cte: CTE<Value>) -> RecordPredicate {
        RecordPredicate(fragment.membership(inSubquery: cte.rows))
    }
    /// `column IN (SELECT * FROM "name")`, the column optional.
    public func `in`<Wrapped>(_ cte: CTE<Wrapped>) -> RecordPredicate where Value == Wrapped? {
        RecordPredicate(fragment.membership(inSubquery: cte.rows))
    }
    /// `column IN (SELECT * FROM "name")`, the named query's values optional.
    public func `in`(_ cte: CTE<Value?>) -> RecordPredicate {
        RecordPredicate(fragment.membership(inSubquery: cte.rows))
    }
}

// MARK: - Recursive queries

/// The rows a recursive query has found so far (SQL's recursive reference), as a recursive
/// query's `step` receives them: join the record to it to find the next rows.
public struct RecursiveRows<R: QueryableRecord>: Sendable {
    /// The name of the recursive named query, which also qualifies its columns.
    let name: String
    /// Which recursive query these rows are: a step must join the rows it was given.
    let token: RecursionToken
}

/// The identity of one recursive query (names can repeat: two queries built side by side).
final class RecursionToken: Sendable {}

/// One step of a recursive walk: the record joined to the rows found so far.
///
/// Built only by joining a ``RecursiveRows`` (`Comment.join(previous, on: …)`), so a step that
/// does not read the rows before it does not compile.
public struct RecursiveStep<R: QueryableRecord>: Sendable {
    var queryParts: QueryParts
    /// The recursive rows this step joined.
    let previous: String
    let token: RecursionToken
    /// The joined record's qualifier.
    let qualifier: String

    /// Narrows the step; `condition` sees the record's columns, then the previous row's.
    public func `where`(_ condition: (R.Columns, R.Columns) -> RecordPredicate) -> RecursiveStep {
        var step = self
        let (columns, previousColumns) = (R.columns(qualifiedBy: qualifier), R.Columns(qualifier: previous))
        step.queryParts.addPredicate(QueryScope.within([qualifier, previous]) { condition(columns, previousColumns) })
        return step
    }
}

extension RecordQuery {
    /// The records of this query joined to the rows a recursive query found so far.
    public func join(_ previous: RecursiveRows<R>, on condition: (R.Columns, R.Columns) -> RecordPredicate) -> RecursiveStep<R> {
        var parts = queryParts
        let previousColumns = R.Columns(qualifier: previous.name)
        let on = QueryScope.within([qualifier, previous.name]) { condition(columns, previousColumns) }
        parts.from = "\(parts.from) JOIN \(identifier: previous.name) ON \(on.fragment)"
        return RecursiveStep(queryParts: parts, previous: previous.name, token: previous.token, qualifier: qualifier)
    }
}

extension QueryableRecord {
    /// Records joined to the rows a recursive query found so far (a recursive query's `step`).
    ///
    /// ```swift
    /// step: { previous in Comment.join(previous, on: { comment, parent in comment.parentId == parent.id }) }
    /// ```
    public static func join(_ previous: RecursiveRows<Self>, on condition: (Columns, Columns) -> RecordPredicate) -> RecursiveStep<Self> {
        all().join(previous, on: condition)
    }

    /// The records a walk reaches from `start`, following `step` until it finds no new row:
    /// trees, threads, org charts, bills of materials, in one statement
    /// (`WITH RECURSIVE … UNION …`).
    ///
    /// ```swift
    /// let thread: [Comment] = try Comment.recursive(
    ///     start: Comment.where { $0.id == rootID },
    ///     step: { previous in Comment.join(previous, on: { comment, parent in comment.parentId == parent.id }) }
    /// ).order(by: \.id).fetchAll(db)
    /// ```
    /// Rows are combined with UNION, so a row found twice is kept once and a cycle ends when it
    /// comes back to a row already found. The result is a query like any other: `where`,
    /// `order`, `select`, joins and `fetchCount` apply to the rows found, and it nests inside
    /// another query's `where` (it does not throw while it is built, so a closure can build it).
    ///
    /// Running it throws ``RecordError/unsupported(_:)`` when `step` joined another recursive
    /// query's rows instead of the `previous` it was given.
    public static func recursive(start: RecordQuery<Self>, step: (RecursiveRows<Self>) -> RecursiveStep<Self>) -> RecordQuery<Self> {
        recursive(start: start, step: step, depthLimit: nil)
    }

    /// ``recursive(start:step:)`` that stops `maxDepth` steps away from `start`: the guard for
    /// data whose cycles pass through rows that differ (or for a walk only so deep). The start
    /// rows are depth 0; each row is returned once, however many paths reach it.
    ///
    /// Running it throws ``RecordError/unsupported(_:)`` for a negative `maxDepth`, or a
    /// step that did not join the `previous` it was given.
    public static func recursive(start: RecordQuery<Self>, step: (RecursiveRows<Self>) -> RecursiveStep<Self>, maxDepth: Int) -> RecordQuery<Self> {
        guard maxDepth >= 0 else {
            return failing(.unsupported("recursive query of \(Self.self): maxDepth is \(maxDepth), and a walk is at least 0 steps deep"))
        }
        return recursive(start: start, step: step, depthLimit: maxDepth)
    }

    /// A query that throws `error` when it runs (alone, counted or nested): how a builder that
    /// cannot throw, because a `where` closure may call it, reports a query built wrong.
    private static func failing(_ error: RecordError) -> RecordQuery<Self> {
        all().where { _ in RecordPredicate("\(SQLFragment.unbindable(error)) IS NULL") }
    }

    private static func recursive(
        start: RecordQuery<Self>, step makeStep: (RecursiveRows<Self>) -> RecursiveStep<Self>,
        depthLimit: Int?
    ) -> RecordQuery<Self> {
        let name = QueryScope.freeQualifier(for: tableName + "_recursive")
        let previous = RecursiveRows<Self>(name: name, token: RecursionToken())
        let step = QueryScope.within([name]) { makeStep(previous) }
        guard step.token === previous.token else {
            return failing(
                .unsupported("recursive query of \(Self.self): its step joins the rows of another recursive query, not the previous rows it was given"))
        }
        let depthColumn = "strata_depth"
        var hoisted = start.queryParts
        // The arms of a compound SELECT take no WITH of their own: their named queries go to
        // the statement's WITH clause, ahead of the recursive one.
        var startParts = start.queryParts
        startParts.commonTables = []; startParts.commonTableNames = []; startParts.recursive = false
        var stepParts = step.queryParts
        for (table, definition) in zip(stepParts.commonTableNames, stepParts.commonTables) {
            hoisted.addCommonTable(table, definition, recursive: stepParts.recursive)
        }
        stepParts.commonTables = []; stepParts.commonTableNames = []; stepParts.recursive = false

        let startList = start.selectList
        let stepList = qualifiedSelectList(step.qualifier)
        var startArm: SQLFragment
        var stepArm: SQLFragment
        var columns = recordColumns.map(\.name)
        if let depthLimit {
            columns.append(depthColumn)
            stepParts.addPredicate(RecordPredicate(.comparison(.column(depthColumn, table: name), .less, .value(depthLimit))))
            stepArm = stepParts.select(stepList + ", " + .infix(.column(depthColumn, table: name), .plus, "1"))
            startArm = startParts.select(startList + ", 0")
        } else {
            stepArm = stepParts.select(stepList)
            startArm = startParts.select(startList)
        }
        // An ordered or limited start is a compound SELECT's arm only as a subquery.
        if startParts.limitCount != nil || !startParts.orderings.isEmpty {
            startArm = "SELECT *\(sql: depthLimit == nil ? "" : ", 0") FROM (\(startParts.select(startList)))"
        }
        var definition = StatementClauses.commonTable(name, columns: columns, as: StatementClauses.union(startArm, stepArm))
        if depthLimit != nil {
            // Rows differ by depth, so the walk is read back once per row.
            let list = recordColumns.map { SQLFragment.column($0.name) }.joined(separator: ", ")
            let distinct = StatementClauses().select(list, from: .identifier(name), distinct: true)
            definition = definition + ", " + StatementClauses.commonTable(name + "_rows", as: distinct)
        }
        var query = RecordQuery<Self>(reading: .identifier(depthLimit == nil ? name : name + "_rows"))
        query.queryParts.commonTables = hoisted.commonTables
        query.queryParts.commonTableNames = hoisted.commonTableNames
        query.queryParts.recursive = hoisted.recursive
        query.queryParts.addCommonTable(name, definition, recursive: true)
        return query
    }
}
