import StrataKernel
import Foundation

/// An index as a schema version declares it.
public struct SchemaIndex: Hashable, Sendable {
    /// The index's name, unquoted.
    public var name: String
    /// The indexed table's name, unquoted.
    public var tableName: String
    /// The indexed columns, unquoted.
    public var columns: [String]
    /// The `WHERE` clause of a partial index, as an SQL fragment.
    public var partialExpr: String?
    /// Whether the index is `UNIQUE`.
    public var unique: Bool

    /// Creates an index declaration.
    public init(name: String, tableName: String, columns: [String], partialExpr: String? = nil, unique: Bool = false) {
        self.name = name
        self.tableName = tableName
        self.columns = columns
        self.partialExpr = partialExpr
        self.unique = unique
    }

    /// The `CREATE INDEX` statement, identifiers quoted.
    public var createSQL: String {
        var sql =
            "CREATE \(unique ? "UNIQUE " : "")INDEX \(quoteIdentifier(name)) ON \(quoteIdentifier(tableName)) ("
            + columns.map(quoteIdentifier).joined(separator: ", ") + ")"
        if let partialExpr { sql += " WHERE \(partialExpr)" }
        return sql
    }
}
