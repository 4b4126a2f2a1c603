import StrataKernel
import Foundation

/// Options for ``Schema/migrate(_:toVersion:options:)`` (Squeal's `MigrationOptions`).
public struct MigrationOptions: OptionSet, Hashable, Sendable {
    /// The option bits.
    public let rawValue: Int

    /// Creates the options with these bits set.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// When the database is at a version the schema no longer declares (older versions were
    /// removed from the code), reset it (drop everything) and migrate from version 0, instead of
    /// throwing ``SchemaMigrationError/unreachableDatabaseVersion(fromVersion:toVersion:)``.
    public static let ResetOldDatabaseVersions = MigrationOptions(rawValue: 1 << 0)

    /// A second spelling of ``ResetOldDatabaseVersions``, Squeal's documented one.
    @available(*, deprecated, renamed: "ResetOldDatabaseVersions", message: "Squeal's documented spelling is the one kept")
    public static let resetOldDatabaseVersions = ResetOldDatabaseVersions
}
