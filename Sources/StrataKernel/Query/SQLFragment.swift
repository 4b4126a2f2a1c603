// Query: how Strata composes the SQL it generates. `SQLFragment` (SQL text, bound values and
// identifiers that can be qualified later) is the one currency of every builder: the records'
// typed columns and predicates, the ORM's expressions, and `run(literal:)`/`query(literal:)`.
// Squeal's SQL helpers (`insertInto`, `selectFrom`, …) are in the StrataSqueal module, the
// table definition in Schema/Definition. Quoting itself lives in Statements/SQLText.swift;
// statements run through the connection's one statement cache.

import Foundation

/// SQL text with its values bound, composed by string interpolation.
///
/// ```swift
/// let frag: SQLFragment = "SELECT * FROM \(identifier: "book") WHERE year > \(1999) AND title = \(title)"
/// frag.sql         // SELECT * FROM "book" WHERE year > ? AND title = ?
/// frag.arguments   // [.integer(1999), .text(title)]
/// let more = frag + " AND price IS NOT NULL"
/// ```
///
/// An interpolated value never reaches the SQL text: `\(value)` writes a `?` and binds the value
/// (a nil optional binds NULL); `\(identifier:)` writes a quoted name; `\(fragment)` nests another
/// fragment with its values. Only the literal text a program writes is SQL.
///
/// Column names written with ``column(_:table:)`` (or `\(column:)`) stay names until the SQL is
/// written, so one expression serves a single table, a join or a subquery:
/// ``qualifyingColumns(with:)`` qualifies its unqualified columns with a table or alias, and
/// ``requalifyingColumns(from:to:)`` moves them to another alias (a self-join).
///
/// Two fragments are equal when they are made of the same text, values, names and columns,
/// however they were nested or concatenated; text that holds its own `?`s
/// (``init(sql:arguments:)`` with arguments) compares as one unit with its values.
public struct SQLFragment: Sendable {
    /// One piece of a fragment, in order.
    package enum Segment: Sendable {
        /// SQL text, written as is.
        case text(String)
        /// A value, written as `?` and bound.
        case value(BindingValue)
        /// A quoted name that is not a column (a table, an alias, an index): never qualified.
        case identifier(String)
        /// A quoted column name, `"qualifier"."name"` when qualified.
        case column(String, qualifier: String?)
        /// SQL text holding `?` placeholders, with their values in order (SQL built elsewhere).
        case bound(String, [BindingValue])
        /// Another fragment, nested whole.
        case fragment(SQLFragment)
        /// A value that could not be encoded (a `JSONBinding` of `Double.nan`): written as `?`
        /// bound to NULL, and running the fragment throws `error`, as binding the value would.
        case unbindable(any Error)
        /// A column named later (the ORM's key paths): ``SQLFragment/resolvingLateColumns(_:)``
        /// turns it into a column; rendered unresolved, running the fragment throws.
        case lateColumn(LateColumn)

        /// `value` bound, or ``unbindable(_:)`` when it binds NULL only because its encoding
        /// failed (so no builder writes or compares NULL in its place).
        package static func binding<Value: Bindable>(_ value: Value) -> Segment {
            let bound = value.bindingValue
            if bound == .null, let error = bindingEncodingError(of: value) { return .unbindable(error) }
            return .value(bound)
        }
    }

    /// The pieces, in order.
    package private(set) var segments: [Segment]

    /// A fragment made of `segments`.
    package init(segments: [Segment]) { self.segments = segments }

    /// An empty fragment.
    public init() { segments = [] }

    /// A fragment of SQL text that already holds a `?` placeholder for each of `arguments`, in
    /// order: for SQL built elsewhere. The text is used as is, so never build it from user input.
    public init(sql: String, arguments: [BindingValue] = []) {
        segments = arguments.isEmpty ? [.text(sql)] : [.bound(sql, arguments)]
    }

    /// A column name, quoted when written (`"name"`, or `"table"."name"` when `table` is given),
    /// which ``qualifyingColumns(with:)`` and ``requalifyingColumns(from:to:)`` can qualify later.
    public static func column(_ name: String, table: String? = nil) -> SQLFragment {
        SQLFragment(segments: [.column(name, qualifier: table)])
    }

    /// A quoted name that is not a column (a table, an alias): qualification leaves it alone.
    public static func identifier(_ name: String) -> SQLFragment {
        SQLFragment(segments: [.identifier(name)])
    }

    /// A bound value: `?` in the SQL. A nil optional binds NULL.
    public static func value<Value: Bindable>(_ value: Value) -> SQLFragment {
        SQLFragment(segments: [.binding(value)])
    }

    /// Whether the fragment writes no SQL.
    public var isEmpty: Bool {
        segments.allSatisfy { segment in
            switch segment {
            case .text(let text): return text.isEmpty
            case .bound(let text, let arguments): return text.isEmpty && arguments.isEmpty
            case .fragment(let nested): return nested.isEmpty
            case .value, .identifier, .column, .unbindable, .lateColumn: return false
            }
        }
    }

    // MARK: - Writing the SQL

    /// The SQL text, with `?` for each bound value and every name quoted.
    public var sql: String {
        var sql = ""
        var unused: [BindingValue] = []
        var failure: (any Error)?
        write(into: &sql, arguments: &unused, collectingArguments: false, failure: &failure)
        return sql
    }

    /// The values to bind, in the order of the `?`s in ``sql``.
    public var arguments: [BindingValue] {
        var arguments: [BindingValue] = []
        collect(&arguments)
        return arguments
    }

    /// ``sql`` and ``arguments`` in one walk, for a caller that runs the fragment.
    /// - Throws: The encoding error of a value that could not be encoded.
    package var rendered: (sql: String, arguments: [BindingValue]) {
        get throws {
            var sql = ""
            // A SELECT of a record or a join runs to a few hundred bytes: grown once, not five times.
            sql.reserveCapacity(256)
            var arguments: [BindingValue] = []
            var failure: (any Error)?
            write(into: &sql, arguments: &arguments, collectingArguments: true, failure: &failure)
            if let failure { throw failure }
            return (sql, arguments)
        }
    }

    /// ``sql`` and ``arguments`` in one walk, an unbindable value written as NULL (for nesting
    /// a fragment whose ``unbindableError`` is nil).
    var renderedUnchecked: (sql: String, arguments: [BindingValue]) {
        var sql = ""
        sql.reserveCapacity(256)
        var arguments: [BindingValue] = []
        var failure: (any Error)?
        write(into: &sql, arguments: &arguments, collectingArguments: true, failure: &failure)
        return (sql, arguments)
    }

    /// The error of the first value in the fragment that could not be encoded, if any.
    var unbindableError: (any Error)? {
        for segment in segments {
            switch segment {
            case .unbindable(let error): return error
            case .fragment(let nested): if let error = nested.unbindableError { return error }
            case .lateColumn(let column): return SQLFragmentError.unresolvedColumn(column.description)
            case .text, .value, .identifier, .column, .bound: continue
            }
        }
        return nil
    }

    /// The SQL text with every value written as a literal (the kernel's ``sqlLiteral(_:)``), for
    /// the schema statements SQLite takes no parameters in: a view's SELECT, a trigger's body.
    /// - Throws: The encoding error of a value that could not be encoded;
    ///   ``SQLFragmentError/parametersInSchemaStatement(_:)`` for text that holds its own `?`s.
    package func sqlInliningValues() throws -> String {
        var sql = ""
        var unused: [BindingValue] = []
        var failure: (any Error)?
        write(into: &sql, arguments: &unused, collectingArguments: false, inliningValues: true, failure: &failure)
        if let failure { throw failure }
        return sql
    }

    private func write(
        into sql: inout String, arguments: inout [BindingValue], collectingArguments: Bool,
        inliningValues: Bool = false, failure: inout (any Error)?
    ) {
        for segment in segments {
            switch segment {
            case .text(let text):
                sql += text
            case .value(let value):
                if inliningValues { sql += sqlLiteral(value); continue }
                sql += "?"
                if collectingArguments { arguments.append(value) }
            case .identifier(let name):
                sql += quoteIdentifier(name)
            case .column(let name, let qualifier):
                if let qualifier { sql += quoteIdentifier(qualifier) + "." }
                sql += quoteIdentifier(name)
            case .bound(let text, let values):
                if inliningValues, !values.isEmpty, failure == nil { failure = SQLFragmentError.parametersInSchemaStatement(text) }
                sql += text
                if collectingArguments { arguments.append(contentsOf: values) }
            case .fragment(let nested):
                nested.write(
                    into: &sql, arguments: &arguments, collectingArguments: collectingArguments,
                    inliningValues: inliningValues, failure: &failure)
            case .unbindable(let error):
                if failure == nil { failure = error }
                sql += inliningValues ? "NULL" : "?"
                if collectingArguments { arguments.append(.null) }
            case .lateColumn(let column):
                if failure == nil { failure = SQLFragmentError.unresolvedColumn(column.description) }
                sql += quoteIdentifier(column.description)
            }
        }
    }

    private func collect(_ arguments: inout [BindingValue]) {
        for segment in segments {
            switch segment {
            case .value(let value): arguments.append(value)
            case .bound(_, let values): arguments.append(contentsOf: values)
            case .fragment(let nested): nested.collect(&arguments)
            case .unbindable: arguments.append(.null)
            case .text, .identifier, .column, .lateColumn: break
            }
        }
    }

    // MARK: - Qualifying columns

    /// The fragment with each unqualified column, nested ones included, qualified by `table` (a
    /// table name or an alias): `"year" > ?` becomes `"book"."year" > ?`. Columns already
    /// qualified keep their qualifier, so qualify a subquery's columns before nesting it.
    public func qualifyingColumns(with table: String) -> SQLFragment {
        mapColumns { name, qualifier in qualifier == nil ? table : qualifier }
    }

    /// The fragment with each column qualified by `old` qualified by `new` instead, nested ones
    /// included: re-aliases an expression, as for the second table of a self-join.
    public func requalifyingColumns(from old: String, to new: String) -> SQLFragment {
        mapColumns { _, qualifier in qualifier == old ? new : qualifier }
    }

    /// The fragment with the columns qualified by `table` unqualified, nested ones included;
    /// other qualifiers stay. A single-table query's own columns read shorter this way, while a
    /// correlated subquery's reference to the outer table keeps its qualifier.
    public func unqualifyingColumns(of table: String) -> SQLFragment {
        mapColumns { _, qualifier in qualifier == table ? nil : qualifier }
    }

    /// The fragment with every column unqualified, nested ones included.
    public func unqualifyingColumns() -> SQLFragment {
        mapColumns { _, _ in nil }
    }

    private func mapColumns(_ transform: (String, String?) -> String?) -> SQLFragment {
        SQLFragment(
            segments: segments.map { segment in
                switch segment {
                case .column(let name, let qualifier): return .column(name, qualifier: transform(name, qualifier))
                case .fragment(let nested): return .fragment(nested.mapColumns(transform))
                case .text, .value, .identifier, .bound, .unbindable, .lateColumn: return segment
                }
            })
    }

    /// The fragment with each late column, nested ones included, replaced by the column
    /// `resolve` names for it: the ORM resolves its key paths against its storage's tables here.
    /// - Throws: What `resolve` throws (a key path that is no column).
    package func resolvingLateColumns(_ resolve: (LateColumn) throws -> (name: String, qualifier: String?)) throws -> SQLFragment {
        // A loop, not `map`: a throw out of a recursive `rethrows` map closure crashed here
        // (Swift 6.3, debug builds) in generic metadata instantiation.
        var resolved: [Segment] = []
        resolved.reserveCapacity(segments.count)
        for segment in segments {
            switch segment {
            case .lateColumn(let column):
                let name = try resolve(column)
                resolved.append(.column(name.name, qualifier: name.qualifier))
            case .fragment(let nested):
                resolved.append(.fragment(try nested.resolvingLateColumns(resolve)))
            case .text, .value, .identifier, .column, .bound, .unbindable:
                resolved.append(segment)
            }
        }
        return SQLFragment(segments: resolved)
    }

    // MARK: - Composing

    /// Appends `other`'s SQL and values.
    public mutating func append(_ other: SQLFragment) {
        segments.append(contentsOf: other.segments)
    }

    /// Appends one piece, for builders that write a fragment piece by piece.
    package mutating func append(segment: Segment) {
        segments.append(segment)
    }

    /// `lhs` followed by `rhs`: `frag + " AND price IS NOT NULL"`.
    public static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(segments: lhs.segments + rhs.segments)
    }

    /// Appends `rhs` to `lhs`.
    public static func += (lhs: inout SQLFragment, rhs: SQLFragment) {
        lhs.append(rhs)
    }
}

extension Sequence where Element == SQLFragment {
    /// The fragments one after another, `separator` between each two: `", "`, `" AND "`.
    public func joined(separator: SQLFragment = SQLFragment()) -> SQLFragment {
        var result = SQLFragment()
        for (index, fragment) in enumerated() {
            if index > 0 { result.append(separator) }
            result.append(fragment)
        }
        return result
    }
}

// MARK: - String interpolation

extension SQLFragment: ExpressibleByStringInterpolation {
    /// A fragment of literal SQL text.
    public init(stringLiteral value: String) {
        segments = value.isEmpty ? [] : [.text(value)]
    }

    /// A fragment from an interpolated string literal.
    public init(stringInterpolation: StringInterpolation) {
        segments = stringInterpolation.segments
    }

    /// Builds a fragment from an interpolated string literal: literal text is SQL, each
    /// interpolation a value, a name or another fragment.
    public struct StringInterpolation: StringInterpolationProtocol {
        package var segments: [Segment] = []

        /// Room for the literal's pieces.
        public init(literalCapacity: Int, interpolationCount: Int) {
            segments.reserveCapacity(2 * interpolationCount + 1)
        }

        /// Literal SQL text.
        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            segments.append(.text(literal))
        }

        /// `\(value)`: a `?`, with the value bound (NULL for a nil optional).
        public mutating func appendInterpolation<Value: Bindable>(_ value: Value) {
            segments.append(.binding(value))
        }

        /// `\(optional)`: a `?`, with the value bound, or NULL when it is nil. (Typed optional, so
        /// interpolating one is no mistake the compiler warns about.)
        public mutating func appendInterpolation<Value: Bindable>(_ value: Value?) {
            segments.append(value.map { .binding($0) } ?? .value(.null))
        }

        /// `\(fragment)`: another fragment, its values bound in place.
        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            segments.append(.fragment(fragment))
        }

        /// `\(identifier: "book")`: a quoted name (`"book"`), inner quotes doubled.
        public mutating func appendInterpolation(identifier name: String) {
            segments.append(.identifier(name))
        }

        /// SQL text Strata writes itself (an operator, a keyword), never user input.
        package mutating func appendInterpolation(sql text: String) {
            guard !text.isEmpty else { return }
            segments.append(.text(text))
        }

        /// Fragments one after another, `separator` (SQL text) between each two.
        package mutating func appendInterpolation(_ fragments: [SQLFragment], separator: String) {
            for (index, fragment) in fragments.enumerated() {
                if index > 0, !separator.isEmpty { segments.append(.text(separator)) }
                segments.append(.fragment(fragment))
            }
        }

        /// `\(column: "year")` or `\(column: "year", table: "b")`: a quoted column name that
        /// ``SQLFragment/qualifyingColumns(with:)`` can qualify later.
        public mutating func appendInterpolation(column name: String, table: String? = nil) {
            segments.append(.column(name, qualifier: table))
        }
    }
}

// MARK: - Equality, description

extension SQLFragment: Hashable {
    /// A fragment's pieces with nesting flattened and adjacent text joined, so equality does not
    /// depend on how a fragment was put together.
    private enum Piece: Hashable {
        case text(String)
        case value(BindingValue)
        case identifier(String)
        case column(String, qualifier: String?)
        case unbindable(String)
        case lateColumn(LateColumn)
        /// Text holding its own `?`s, with their values: a unit, since a `?` in it cannot be told
        /// from a value segment's.
        case bound(String, [BindingValue])
    }

    private var pieces: [Piece] {
        var pieces: [Piece] = []
        func addText(_ text: String) {
            guard !text.isEmpty else { return }
            if case .text(let previous)? = pieces.last {
                pieces[pieces.count - 1] = .text(previous + text)
            } else {
                pieces.append(.text(text))
            }
        }
        func add(_ fragment: SQLFragment) {
            for segment in fragment.segments {
                switch segment {
                case .text(let text): addText(text)
                case .value(let value): pieces.append(.value(value))
                case .identifier(let name): pieces.append(.identifier(name))
                case .column(let name, let qualifier): pieces.append(.column(name, qualifier: qualifier))
                case .bound(let text, let values):
                    pieces.append(.bound(text, values))
                case .fragment(let nested): add(nested)
                case .unbindable(let error): pieces.append(.unbindable("\(error)"))
                case .lateColumn(let column): pieces.append(.lateColumn(column))
                }
            }
        }
        add(self)
        return pieces
    }

    public static func == (lhs: SQLFragment, rhs: SQLFragment) -> Bool {
        lhs.pieces == rhs.pieces
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pieces)
    }
}

extension SQLFragment: CustomStringConvertible, CustomDebugStringConvertible {
    /// The SQL text (values as `?`).
    public var description: String { sql }

    /// The SQL text and the values it binds.
    public var debugDescription: String { "SQLFragment(\(sql.debugDescription), arguments: \(arguments))" }
}
