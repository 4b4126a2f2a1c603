import StrataKernel
import Foundation

/// One row reported by `PRAGMA foreign_key_check`: a child row whose parent row is missing.
///
/// ```swift
/// for violation in try connection.foreignKeyViolations() {
///     print(violation) // "pets" row 3 has no parent in "owners" (foreign key 0)
/// }
/// ```
/// See <https://www.sqlite.org/pragma.html#pragma_foreign_key_check>.
public struct ForeignKeyViolation: Hashable, Sendable, CustomStringConvertible {
    /// The table holding the row that violates the constraint.
    public let table: String
    /// The rowid of that row; nil for a `WITHOUT ROWID` table.
    public let rowID: Int64?
    /// The table the foreign key refers to.
    public let parentTable: String
    /// The index of the foreign key in `PRAGMA foreign_key_list(table)`.
    public let foreignKeyIndex: Int

    /// Creates a violation record.
    public init(table: String, rowID: Int64?, parentTable: String, foreignKeyIndex: Int) {
        self.table = table
        self.rowID = rowID
        self.parentTable = parentTable
        self.foreignKeyIndex = foreignKeyIndex
    }

    /// The violating table and row and the parent table it lacks a row in, for messages.
    public var description: String {
        let row = rowID.map { "row \($0)" } ?? "a row"
        return "\"\(table)\" \(row) has no parent in \"\(parentTable)\" (foreign key \(foreignKeyIndex))"
    }
}

extension Connection {
    /// The foreign key violations in `table` (as the child), or in the whole database when nil.
    ///
    /// - Throws: `SQLiteError` if the pragma fails (for example, no such table).
    public func foreignKeyViolations(inTable table: String? = nil) throws -> [ForeignKeyViolation] {
        let sql = table.map { "PRAGMA foreign_key_check(\(quoteIdentifier($0)))" } ?? "PRAGMA foreign_key_check"
        let statement = try prepare(sql)
        return try statement.query { (row: Row) -> ForeignKeyViolation in
            let table: String = row[0] ?? ""
            let rowID: Int64? = row[1]
            let parent: String = row[2] ?? ""
            let index: Int = row[3] ?? 0
            return ForeignKeyViolation(table: table, rowID: rowID, parentTable: parent, foreignKeyIndex: index)
        }
    }
}
