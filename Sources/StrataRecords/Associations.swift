import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// Associations name how two records relate (a foreign key column on one of them, the other's
// primary key), so queries can load related records without hand-written joins. They hold column
// names only, so they are Sendable and can be `static let` on the record.

/// The column a relation's foreign key points at: the record's primary key, or its rowid.
private func referencedKey<R: Record>(of record: R.Type) -> String {
    R.primaryKeyIndex.map { R.recordColumns[$0].name } ?? "rowid"
}

/// `Origin` has many `Destination`s, whose `foreignKey` column holds the origin's key.
///
/// ```swift
/// extension Author { static let books = hasMany(Book.self, using: \.authorId) }
/// let shelves: [(Author, [Book])] = try Author.including(all: Author.books).fetchAll(db)
/// ```
public struct HasMany<Origin: Record, Destination: Record>: Sendable {
    /// The destination's column that holds the origin's key.
    public let foreignKey: String
}

/// `Origin` has at most one `Destination`, whose `foreignKey` column holds the origin's key.
public struct HasOne<Origin: Record, Destination: Record>: Sendable {
    /// The destination's column that holds the origin's key.
    public let foreignKey: String
}

/// `Origin` belongs to a `Destination`: the origin's `foreignKey` column holds the destination's key.
///
/// ```swift
/// extension Book { static let author = belongsTo(Author.self, using: \.authorId) }
/// let credited: [(Book, Author)] = try Book.including(required: Book.author).fetchAll(db)
/// ```
public struct BelongsTo<Origin: Record, Destination: Record>: Sendable {
    /// The origin's column that holds the destination's key.
    public let foreignKey: String
}

/// An association that joins at most one destination to each origin.
public protocol ToOneAssociation: Sendable {
    /// The record the association is declared on.
    associatedtype Origin: Record
    /// The record it leads to.
    associatedtype Destination: Record
    /// The join condition, with the origin's and destination's columns qualified as given.
    func condition(originQualifier: String, destinationQualifier: String) -> RecordPredicate
}

extension BelongsTo: ToOneAssociation {
    /// `origin.foreignKey = destination.key`.
    public func condition(originQualifier: String, destinationQualifier: String) -> RecordPredicate {
        columnsEqual(.column(foreignKey, table: originQualifier), .column(referencedKey(of: Destination.self), table: destinationQualifier))
    }
}

extension HasOne: ToOneAssociation {
    /// `destination.foreignKey = origin.key`.
    public func condition(originQualifier: String, destinationQualifier: String) -> RecordPredicate {
        columnsEqual(.column(referencedKey(of: Origin.self), table: originQualifier), .column(foreignKey, table: destinationQualifier))
    }
}

private func columnsEqual(_ lhs: SQLFragment, _ rhs: SQLFragment) -> RecordPredicate {
    RecordPredicate(lhs + " = " + rhs)
}

extension Record {
    /// Declares that this record has many `destination`s, whose `foreignKey` holds this record's
    /// primary key (its rowid when it declares none).
    public static func hasMany<Destination: Record, Key>(
        _ destination: Destination.Type, using foreignKey: KeyPath<Destination.Columns, TypedColumn<Key>>
    ) -> HasMany<Self, Destination> {
        HasMany(foreignKey: Destination.columns[keyPath: foreignKey].name)
    }

    /// Declares that this record has at most one `destination`, whose `foreignKey` holds this
    /// record's primary key.
    public static func hasOne<Destination: Record, Key>(
        _ destination: Destination.Type, using foreignKey: KeyPath<Destination.Columns, TypedColumn<Key>>
    ) -> HasOne<Self, Destination> {
        HasOne(foreignKey: Destination.columns[keyPath: foreignKey].name)
    }

    /// Declares that this record belongs to a `destination`, whose primary key this record's
    /// `foreignKey` holds.
    public static func belongsTo<Destination: Record, Key>(
        _ destination: Destination.Type, using foreignKey: KeyPath<Columns, TypedColumn<Key>>
    ) -> BelongsTo<Self, Destination> {
        BelongsTo(foreignKey: columns[keyPath: foreignKey].name)
    }

    /// Every record with its associated one, dropping records that have none (an inner join).
    public static func including<Association: ToOneAssociation, Destination>(required association: Association) -> JoinQuery<Self, Destination>
    where Association.Origin == Self, Association.Destination == Destination {
        all().including(required: association)
    }

    /// Every record with its associated one, or nil where it has none (a left join).
    public static func including<Association: ToOneAssociation, Destination>(optional association: Association) -> JoinQuery<Self, Destination?>
    where Association.Origin == Self, Association.Destination == Destination {
        all().including(optional: association)
    }

    /// Every record with all its associated records, loaded with one more query (never one per
    /// record).
    ///
    /// ```swift
    /// let shelves: [(Author, [Book])] = try Author.including(all: Author.books).order(by: \.name).fetchAll(db)
    /// ```
    public static func including<Destination: Record>(all association: HasMany<Self, Destination>) -> IncludingAllQuery<Self, Destination> {
        all().including(all: association)
    }
}

extension RecordQuery {
    /// The query's records with their associated one, dropping those that have none.
    public func including<Association: ToOneAssociation, Destination>(required association: Association) -> JoinQuery<R, Destination>
    where Association.Origin == R, Association.Destination == Destination {
        JoinQuery(base: queryParts, qualifier: qualifier, kind: "JOIN", alias: nil) { _, _, origin, destination in
            association.condition(originQualifier: origin, destinationQualifier: destination)
        }
    }

    /// The query's records with their associated one, or nil where they have none.
    public func including<Association: ToOneAssociation, Destination>(optional association: Association) -> JoinQuery<R, Destination?>
    where Association.Origin == R, Association.Destination == Destination {
        JoinQuery(base: queryParts, qualifier: qualifier, kind: "LEFT JOIN", alias: nil) { _, _, origin, destination in
            association.condition(originQualifier: origin, destinationQualifier: destination)
        }
    }

    /// The query's records with all their associated records.
    public func including<Destination: Record>(all association: HasMany<R, Destination>) -> IncludingAllQuery<R, Destination> {
        IncludingAllQuery(parents: self, foreignKey: association.foreignKey)
    }
}

/// Records with all their children, in two statements: the records, then every child of them.
public struct IncludingAllQuery<Parent: Record, Child: Record>: Sendable {
    @usableFromInline var parents: RecordQuery<Parent>
    @usableFromInline let foreignKey: String

    /// Narrows the parents.
    public func `where`(_ condition: (Parent.Columns) -> RecordPredicate) -> IncludingAllQuery {
        var query = self
        query.parents = parents.where(condition)
        return query
    }

    /// Orders the parents by a column.
    public func order<V>(by column: KeyPath<Parent.Columns, TypedColumn<V>>, _ direction: SortDirection = .ascending) -> IncludingAllQuery {
        var query = self
        query.parents = parents.order(by: column, direction)
        return query
    }

    /// Orders the parents.
    public func order<Term: OrderingTerm>(_ term: (Parent.Columns) -> Term) -> IncludingAllQuery {
        var query = self
        query.parents = parents.order(term)
        return query
    }

    /// At most `count` parents, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> IncludingAllQuery {
        var query = self
        query.parents = parents.limit(count, offset: offset)
        return query
    }

    /// Each parent with its children (in the child table's order), parents in the query's order.
    /// - Throws: `SQLiteError`; ``RecordError`` for a row that does not map.
    @inlinable
    public func fetchAll(_ db: Connection) throws -> [(Parent, [Child])] {
        // Inlined into the caller, so the row loops and the grouping are specialized for the two
        // record types (unspecialized, each child's append looked up metadata); the SQL is built
        // out of line, once per query. Both statements read one snapshot: a commit between them
        // cannot leave a child without its parent, or a parent without its new children.
        try runningTypedQuery(of: [Parent.self, Child.self]) {
            try withSnapshot(db) { try fetchBoth(db) }
        }
    }

    /// The first parent with its children, or nil.
    public func fetchOne(_ db: Connection) throws -> (Parent, [Child])? {
        try limit(1, offset: parents.queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// Runs `body` in the current transaction, or in a savepoint of its own.
    @usableFromInline
    func withSnapshot<T>(_ db: Connection, _ body: () throws -> T) throws -> T {
        if db.isInTransaction { return try body() }
        return try db.strataSavepoint(named: "strata_including_all") { try body() }
    }

    @inlinable
    func fetchBoth(_ db: Connection) throws -> [(Parent, [Child])] {
        let keyIndex = Int32(Parent.recordColumns.count)
        let found: [(Parent, BindingValue)] = try db.query(literal: parentsStatement()) { row in
            (try Parent(columnOrderedRow: row), associationKey(row, keyIndex))
        }
        guard !found.isEmpty else { return [] }
        let childKeyIndex = Int32(Child.recordColumns.count)
        let (parentKeys, statements) = childStatements(for: found.lazy.map(\.1))
        var children: [BindingValue: [Child]] = [:]
        children.reserveCapacity(parentKeys.count)
        let parentClasses = parentKeys.reduce(0) { $0 | $1.storageClassBit }
        var otherClass = false
        for statement in statements {
            _ =
                try db.query(literal: statement) { row -> Void in
                    let child = try Child(columnOrderedRow: row)
                    let key = associationKey(row, childKeyIndex)
                    otherClass = otherClass || key.storageClassBit & parentClasses == 0
                    children[key, default: []].append(child)
                } as [Void]
        }
        if otherClass {
            children = regroupedByValue(children, parentKeys: parentKeys)
        }
        return found.map { parent, key in (parent, children[key] ?? []) }
    }

    /// Children whose key SQLite matched to a parent's in another storage class (a TEXT foreign
    /// key `'1'` for an INTEGER key 1: the column's affinity converts for the comparison), moved
    /// under that parent's key, after the children that matched it exactly.
    @usableFromInline
    func regroupedByValue(_ children: [BindingValue: [Child]], parentKeys: Set<BindingValue>) -> [BindingValue: [Child]] {
        var byValue: [BindingValue: BindingValue] = [:]
        for key in parentKeys { byValue[key.comparedByValue] = byValue[key.comparedByValue] ?? key }
        var regrouped: [BindingValue: [Child]] = [:]
        for (key, group) in children where parentKeys.contains(key) { regrouped[key, default: []] += group }
        for (key, group) in children where !parentKeys.contains(key) {
            guard let parent = byValue[key.comparedByValue] else { continue }
            regrouped[parent, default: []] += group
        }
        return regrouped
    }

    /// The parents' SELECT, their primary key (or rowid) last.
    @usableFromInline
    func parentsStatement() -> SQLFragment {
        let key = SQLFragment.column(referencedKey(of: Parent.self), table: parents.qualifier)
        return parents.queryParts.select("\(parents.selectList), \(key)")
    }

    /// The children's SELECTs, their foreign key last, for exactly the parents read: keys bound
    /// (running the parents' query again as a subquery could pick other rows, a limit without a
    /// total order), in batches under every SQLite's limit of bound values (999 before 3.32).
    /// Children come in the child table's order within each batch.
    @usableFromInline
    func childStatements(for parentKeys: some Sequence<BindingValue>) -> (keys: Set<BindingValue>, [SQLFragment]) {
        var keys: [BindingValue] = []
        var seen: Set<BindingValue> = []
        for key in parentKeys where key != .null && seen.insert(key).inserted { keys.append(key) }
        let childKey = SQLFragment.column(foreignKey, table: Child.tableName)
        let childList: SQLFragment = "\(Child.qualifiedSelectList(Child.tableName)), \(childKey)"
        let batchSize = 500
        let statements = stride(from: 0, to: keys.count, by: batchSize).map { start in
            StatementClauses(predicate: childKey.membership(inBound: keys[start..<min(start + batchSize, keys.count)]))
                .select(childList, from: .identifier(Child.tableName))
        }
        return (seen, statements)
    }
}

/// A key read for matching parents and children, in its own storage class (the kernel's reader),
/// so a parent's integer key meets its children's integer foreign key.
@inlinable
func associationKey(_ row: Row, _ index: Int32) -> BindingValue {
    guard let value = sqlite3_column_value(row.statementHandle, index) else { return .null }
    return BindingValue(reading: value)
}

extension BindingValue {
    /// One bit per storage class.
    @usableFromInline
    var storageClassBit: UInt8 {
        switch self {
        case .null: return 1
        case .integer: return 2
        case .real: return 4
        case .text: return 8
        case .blob: return 16
        }
    }

    /// The value as SQLite's affinity conversions compare it: text that reads as a number, and a
    /// real with an integer's value, become that number. For matching keys read in another
    /// storage class than the one they were compared in.
    @usableFromInline
    var comparedByValue: BindingValue {
        switch self {
        case .text(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let integer = Int64(trimmed) { return .integer(integer) }
            if let real = Double(trimmed), real.isFinite { return BindingValue.real(real).comparedByValue }
            return self
        case .real(let real):
            if let integer = Int64(exactly: real) { return .integer(integer) }
            return self
        default:
            return self
        }
    }
}
