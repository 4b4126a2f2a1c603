// What the hub's own changeset applier took and left to SQLite, counted for benchmarks and logs.
import Foundation

/// How the hubs of this process applied the entries pushed to them: by their own statements, or
/// by SQLite's changeset apply after the hub's applier declined (an entry that met a conflict,
/// or a shape it leaves to SQLite). The PostgreSQL store settles every entry in a scratch SQLite
/// and counts in neither.
public struct SyncHubApplyCounts: Sendable, Equatable {
    /// Entries the hub's own applier applied.
    public var direct = 0
    /// Entries it declined, applied by SQLite's changeset apply instead.
    public var declined = 0

    /// No entries yet.
    public init() {}
}
