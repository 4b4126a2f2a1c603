// Query: the one expression layer. An expression is a typed value with a fragment; records'
// typed columns, predicates and aggregates (StrataRecords) and the ORM's key paths, operators and
// function calls (StrataORM) conform to `SQLExpressible`, and every operator's SQL is written once
// here, as interpolation, for both. Each layer wraps the fragments in its own public result type
// (`RecordPredicate`, the ORM's `BinaryOperator`) and keeps its own spelling of the parentheses.

import Foundation

/// A typed SQL expression: the SQL that computes a value, and the Swift type the value has.
///
/// Records' columns (`$0.year`), their predicates and aggregates, and the ORM's key paths and
/// operators are all `SQLExpressible`, so their fragments compose:
///
/// ```swift
/// let year = Book.columns.year                       // SQLExpressible<Int>
/// let condition: SQLFragment = "\(year.fragment) > \(1999)"
/// condition.sql                                      // "year" > ?
/// ```
public protocol SQLExpressible<Value> {
    /// The Swift type of the expression's value.
    associatedtype Value
    /// The expression's SQL, its values bound and its columns still qualifiable.
    var fragment: SQLFragment { get }
}

/// A column whose name is known only when a statement is rendered (the ORM's key paths, resolved
/// against the storage's tables). Compared and hashed by `key`.
// @unchecked Sendable: `key` is only hashed and compared, never mutated or called through; the
// ORM's keys are key paths, immutable objects that Swift does not mark Sendable only because a
// subscript component could capture a non-Sendable argument, which a column key path never has.
package struct LateColumn: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// What identifies the column to its resolver.
    package let key: AnyHashable

    package init(key: AnyHashable) { self.key = key }

    /// The key as errors name it (a key path's `\User.name`), made only when asked.
    package var description: String { "\(key.base)" }

    package static func == (lhs: LateColumn, rhs: LateColumn) -> Bool { lhs.key == rhs.key }
    package func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// Why a fragment could not be run.
public enum SQLFragmentError: Error, CustomStringConvertible, Equatable {
    /// A column named late (an ORM key path) was never resolved to a table's column.
    case unresolvedColumn(String)
    /// SQL text written with its own `?` placeholders went into a view or a trigger, where
    /// SQLite takes no parameters (the text is carried).
    case parametersInSchemaStatement(String)

    public var description: String {
        switch self {
        case .unresolvedColumn(let name):
            return "The column \(name) was not resolved to a table's column before the SQL ran"
        case .parametersInSchemaStatement(let text):
            return
                "A view or trigger cannot hold SQL text with its own ? placeholders (\(text)): SQLite takes no parameters there; build that part with typed columns and values instead"
        }
    }
}

/// The operators Strata writes, each spelled once.
package enum SQLOperator: String, Sendable {
    case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case and = "AND", or = "OR"
    case like = "LIKE", glob = "GLOB", match = "MATCH"
    case plus = "+", minus = "-", times = "*", divide = "/", remainder = "%", concatenate = "||"
}

extension SQLFragment {
    /// Whether the fragment is exactly one bound NULL (a nil optional interpolated as a value).
    var isNullValue: Bool {
        if segments.count == 1, case .value(.null) = segments[0] { return true }
        if segments.count == 1, case .fragment(let nested) = segments[0] { return nested.isNullValue }
        return false
    }

    /// `lhs op rhs`.
    package static func infix(_ lhs: SQLFragment, _ op: SQLOperator, _ rhs: SQLFragment) -> SQLFragment {
        "\(lhs) \(sql: op.rawValue) \(rhs)"
    }

    /// `lhs op rhs`, where `= NULL` and `<> NULL` (never true in SQL) are written
    /// `lhs IS NULL` and `lhs IS NOT NULL`, as Swift's `==` and `!=` with nil mean.
    package static func comparison(_ lhs: SQLFragment, _ op: SQLOperator, _ rhs: SQLFragment) -> SQLFragment {
        if op == .equal || op == .notEqual {
            // NULL on either side: the other side is tested (`nil == column` reads as `column == nil`).
            let (tested, null) = rhs.isNullValue ? (lhs, true) : lhs.isNullValue ? (rhs, true) : (lhs, false)
            if null { return op == .equal ? tested.isNull : tested.isNotNull }
        }
        return infix(lhs, op, rhs)
    }

    /// `(lhs) op (rhs)`: each operand in parentheses (AND, OR).
    package static func grouped(_ lhs: SQLFragment, _ op: SQLOperator, _ rhs: SQLFragment) -> SQLFragment {
        "(\(lhs)) \(sql: op.rawValue) (\(rhs))"
    }

    /// `NOT (self)`.
    package var negated: SQLFragment { "NOT (\(self))" }
    /// `self IS NULL`.
    package var isNull: SQLFragment { "\(self) IS NULL" }
    /// `self IS NOT NULL`.
    package var isNotNull: SQLFragment { "\(self) IS NOT NULL" }
    /// `self ASC`.
    package var ascending: SQLFragment { "\(self) ASC" }
    /// `self DESC`.
    package var descending: SQLFragment { "\(self) DESC" }

    /// `name(arguments)`, or `name(DISTINCT arguments)`.
    package static func call(_ name: String, _ arguments: [SQLFragment], distinct: Bool = false) -> SQLFragment {
        "\(sql: name)(\(sql: distinct ? "DISTINCT " : "")\(arguments, separator: ", "))"
    }

    /// `self IN (values)` or `self NOT IN (values)` (SQLite reads an empty list as matching nothing).
    package func membership(in values: [SQLFragment], negated: Bool = false) -> SQLFragment {
        "\(self) \(sql: negated ? "NOT IN" : "IN") (\(values, separator: ", "))"
    }

    /// `self IN (?, ?, …)` or `self NOT IN (…)` with `values` bound: one segment for the whole
    /// list, for lists of thousands (an association's keys).
    package func membership(inBound values: some Collection<BindingValue>, negated: Bool = false) -> SQLFragment {
        var placeholders = ""
        placeholders.reserveCapacity(3 * values.count)
        for index in 0..<values.count { placeholders += index == 0 ? "?" : ", ?" }
        return "\(self) \(sql: negated ? "NOT IN" : "IN") (\(SQLFragment(sql: placeholders, arguments: Array(values))))"
    }

    /// `self IN (subquery)`.
    package func membership(inSubquery subquery: SQLFragment) -> SQLFragment {
        "\(self) IN (\(subquery))"
    }

    /// `self BETWEEN low AND high`.
    package func between(_ low: SQLFragment, _ high: SQLFragment) -> SQLFragment {
        "\(self) BETWEEN \(low) AND \(high)"
    }

    /// `EXISTS (subquery)`.
    package static func exists(_ subquery: SQLFragment) -> SQLFragment {
        "EXISTS (\(subquery))"
    }

    /// `self AS alias`, the alias quoted.
    package func aliased(_ alias: String) -> SQLFragment {
        "\(self) AS \(identifier: alias)"
    }

    /// A value already converted for binding: `?`, bound.
    package static func bound(_ value: BindingValue) -> SQLFragment {
        SQLFragment(segments: [.value(value)])
    }

    /// A value that could not be encoded or bound: `?` bound to NULL, and running it throws `error`.
    package static func unbindable(_ error: any Error) -> SQLFragment {
        SQLFragment(segments: [.unbindable(error)])
    }

    /// A late column (see ``LateColumn``).
    package static func lateColumn(_ column: LateColumn) -> SQLFragment {
        SQLFragment(segments: [.lateColumn(column)])
    }
}

extension SQLFragmentError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
