import StrataKernel
import Foundation

/// One key column of an index, as `PRAGMA index_xinfo` reports it.
public struct IndexedColumnInfo: Hashable, Sendable {
    /// The position of the column in the index (`seqno`).
    public let indexSequenceNumber: Int
    /// The column's position in the table (`cid`): -1 for the rowid, -2 for an expression.
    public let tableColumnIndex: Int
    /// The column's name; nil for an expression or the rowid.
    public let name: String?
    /// Whether the index sorts this column in descending order.
    public let isDescending: Bool
    /// The collating sequence the index uses for this column (`BINARY`, `NOCASE`, ...).
    public let collation: String?

    /// Creates an indexed column record.
    public init(indexSequenceNumber: Int, tableColumnIndex: Int, name: String?, isDescending: Bool, collation: String?) {
        self.indexSequenceNumber = indexSequenceNumber
        self.tableColumnIndex = tableColumnIndex
        self.name = name
        self.isDescending = isDescending
        self.collation = collation
    }
}
