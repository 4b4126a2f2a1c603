// Triggers over typed columns: `Book.afterInsert(named:) { new in … }` builds a trigger whose
// body statements are typed writes (`WriteStatement`: an UPDATE, DELETE or INSERT built from
// a record query) and whose WHEN is a `where` condition; `NEW` and `OLD` are the record's typed
// columns qualified by those names. The CREATE TRIGGER renders through `StatementClauses`, its
// values written as literals (SQLite takes no parameters in a trigger).
import Foundation

/// A write built from typed columns and not yet run: a trigger's body statement, or one to run
/// with ``execute(_:)``.
///
/// ```swift
/// Author.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
/// Book.where { $0.authorId == old.id }.delete()
/// AuditEntry.insert { $0.bookId.set(to: new.id); $0.action.set(to: "insert") }
/// ```
public struct WriteStatement: Sendable {
    /// The statement, values bound.
    public let fragment: SQLFragment
    /// Why the statement cannot run, found while it was built.
    let failure: RecordError?

    init(_ fragment: SQLFragment, failure: RecordError? = nil) {
        self.fragment = fragment
        self.failure = failure
    }

    /// The statement's SQL, with `?` for its values.
    public var sql: String { fragment.sql }
    /// The values it binds, in order.
    public var arguments: [BindingValue] { fragment.arguments }

    /// Runs the statement; returns how many rows it changed.
    /// - Throws: ``RecordError`` for a statement built wrong (an UPDATE that sets nothing);
    ///   `SQLiteError`.
    @discardableResult
    public func execute(_ db: Connection) throws -> Int {
        if let failure { throw failure }
        try db.run(literal: fragment)
        return db.changes
    }
}

/// Collects a trigger's body: one typed write per line.
@resultBuilder
public enum TriggerBodyBuilder {
    /// One statement of the body.
    public static func buildExpression(_ statement: WriteStatement) -> [WriteStatement] { [statement] }
    /// The statements in the order written.
    public static func buildBlock(_ parts: [WriteStatement]...) -> [WriteStatement] { parts.flatMap { $0 } }
    /// An `if` without `else`: its statements, or none.
    public static func buildOptional(_ part: [WriteStatement]?) -> [WriteStatement] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`, chosen while the trigger is built.
    public static func buildEither(first part: [WriteStatement]) -> [WriteStatement] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [WriteStatement]) -> [WriteStatement] { part }
    /// A `for` loop's statements, one group per pass.
    public static func buildArray(_ parts: [[WriteStatement]]) -> [WriteStatement] { parts.flatMap { $0 } }
}

// MARK: - Assignments on typed columns

/// A typed column whatever its value type, as an UPDATE or INSERT collects what its closure
/// assigned.
protocol AssignableRecordColumn {
    var name: String { get }
    var fragment: SQLFragment { get }
    var assignment: SQLFragment? { get }
}

extension TypedColumn: AssignableRecordColumn {}

extension TypedColumn {
    /// The expression assigned so far, or the column itself.
    private var assignedExpression: SQLFragment { assignment ?? fragment }

    /// Sets the column to `value` in the UPDATE or INSERT being built.
    public mutating func set(to value: Value) { assignment = bound(value) }

    /// Sets the column to another column's or expression's value (`new.title`).
    public mutating func set<E: QueryExpression>(to expression: E) where E.Value == Value { assignment = expression.fragment }

    /// Sets an optional column to a non-optional column's or expression's value.
    public mutating func set<E: QueryExpression, Wrapped>(to expression: E) where Value == Wrapped?, E.Value == Wrapped {
        assignment = expression.fragment
    }

    /// Sets a non-optional column to an optional column's or expression's value (`new.id`, an
    /// `INTEGER PRIMARY KEY` that is never NULL in a stored row); NULL fails the NOT NULL
    /// constraint when the statement runs.
    public mutating func set<E: QueryExpression>(to expression: E) where E.Value == Value? {
        assignment = expression.fragment
    }

    /// Adds to the column: `"count" = "count" + ?` in the UPDATE being built.
    public static func += (column: inout TypedColumn, value: Value) where Value: Numeric {
        column.assignment = .infix(column.assignedExpression, .plus, column.bound(value))
    }

    /// Subtracts from the column: `"count" = "count" - ?`.
    public static func -= (column: inout TypedColumn, value: Value) where Value: Numeric {
        column.assignment = .infix(column.assignedExpression, .minus, column.bound(value))
    }

    /// Adds another column's or expression's value (`$0.total += new.price`).
    public static func += <E: QueryExpression>(column: inout TypedColumn, expression: E) where E.Value == Value, Value: Numeric {
        column.assignment = .infix(column.assignedExpression, .plus, expression.fragment)
    }

    /// Subtracts another column's or expression's value.
    public static func -= <E: QueryExpression>(column: inout TypedColumn, expression: E) where E.Value == Value, Value: Numeric {
        column.assignment = .infix(column.assignedExpression, .minus, expression.fragment)
    }

    /// Adds to an optional column (NULL stays NULL, as in SQL).
    public static func += <Wrapped: Numeric>(column: inout TypedColumn, value: Wrapped) where Value == Wrapped? {
        column.assignment = .infix(column.assignedExpression, .plus, column.bound(value))
    }

    /// Subtracts from an optional column (NULL stays NULL, as in SQL).
    public static func -= <Wrapped: Numeric>(column: inout TypedColumn, value: Wrapped) where Value == Wrapped? {
        column.assignment = .infix(column.assignedExpression, .minus, column.bound(value))
    }
}

/// What `change` assigned to `columns`, column by column in declaration order: a column given
/// an expression (`+=`, `set(to:)`), or replaced by another column (`$0.title = new.title`).
func collectedAssignments<Columns>(_ columns: Columns, _ change: (inout Columns) -> Void) -> [(column: String, value: SQLFragment)] {
    var changed = columns
    change(&changed)
    let before = Mirror(reflecting: columns).children.map(\.value)
    let after = Mirror(reflecting: changed).children.map(\.value)
    var assignments: [(column: String, value: SQLFragment)] = []
    for (old, new) in zip(before, after) {
        guard let old = old as? any AssignableRecordColumn, let new = new as? any AssignableRecordColumn else { continue }
        if let value = new.assignment {
            assignments.append((old.name, value))
        } else if new.fragment != old.fragment {
            assignments.append((old.name, new.fragment))
        }
    }
    return assignments
}

extension RecordQuery where R: Record {
    /// The UPDATE of the matching records that `change` describes, not yet run: a trigger's
    /// body statement, or one to ``WriteStatement/execute(_:)``.
    ///
    /// ```swift
    /// Author.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
    /// ```
    /// Assign with `+=`, `-=`, `set(to:)`, or another column (`$0.title = new.title`).
    public func update(_ change: (inout R.Columns) -> Void) -> WriteStatement {
        let assigned = building { columns in collectedAssignments(columns, change) }
        guard !assigned.isEmpty else {
            return WriteStatement("", failure: .unsupported("update of \(R.self) assigns no column: use +=, -=, set(to:) or another column"))
        }
        let set = assigned.map { SQLFragment.infix(.column($0.column), .equal, $0.value) }.joined(separator: ", ")
        do {
            return WriteStatement(try unlimitedClauses(for: "update").update(.identifier(R.tableName), set: set))
        } catch let error as RecordError {
            return WriteStatement("", failure: error)
        } catch {
            return WriteStatement("", failure: .unsupported("\(error)"))
        }
    }

    /// Changes the matching records in one UPDATE, run now; returns how many rows changed.
    ///
    /// ```swift
    /// try Bookmark.where { $0.id == id }.update(db) { $0.visits += 1 }
    /// ```
    /// The new value is computed by SQLite from the stored one (`"visits" = "visits" + ?`), so
    /// a counter loses no increment to another writer, as fetch, add and save could. Assign with
    /// `+=`, `-=`, `set(to:)`, or another column; `update(_:set:)`
    /// sets constants only.
    /// - Throws: ``RecordError`` when `change` assigns no column, or for a query with an
    ///   order, limit or group; `SQLiteError` (a constraint the new values break).
    @discardableResult
    public func update(_ db: Connection, _ change: (inout R.Columns) -> Void) throws -> Int {
        try update(change).execute(db)
    }

    /// The DELETE of the matching records, not yet run.
    public func delete() -> WriteStatement {
        do {
            return WriteStatement(try unlimitedClauses(for: "delete").delete(from: .identifier(R.tableName)))
        } catch let error as RecordError {
            return WriteStatement("", failure: error)
        } catch {
            return WriteStatement("", failure: .unsupported("\(error)"))
        }
    }
}

extension Record {
    /// The INSERT of one row whose columns `values` sets (the others take their defaults), not
    /// yet run: a trigger's audit row, say.
    ///
    /// ```swift
    /// AuditEntry.insert { $0.bookId.set(to: new.id); $0.action.set(to: "insert") }
    /// ```
    public static func insert(_ values: (inout Columns) -> Void) -> WriteStatement {
        let assigned = QueryScope.within([tableName]) { collectedAssignments(Columns(qualifier: nil), values) }
        var insert = SQLFragment(sql: "INSERT INTO ")
        insert.append(.identifier(tableName))
        if assigned.isEmpty {
            insert.append(" DEFAULT VALUES")
        } else {
            insert.append(
                " (\(assigned.map { SQLFragment.identifier($0.column) }.joined(separator: ", "))) VALUES (\(assigned.map(\.value).joined(separator: ", ")))")
        }
        return WriteStatement(insert)
    }

    /// Every record matching `condition`'s UPDATE (see ``RecordQuery/update(_:)``).
    public static func update(_ change: (inout Columns) -> Void) -> WriteStatement {
        all().update(change)
    }

    /// Changes every record in one UPDATE, run now; returns how many rows changed (see
    /// ``RecordQuery/update(_:_:)``).
    ///
    /// ```swift
    /// try Bookmark.update(db) { $0.visits.set(to: 0) }
    /// ```
    @discardableResult
    public static func update(_ db: Connection, _ change: (inout Columns) -> Void) throws -> Int {
        try all().update(db, change)
    }
}

// MARK: - Triggers

/// A trigger on a record's table, typed: its WHEN and body take the same expressions as
/// `where`, over the row's `NEW` and `OLD` columns.
///
/// ```swift
/// try Book.afterInsert(named: "count_books") { new in
///     Author.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
/// }.create(db, temporary: false)
/// try Book.afterUpdate(of: \.title, when: { old, new in old.title != new.title }) { old, new in
///     AuditEntry.insert { $0.bookId.set(to: new.id); $0.action.set(to: "retitle") }
/// }.create(db)
/// ```
public struct Trigger<R: Record>: Sendable {
    /// The trigger's name.
    public let name: String
    let timing: TriggerTiming
    let event: TriggerEvent
    let condition: SQLFragment?
    let body: [WriteStatement]
    let failure: RecordError?

    /// `CREATE [TEMP] TRIGGER …`, values written as literals.
    /// - Throws: ``RecordError`` for a trigger built wrong (no body, a key path that is no
    ///   column); the encoding error of a value that could not be encoded.
    public func sql(temporary: Bool = false, ifNotExists: Bool = false) throws -> String {
        if let failure { throw failure }
        guard !body.isEmpty else { throw RecordError.unsupported("trigger \(name) on \(R.self) has no statement in its body") }
        if let failure = body.lazy.compactMap(\.failure).first { throw failure }
        return try StatementClauses.createTrigger(
            name, timing: timing, event: event, on: R.tableName, when: condition,
            body: body.map(\.fragment), temporary: temporary, ifNotExists: ifNotExists
        )
        .sqlInliningValues()
    }

    /// Creates the trigger; `temporary` makes it the connection's own (`TEMP`), gone when it closes.
    /// - Throws: `SQLiteError` (a trigger of that name exists; the body names a table or column
    ///   that does not exist); the errors of ``sql(temporary:ifNotExists:)``.
    public func create(_ db: Connection, temporary: Bool = false) throws {
        try db.execute(sql(temporary: temporary))
    }

    /// Drops the trigger if it exists.
    public func drop(_ db: Connection) throws {
        try db.run(literal: "DROP TRIGGER IF EXISTS \(identifier: name)")
    }
}

extension Record {
    private static func trigger(
        _ name: String?, _ timing: TriggerTiming, _ event: TriggerEvent, failure: RecordError? = nil,
        _ build: (Columns, Columns) -> (SQLFragment?, [WriteStatement])
    ) -> Trigger<Self> {
        let eventName: String
        switch event {
        case .insert: eventName = "insert"
        case .delete: eventName = "delete"
        case .update(let columns): eventName = (["update"] + columns).joined(separator: "_")
        }
        let name = name ?? "\(tableName)_\(timing.rawValue.lowercased().replacingOccurrences(of: " ", with: "_"))_\(eventName)"
        let (condition, body) = QueryScope.within(["NEW", "OLD"]) { build(Columns(qualifier: "OLD"), Columns(qualifier: "NEW")) }
        return Trigger(name: name, timing: timing, event: event, condition: condition, body: body, failure: failure)
    }

    private static func rowTrigger(
        _ name: String?, _ timing: TriggerTiming, _ event: TriggerEvent, row: KeyPath<(old: Columns, new: Columns), Columns>,
        when condition: ((Columns) -> RecordPredicate)?, _ body: (Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        trigger(name, timing, event) { old, new in
            let columns = (old: old, new: new)[keyPath: row]
            return (condition?(columns).fragment, body(columns))
        }
    }

    private static func updateTrigger(
        _ name: String?, _ timing: TriggerTiming, of columns: [PartialKeyPath<Columns>],
        when condition: ((Columns, Columns) -> RecordPredicate)?, _ body: (Columns, Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        var failure: RecordError?
        var names: [String] = []
        do { names = try columnNames(columns, for: "an update trigger") } catch let error as RecordError { failure = error } catch {}
        return trigger(name, timing, .update(columns: names), failure: failure) { old, new in (condition?(old, new).fragment, body(old, new)) }
    }

    /// A trigger that runs `body` after each row is inserted; `new` is the row's columns. With
    /// no name, it is named `<table>_after_insert`.
    public static func afterInsert(
        named name: String? = nil, when condition: ((Columns) -> RecordPredicate)? = nil,
        @TriggerBodyBuilder _ body: (_ new: Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        rowTrigger(name, .after, .insert, row: \.new, when: condition, body)
    }

    /// A trigger that runs `body` before each row is inserted (`<table>_before_insert`).
    public static func beforeInsert(
        named name: String? = nil, when condition: ((Columns) -> RecordPredicate)? = nil,
        @TriggerBodyBuilder _ body: (_ new: Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        rowTrigger(name, .before, .insert, row: \.new, when: condition, body)
    }

    /// A trigger that runs `body` after each row is deleted; `old` is the row's columns
    /// (`<table>_after_delete`).
    public static func afterDelete(
        named name: String? = nil, when condition: ((Columns) -> RecordPredicate)? = nil,
        @TriggerBodyBuilder _ body: (_ old: Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        rowTrigger(name, .after, .delete, row: \.old, when: condition, body)
    }

    /// A trigger that runs `body` before each row is deleted (`<table>_before_delete`).
    public static func beforeDelete(
        named name: String? = nil, when condition: ((Columns) -> RecordPredicate)? = nil,
        @TriggerBodyBuilder _ body: (_ old: Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        rowTrigger(name, .before, .delete, row: \.old, when: condition, body)
    }

    /// A trigger that runs `body` after each row is updated (only an UPDATE that sets one of
    /// `columns`, when any are given); it receives the row's columns before and after
    /// (`<table>_after_update[_column…]`).
    public static func afterUpdate(
        named name: String? = nil, of columns: PartialKeyPath<Columns>...,
        when condition: ((_ old: Columns, _ new: Columns) -> RecordPredicate)? = nil,
        @TriggerBodyBuilder _ body: (_ old: Columns, _ new: Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        updateTrigger(name, .after, of: columns, when: condition, body)
    }

    /// A trigger that runs `body` before each row is updated (see ``afterUpdate(named:of:when:_:)``).
    public static func beforeUpdate(
        named name: String? = nil, of columns: PartialKeyPath<Columns>...,
        when condition: ((_ old: Columns, _ new: Columns) -> RecordPredicate)? = nil,
        @TriggerBodyBuilder _ body: (_ old: Columns, _ new: Columns) -> [WriteStatement]
    ) -> Trigger<Self> {
        updateTrigger(name, .before, of: columns, when: condition, body)
    }
}
