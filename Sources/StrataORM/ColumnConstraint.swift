/// One constraint of a column, as ``Column`` records it.
public struct ColumnConstraint: Sendable {
    enum Kind: Sendable, Equatable {
        case primaryKey(order: String?, conflict: ConflictResolution?, autoincrement: Bool)
        case notNull(conflict: ConflictResolution?)
        case unique(conflict: ConflictResolution?)
        case defaultValue(BindingValue)
    }

    let kind: Kind

    /// The constraint's SQL for a single-column primary key, or for the others.
    func sql(inlinePrimaryKey: Bool) -> String? {
        switch kind {
        case .primaryKey(let order, let conflict, let autoincrement):
            guard inlinePrimaryKey else { return nil }
            var parts = ["PRIMARY KEY"]
            if let order { parts.append(order) }
            if let conflict { parts.append("ON CONFLICT \(conflict.rawValue)") }
            if autoincrement { parts.append("AUTOINCREMENT") }
            return parts.joined(separator: " ")
        case .notNull(let conflict):
            return "NOT NULL" + (conflict.map { " ON CONFLICT \($0.rawValue)" } ?? "")
        case .unique(let conflict):
            return "UNIQUE" + (conflict.map { " ON CONFLICT \($0.rawValue)" } ?? "")
        case .defaultValue(let value):
            return "DEFAULT " + sqlLiteral(value)
        }
    }
}

/// What SQLite does when a constraint fails (`ON CONFLICT ...`).
enum ConflictResolution: String, Sendable {
    case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"
}

/// Something that yields a column constraint: `primaryKey()`, `notNull()`, `unique()`, ...
public protocol ConstraintBuilder {
    /// The constraint to declare.
    var columnConstraint: ColumnConstraint { get }
}

/// A constraint that accepts SQLite's conflict clause (`.onConflict().replace()`).
public protocol ConflictClauseBuilder: ConstraintBuilder {
    /// The `ON CONFLICT` choice to add.
    func onConflict() -> OnConflictBuilder<Self>
}

/// The `ON CONFLICT` choices for a constraint.
///
/// ```swift
/// Column(name: "id", keyPath: \User.id, constraints: primaryKey().onConflict().replace())
/// ```
public struct OnConflictBuilder<Builder: ConflictClauseBuilder> {
    let apply: (ConflictResolution) -> Builder

    /// `ON CONFLICT ROLLBACK`.
    public func rollback() -> Builder { apply(.rollback) }
    /// `ON CONFLICT ABORT` (SQLite's default).
    public func abort() -> Builder { apply(.abort) }
    /// `ON CONFLICT FAIL`.
    public func fail() -> Builder { apply(.fail) }
    /// `ON CONFLICT IGNORE`.
    public func ignore() -> Builder { apply(.ignore) }
    /// `ON CONFLICT REPLACE`.
    public func replace() -> Builder { apply(.replace) }
}

/// `PRIMARY KEY` with its order, conflict clause and `AUTOINCREMENT`.
public struct PrimaryKeyConstraintBuilder: ConflictClauseBuilder {
    var order: String?
    var conflict: ConflictResolution?
    var isAutoincrement = false

    public var columnConstraint: ColumnConstraint {
        ColumnConstraint(kind: .primaryKey(order: order, conflict: conflict, autoincrement: isAutoincrement))
    }

    /// Adds `AUTOINCREMENT`: ids are never reused (an INTEGER key only).
    public func autoincrement() -> Self { var copy = self; copy.isAutoincrement = true; return copy }
    /// `PRIMARY KEY ASC`.
    public func asc() -> Self { var copy = self; copy.order = "ASC"; return copy }
    /// `PRIMARY KEY DESC`.
    public func desc() -> Self { var copy = self; copy.order = "DESC"; return copy }

    public func onConflict() -> OnConflictBuilder<Self> {
        OnConflictBuilder { resolution in var copy = self; copy.conflict = resolution; return copy }
    }
}

/// `NOT NULL` with an optional conflict clause.
public struct NotNullConstraintBuilder: ConflictClauseBuilder {
    var conflict: ConflictResolution?

    public var columnConstraint: ColumnConstraint { ColumnConstraint(kind: .notNull(conflict: conflict)) }

    public func onConflict() -> OnConflictBuilder<Self> {
        OnConflictBuilder { resolution in var copy = self; copy.conflict = resolution; return copy }
    }
}

/// `UNIQUE` with an optional conflict clause.
public struct UniqueConstraintBuilder: ConflictClauseBuilder {
    var conflict: ConflictResolution?

    public var columnConstraint: ColumnConstraint { ColumnConstraint(kind: .unique(conflict: conflict)) }

    public func onConflict() -> OnConflictBuilder<Self> {
        OnConflictBuilder { resolution in var copy = self; copy.conflict = resolution; return copy }
    }
}

/// `DEFAULT value`, which SQLite fills in when an insert omits the column.
public struct DefaultValueConstraintBuilder: ConstraintBuilder {
    let value: BindingValue

    public var columnConstraint: ColumnConstraint { ColumnConstraint(kind: .defaultValue(value)) }
}

/// Declares the column the table's primary key (several such columns form a composite key).
///
/// ```swift
/// Column(name: "id", keyPath: \User.id, constraints: primaryKey().autoincrement(), notNull())
/// ```
public func primaryKey() -> PrimaryKeyConstraintBuilder { PrimaryKeyConstraintBuilder() }

/// Declares the column `NOT NULL`.
public func notNull() -> NotNullConstraintBuilder { NotNullConstraintBuilder() }

/// Declares the column `UNIQUE`.
public func unique() -> UniqueConstraintBuilder { UniqueConstraintBuilder() }

/// Declares the column's `DEFAULT`, written as a literal (DDL takes no parameters): numbers as
/// numbers, text with its quotes doubled, blobs in hex.
///
/// ```swift
/// Column(name: "score", keyPath: \User.score, constraints: notNull(), defaultValue(0))
/// ```
public func defaultValue<V: Bindable>(_ value: V) -> DefaultValueConstraintBuilder {
    DefaultValueConstraintBuilder(value: value.bindingValue)
}
