import StrataKernel
import Foundation

/// Why an index exists, as `PRAGMA index_list` reports it.
///
/// Squeal's capitalized spellings (`.CreateIndex`, ...) are kept as aliases.
public enum IndexOrigin: String, Hashable, Sendable {
    /// Made by `CREATE INDEX` (`"c"`).
    case createIndex = "c"
    /// Made for a `UNIQUE` constraint (`"u"`).
    case uniqueConstraint = "u"
    /// Made for a `PRIMARY KEY` constraint (`"pk"`).
    case primaryKeyConstraint = "pk"

    /// Squeal's spelling of ``createIndex``.
    public static let CreateIndex = IndexOrigin.createIndex
    /// Squeal's spelling of ``uniqueConstraint``.
    public static let UniqueConstraint = IndexOrigin.uniqueConstraint
    /// Squeal's spelling of ``primaryKeyConstraint``.
    public static let PrimaryKeyConstraint = IndexOrigin.primaryKeyConstraint
}
