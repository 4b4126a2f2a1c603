import StrataKernel
import Foundation

/// A column's declared type in the schema DSL (Squeal's `ColumnType`).
///
/// The cases keep Squeal's capitalized spelling (`.Text`, `.Integer`, ...) so Squeal code ports
/// unchanged. See <https://www.sqlite.org/datatype3.html>.
public enum SchemaColumnType: String, Hashable, Sendable, CaseIterable {
    /// `TEXT` affinity.
    case Text = "TEXT"
    /// `INTEGER` affinity.
    case Integer = "INTEGER"
    /// `REAL` affinity.
    case Real = "REAL"
    /// `BLOB` (no affinity).
    case Blob = "BLOB"

    /// The type as it appears in `CREATE TABLE`.
    public var sqlRepresentation: String { rawValue }
}
