/// The sort order of a primary key column (`PRIMARY KEY ASC` or `DESC`).
public enum Order: Sendable, Equatable {
    /// `ASC`.
    case asc
    /// `DESC`.
    case desc

    var definition: TableDefinition.SortOrder { self == .asc ? .asc : .desc }
}

/// What SQLite does when a constraint fails (`ON CONFLICT ...`).
public enum ConflictClause: Sendable, Equatable {
    /// `ON CONFLICT ROLLBACK`.
    case rollback
    /// `ON CONFLICT ABORT` (SQLite's default).
    case abort
    /// `ON CONFLICT FAIL`.
    case fail
    /// `ON CONFLICT IGNORE`.
    case ignore
    /// `ON CONFLICT REPLACE`.
    case replace

    var definition: TableDefinition.Conflict {
        switch self {
        case .rollback: return .rollback
        case .abort: return .abort
        case .fail: return .fail
        case .ignore: return .ignore
        case .replace: return .replace
        }
    }
}

/// One constraint of a column, as SQLiteORM-Swift declares it.
///
/// ```swift
/// primaryKey().desc().onConflict().replace().constraint
///     == .primaryKey(order: .desc, conflictClause: .replace, autoincrement: false)
/// ```
public enum ColumnConstraint: Sendable, Equatable {
    /// `PRIMARY KEY [ASC|DESC] [ON CONFLICT ...] [AUTOINCREMENT]`.
    case primaryKey(order: Order?, conflictClause: ConflictClause?, autoincrement: Bool)
    /// `NOT NULL [ON CONFLICT ...]`.
    case notNull(conflictClause: ConflictClause?)
    /// `UNIQUE [ON CONFLICT ...]`.
    case unique(conflictClause: ConflictClause?)
    /// `DEFAULT value` (Strata's addition: SQLite fills it in when an insert omits the column).
    case defaultValue(BindingValue)

    /// The constraint in the table definition; a primary key only when it is declared inline
    /// (a single-column key).
    func definition(inlinePrimaryKey: Bool) -> TableDefinition.ColumnConstraint? {
        switch self {
        case .primaryKey(let order, let conflictClause, let autoincrement):
            guard inlinePrimaryKey else { return nil }
            return .primaryKey(order: order?.definition, onConflict: conflictClause?.definition, autoincrement: autoincrement)
        case .notNull(let conflictClause):
            return .notNull(onConflict: conflictClause?.definition)
        case .unique(let conflictClause):
            return .unique(onConflict: conflictClause?.definition)
        case .defaultValue(let value):
            return .defaultValue(value)
        }
    }
}

/// Something that yields a column constraint: `primaryKey()`, `notNull()`, `unique()`, ...
public protocol ConstraintBuilder {
    /// The constraint to declare.
    var constraint: ColumnConstraint { get }
}

// MARK: - ON CONFLICT

/// The `ON CONFLICT` choices after `.onConflict()`: each gives the constraint with that clause.
/// (`PrimaryKeyBuilder.OnConflictClauseBuilder`, `NotNullBuilder.OnConflictClauseBuilder` and
/// `UniqueBuilder.OnConflictClauseBuilder` are names for it.)
public class ConflictClauseChoices<Result: ConstraintBuilder> {
    private let make: (ConflictClause) -> Result

    init(_ make: @escaping (ConflictClause) -> Result) { self.make = make }

    /// `ON CONFLICT ROLLBACK`.
    public func rollback() -> Result { make(.rollback) }
    /// `ON CONFLICT ABORT`.
    public func abort() -> Result { make(.abort) }
    /// `ON CONFLICT FAIL`.
    public func fail() -> Result { make(.fail) }
    /// `ON CONFLICT IGNORE`.
    public func ignore() -> Result { make(.ignore) }
    /// `ON CONFLICT REPLACE`.
    public func replace() -> Result { make(.replace) }
}

// MARK: - PRIMARY KEY

/// `primaryKey()`: then `.asc()`/`.desc()`, `.onConflict()…`, `.autoincrement()`.
public class PrimaryKeyBuilder: ConstraintBuilder {
    init() {}

    /// `PRIMARY KEY`.
    public var constraint: ColumnConstraint { .primaryKey(order: nil, conflictClause: nil, autoincrement: false) }

    /// `PRIMARY KEY AUTOINCREMENT`: ids are never reused (an INTEGER key only).
    public func autoincrement() -> PrimaryKeyWithAllBuilder {
        PrimaryKeyWithAllBuilder(conflictClause: nil, order: nil, autoincrement: true)
    }

    /// `PRIMARY KEY ASC`.
    public func asc() -> PrimaryKeyBuilderWithOrder { PrimaryKeyBuilderWithOrder(order: .asc) }

    /// `PRIMARY KEY DESC`.
    public func desc() -> PrimaryKeyBuilderWithOrder { PrimaryKeyBuilderWithOrder(order: .desc) }

    /// The `ON CONFLICT` choices of a primary key.
    public func onConflict() -> OnConflictClauseBuilder {
        OnConflictClauseBuilder { PrimaryKeyWithConflictClauseBuilder(order: nil, conflictClause: $0) }
    }

    /// The `ON CONFLICT` choices of a primary key (with its order, if any).
    public typealias OnConflictClauseBuilder = ConflictClauseChoices<PrimaryKeyWithConflictClauseBuilder>
}

/// `PRIMARY KEY ASC` or `DESC`, before an optional conflict clause and `AUTOINCREMENT`.
public class PrimaryKeyBuilderWithOrder: ConstraintBuilder {
    let order: Order

    init(order: Order) { self.order = order }

    /// `PRIMARY KEY ASC|DESC`.
    public var constraint: ColumnConstraint { .primaryKey(order: order, conflictClause: nil, autoincrement: false) }

    /// The `ON CONFLICT` choices.
    public func onConflict() -> PrimaryKeyBuilder.OnConflictClauseBuilder {
        PrimaryKeyBuilder.OnConflictClauseBuilder { [order] in PrimaryKeyWithConflictClauseBuilder(order: order, conflictClause: $0) }
    }

    /// Adds `AUTOINCREMENT`.
    public func autoincrement() -> PrimaryKeyWithAllBuilder {
        PrimaryKeyWithAllBuilder(conflictClause: nil, order: order, autoincrement: true)
    }
}

/// `PRIMARY KEY` with a conflict clause, before an optional `AUTOINCREMENT`.
public class PrimaryKeyWithConflictClauseBuilder: ConstraintBuilder {
    let order: Order?
    let conflictClause: ConflictClause

    init(order: Order?, conflictClause: ConflictClause) {
        self.order = order
        self.conflictClause = conflictClause
    }

    /// `PRIMARY KEY [order] ON CONFLICT ...`.
    public var constraint: ColumnConstraint { .primaryKey(order: order, conflictClause: conflictClause, autoincrement: false) }

    /// Adds `AUTOINCREMENT`.
    public func autoincrement() -> PrimaryKeyWithAllBuilder {
        PrimaryKeyWithAllBuilder(conflictClause: conflictClause, order: order, autoincrement: true)
    }
}

/// A primary key with everything it can have.
public class PrimaryKeyWithAllBuilder: ConstraintBuilder {
    let conflictClause: ConflictClause?
    let order: Order?
    let autoincrement: Bool

    init(conflictClause: ConflictClause?, order: Order?, autoincrement: Bool) {
        self.conflictClause = conflictClause
        self.order = order
        self.autoincrement = autoincrement
    }

    /// The whole `PRIMARY KEY` constraint.
    public var constraint: ColumnConstraint { .primaryKey(order: order, conflictClause: conflictClause, autoincrement: autoincrement) }
}

// MARK: - NOT NULL and UNIQUE

/// A constraint with nothing left to chain.
public class CompleteConstraintBuilder: ConstraintBuilder {
    /// The constraint.
    public let constraint: ColumnConstraint

    init(_ constraint: ColumnConstraint) { self.constraint = constraint }
}

/// `NOT NULL ON CONFLICT ...`.
public final class NotNullWithConflictClauseBuilder: CompleteConstraintBuilder {}

/// `UNIQUE ON CONFLICT ...`.
public final class UniqueWithConflictClauseBuilder: CompleteConstraintBuilder {}

/// `notNull()`: then an optional `.onConflict()…`.
public class NotNullBuilder: ConstraintBuilder {
    init() {}
    /// `NOT NULL`.
    public var constraint: ColumnConstraint { .notNull(conflictClause: nil) }
    /// The `ON CONFLICT` choices of `NOT NULL`.
    public typealias OnConflictClauseBuilder = ConflictClauseChoices<NotNullWithConflictClauseBuilder>
    /// The `ON CONFLICT` choices of `NOT NULL`.
    public func onConflict() -> OnConflictClauseBuilder { .init { NotNullWithConflictClauseBuilder(.notNull(conflictClause: $0)) } }
}

/// `unique()`: then an optional `.onConflict()…`.
public class UniqueBuilder: ConstraintBuilder {
    init() {}
    /// `UNIQUE`.
    public var constraint: ColumnConstraint { .unique(conflictClause: nil) }
    /// The `ON CONFLICT` choices of `UNIQUE`.
    public typealias OnConflictClauseBuilder = ConflictClauseChoices<UniqueWithConflictClauseBuilder>
    /// The `ON CONFLICT` choices of `UNIQUE`.
    public func onConflict() -> OnConflictClauseBuilder { .init { UniqueWithConflictClauseBuilder(.unique(conflictClause: $0)) } }
}

// MARK: - DEFAULT

/// `DEFAULT value`, which SQLite fills in when an insert omits the column.
public struct DefaultValueConstraintBuilder: ConstraintBuilder {
    let value: BindingValue

    /// `DEFAULT value`.
    public var constraint: ColumnConstraint { .defaultValue(value) }
}

/// Declares the column the table's primary key (several such columns form a composite key).
///
/// ```swift
/// Column(name: "id", keyPath: \User.id, constraints: primaryKey().autoincrement(), notNull())
/// ```
public func primaryKey() -> PrimaryKeyBuilder { PrimaryKeyBuilder() }

/// Declares the column `NOT NULL`.
public func notNull() -> NotNullBuilder { NotNullBuilder() }

/// Declares the column `UNIQUE`.
public func unique() -> UniqueBuilder { UniqueBuilder() }

/// Declares the column's `DEFAULT`, written as a literal (DDL takes no parameters): numbers as
/// numbers, text with its quotes doubled, blobs in hex.
///
/// ```swift
/// Column(name: "score", keyPath: \User.score, constraints: notNull(), defaultValue(0))
/// ```
public func defaultValue<V: Strata.Bindable>(_ value: V) -> DefaultValueConstraintBuilder {
    DefaultValueConstraintBuilder(value: value.bindingValue)
}
