import StrataKernel
import Foundation

/// An index of a table, as `PRAGMA index_list` and `PRAGMA index_xinfo` report it.
///
/// ```swift
/// let index = try db.tableInfoForTableNamed("contacts")?.indexNamed("contacts_email")
/// print(index?.isUnique, index?.columnNames) // Optional(false) Optional(["email"])
/// ```
public struct IndexInfo: Hashable, Sendable {
    /// The index's name (`sqlite_autoindex_...` for automatic ones).
    public let name: String
    /// The index's position in `PRAGMA index_list`.
    public let sequenceNumber: Int
    /// Whether the index is `UNIQUE`.
    public let isUnique: Bool
    /// Why the index exists.
    public let origin: IndexOrigin
    /// Whether the index has a `WHERE` clause.
    public let isPartial: Bool
    /// The key columns, in index order.
    public let columns: [IndexedColumnInfo]

    /// Creates an index record.
    public init(name: String, sequenceNumber: Int, isUnique: Bool, origin: IndexOrigin, isPartial: Bool, columns: [IndexedColumnInfo]) {
        self.name = name
        self.sequenceNumber = sequenceNumber
        self.isUnique = isUnique
        self.origin = origin
        self.isPartial = isPartial
        self.columns = columns
    }

    /// The names of the key columns; expressions are left out.
    public var columnNames: [String] { columns.compactMap(\.name) }
}
