import StrataKernel
import Foundation

/// What the one type mapping declares for a Swift type whose binding is none of SQLite's four
/// storage classes (a custom `Binding` with an unusual `BindingType`). The seeds differ, and their
/// users see it in `sqlite_master`: SQLiteORM-Swift's tables declare `BLOB`, Strata's records
/// declare no type (the column takes whatever is stored, with no affinity).
@usableFromInline
package enum UnmappedSQLType: Sendable {
    /// Declare `BLOB`.
    case blob
    /// Declare no type.
    case none
}

/// The one Swift type → SQL type mapping: the type a column of `T` declares, from the storage
/// class `T` binds as: `INTEGER` (every integer width, `Bool`), `REAL` (`Float`, `Double`),
/// `TEXT` (`String`, `Date`, `URL`), `BLOB` (`Data`, Codable bindings). An empty string is
/// no declared type.
@usableFromInline
package func sqlDeclaredType<T: Extractable>(of type: T.Type, unmapped: UnmappedSQLType) -> String {
    switch T.BindingType.self {
    case is Int64.Type: return "INTEGER"
    case is Double.Type: return "REAL"
    case is String.Type: return "TEXT"
    case is Data.Type: return "BLOB"
    default:
        switch unmapped {
        case .blob: return "BLOB"
        case .none: return ""
        }
    }
}
