import StrataKernel
import Foundation

/// A column of a table, as `PRAGMA table_info` reports it.
public struct ColumnInfo: Hashable, Sendable {
    /// The column's position in the table, from 0.
    public let index: Int
    /// The column's name.
    public let name: String
    /// The declared type as written (`TEXT`, `VARCHAR(20)`, ...); empty when none was declared.
    public let type: String
    /// Whether the column is `NOT NULL`.
    public let notNull: Bool
    /// The `DEFAULT` expression as SQL text (`'x'`, `0`, `CURRENT_TIMESTAMP`); nil when none.
    public let defaultValue: String?
    /// The column's position in the primary key, from 1; 0 when it is not part of it.
    public let primaryKeyIndex: Int

    /// Creates a column record.
    public init(index: Int, name: String, type: String, notNull: Bool, defaultValue: String?, primaryKeyIndex: Int) {
        self.index = index
        self.name = name
        self.type = type
        self.notNull = notNull
        self.defaultValue = defaultValue
        self.primaryKeyIndex = primaryKeyIndex
    }

    /// Whether the column is part of the primary key.
    public var isPrimaryKey: Bool { primaryKeyIndex > 0 }
}
