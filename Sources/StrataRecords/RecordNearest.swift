import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// Exact k-nearest-neighbour search over a record's `FloatVector` column: one filtered SELECT,
// each row's vector BLOB compared in place with the query vector, a top-k heap, and a record
// decoded only for a row that enters the heap.

/// The `k` records nearest a vector, best first, with their distances: an exact scan (every row
/// the query's conditions keep is compared), so the answer is the true top `k`.
///
/// ```swift
/// let hits = try Doc.where { $0.lang == "en" }
///     .nearest(to: queryVector, by: \.embedding, metric: .cosine, k: 10)
///     .fetchAll(db)                                 // [(record: Doc, distance: Double)]
/// ```
/// Rows whose vector is NULL are skipped. Equal distances are ordered by rowid, ascending, so the
/// result does not depend on the order SQLite returns rows in. Build it with
/// `RecordQuery.nearest(to:by:metric:k:)` or `Record.nearest(to:by:metric:k:)`.
public struct NearestQuery<R: Record>: Sendable {
    /// The query whose rows are ranked: its conditions apply, its order is replaced by distance.
    let base: RecordQuery<R>
    let column: TypedColumn<FloatVector?>
    /// The vector distances are measured from.
    public let target: FloatVector
    /// How distance is measured.
    public let metric: VectorMetric
    /// How many records at most.
    public let k: Int

    /// Narrows the rows ranked (conditions given several times must all hold).
    public func `where`(_ condition: (R.Columns) -> RecordPredicate) -> NearestQuery {
        NearestQuery(base: base.where(condition), column: column, target: target, metric: metric, k: k)
    }

    /// The SELECT the scan runs: the record's columns, then the vector and the rowid.
    var selectFragment: SQLFragment {
        let list = [base.selectList, column.fragment, SQLFragment.column("rowid", table: base.qualifier)]
        return base.queryParts.select(list.joined(separator: ", "), ordering: false, limiting: false)
    }

    /// The SELECT the scan runs, with `?` for its values (for logging and tests).
    public var sql: String { selectFragment.sql }

    /// The nearest records, nearest first, with their distances.
    /// - Throws: `VectorError.wrongDimension`,
    ///   `VectorError.malformedBlob` or `VectorError.nonFinite` for a
    ///   row whose vector is not one of the target's dimension; ``RecordError`` for a vector that
    ///   is not a BLOB or a row that does not map; ``RecordQueryError`` for a negative `k`, or a
    ///   query with a limit, group or having (`k` is the limit); `SQLiteError`.
    public func fetchAll(_ db: Connection) throws -> [(record: R, distance: Double)] {
        try rankedEntries(db).map { (record: $0.record, distance: $0.distance) }
    }

    /// The nearest rows with their rowids, nearest first (what hybrid search fuses by rowid).
    func rankedEntries(_ db: Connection) throws -> [NearestHeap<R>.Entry] {
        guard k >= 0 else { throw RecordQueryError.unsupported("nearest(to:by:metric:k:) on \(R.self) takes k ≥ 0, not \(k)") }
        let parts = base.queryParts
        guard parts.limitCount == nil, parts.groups.isEmpty, parts.having == nil else {
            throw RecordQueryError.unsupported("nearest(to:by:metric:k:) on \(R.self) takes a query without limit, group or having: k is its limit")
        }
        guard k > 0 else { return [] }
        let statement = selectFragment
        let vectorIndex = Int32(R.recordColumns.count)
        let rowIDIndex = vectorIndex + 1
        let columnName = column.name
        var heap = NearestHeap<R>(capacity: k)
        try target.values.withUnsafeBytes { targetBytes in
            guard let targetBase = targetBytes.baseAddress else { throw VectorError.empty }
            let dimensions = target.dimensions
            let _: [Void] = try runningTypedQuery(of: [R.self]) {
                try db.query(literal: statement) { row in
                    let handle = row.statementHandle
                    let type = sqlite3_column_type(handle, vectorIndex)
                    if type == SQLITE_NULL { return }
                    guard type == SQLITE_BLOB else {
                        throw recordReadError(handle, vectorIndex, column: columnName, record: "\(R.self)", expected: FloatVector.self, optional: true)
                            ?? RecordError.nullInNonOptional(column: columnName, record: "\(R.self)")
                    }
                    // Read the BLOB in place: the bytes stay valid until the row is stepped past.
                    let bytes = Int(sqlite3_column_bytes(handle, vectorIndex))
                    let rowDimensions = try FloatVector.dimensions(ofBlobBytes: bytes)
                    guard rowDimensions == dimensions else { throw VectorError.wrongDimension(expected: dimensions, actual: rowDimensions) }
                    guard let pointer = sqlite3_column_blob(handle, vectorIndex) else {
                        throw VectorError.malformedBlob(bytes: bytes, layout: .float32)
                    }
                    let distance = try VectorKernels.distance(metric, targetBase, pointer, dimensions: dimensions)
                    let rowID = sqlite3_column_int64(handle, rowIDIndex)
                    if heap.admits(distance: distance, rowID: rowID) {
                        heap.insert(NearestHeap.Entry(distance: distance, rowID: rowID, record: try R(columnOrderedRow: row)))
                    }
                }
            }
        }
        return heap.sortedEntries()
    }
}

extension RecordQuery {
    /// The `k` records nearest `vector` by the `FloatVector` column `column`, among the rows this
    /// query's conditions keep (see ``NearestQuery``).
    ///
    /// ```swift
    /// try Doc.where { $0.lang == "en" }.nearest(to: query, by: \.embedding, metric: .cosine, k: 10).fetchAll(db)
    /// ```
    public func nearest(to vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector>>,
                        metric: VectorMetric = .l2, k: Int) -> NearestQuery<R> {
        let typed = columns[keyPath: column]
        let optional = TypedColumn<FloatVector?>(typed.name, qualifier: typed.qualifier, record: typed.record)
        return NearestQuery(base: self, column: optional, target: vector, metric: metric, k: k)
    }

    /// The same, for an optional column: rows whose vector is NULL are skipped.
    public func nearest(to vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector?>>,
                        metric: VectorMetric = .l2, k: Int) -> NearestQuery<R> {
        NearestQuery(base: self, column: columns[keyPath: column], target: vector, metric: metric, k: k)
    }
}

extension Record {
    /// The `k` records nearest `vector` by the `FloatVector` column `column` (see ``NearestQuery``).
    public static func nearest(to vector: FloatVector, by column: KeyPath<Columns, TypedColumn<FloatVector>>,
                               metric: VectorMetric = .l2, k: Int) -> NearestQuery<Self> {
        all().nearest(to: vector, by: column, metric: metric, k: k)
    }

    /// The same, for an optional column: rows whose vector is NULL are skipped.
    public static func nearest(to vector: FloatVector, by column: KeyPath<Columns, TypedColumn<FloatVector?>>,
                               metric: VectorMetric = .l2, k: Int) -> NearestQuery<Self> {
        all().nearest(to: vector, by: column, metric: metric, k: k)
    }
}

/// The best `capacity` entries seen so far: a max-heap on (distance, rowid), so the worst kept
/// entry is at the root and a row is compared with it once.
struct NearestHeap<R> {
    struct Entry {
        let distance: Double
        let rowID: Int64
        let record: R

        /// Whether `self` ranks after `other`: farther, or as far with a larger rowid.
        func ranksAfter(_ other: Entry) -> Bool {
            (distance, rowID) > (other.distance, other.rowID)
        }
    }

    let capacity: Int
    private(set) var entries: [Entry] = []

    init(capacity: Int) {
        self.capacity = capacity
        entries.reserveCapacity(min(capacity, 1 << 16))
    }

    /// Whether an entry at (`distance`, `rowID`) would be kept.
    func admits(distance: Double, rowID: Int64) -> Bool {
        guard entries.count == capacity, let worst = entries.first else { return true }
        return (distance, rowID) < (worst.distance, worst.rowID)
    }

    /// Keeps `entry`, dropping the worst when full; call only when ``admits(distance:rowID:)``.
    mutating func insert(_ entry: Entry) {
        if entries.count < capacity {
            entries.append(entry)
            var child = entries.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard entries[child].ranksAfter(entries[parent]) else { break }
                entries.swapAt(child, parent)
                child = parent
            }
        } else {
            entries[0] = entry
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < entries.count, entries[left].ranksAfter(entries[largest]) { largest = left }
                if right < entries.count, entries[right].ranksAfter(entries[largest]) { largest = right }
                guard largest != parent else { break }
                entries.swapAt(parent, largest)
                parent = largest
            }
        }
    }

    /// The kept entries, nearest first (ties by rowid ascending).
    func sortedEntries() -> [Entry] {
        entries.sorted { $1.ranksAfter($0) }
    }
}
