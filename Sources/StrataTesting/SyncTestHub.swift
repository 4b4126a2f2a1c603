// An in-process hub and its replicas for sync tests: a `SyncHub` on a temporary folder, a space
// made from one schema, and replicas on databases beside it that talk to the hub in process.
import Foundation
import Strata
import StrataSync
import StrataTestFixtures

/// A `SyncHub` in a temporary folder with one space, and replicas of that space that
/// sync in process: what a test of an app's sync needs, removed when the value is released.
///
/// ```swift
/// let hub = try SyncTestHub { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
/// let phone = try hub.makeReplica("phone")
/// let laptop = try hub.makeReplica("laptop")
/// try await phone.write { try $0.run("INSERT INTO todo VALUES ('1', 'milk')") }
/// try await hub.syncAll([phone, laptop])
/// ```
///
/// Keep the value for as long as the hub and the replicas are used.
public final class SyncTestHub: Sendable {
    /// The hub, on the SQLite folder store.
    public let hub: SyncHub
    /// The space every replica made here syncs.
    public let space: String
    /// The folder of the hub's store and of the replicas' databases (removed when released).
    public let directory: TemporaryDirectory
    /// The ordinary tables the schema made (not virtual tables nor their shadow tables), in the
    /// order they were made: what replicas sync by default. A table without a key every replica
    /// agrees on cannot sync: leave it out with `makeReplica(_:tables:)`.
    public let tables: [String]
    private let schema: @Sendable (Connection) throws -> Void

    /// Creates a hub with space `space`, whose tables `schema` makes, under `rules` when given (a
    /// space with rules gives each replica's identity only its rows).
    /// - Throws: `SQLiteError` from `schema`; `SyncError` for a refused space name or rules.
    public init(
        space: String = "app", rules: SyncRules? = nil, limits: SyncLimits = SyncLimits(),
        schema: @escaping @Sendable (Connection) throws -> Void
    ) throws {
        let directory = try TemporaryDirectory()
        let hub = try SyncHub(directory: URL(fileURLWithPath: directory.path("hub")), limits: limits)
        _ = try hub.createSpaceIfNeeded(space, rules: rules, schema: schema)
        let probe = try Connection(path: ":memory:")
        try schema(probe)
        // Ordinary tables only: a virtual table (FTS5) and its shadow tables are not synced.
        tables = try probe.query(
            """
            SELECT s.name FROM sqlite_schema AS s JOIN pragma_table_list AS t ON t.schema = 'main' AND t.name = s.name
            WHERE t.type = 'table' AND s.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY s.rowid
            """)
        self.hub = hub
        self.space = space
        self.directory = directory
        self.schema = schema
    }

    /// Opens a replica `replicaID` on a new database in the hub's folder, with the space's schema,
    /// syncing `tables` (every table of the schema when nil) in process; as `identity` when given
    /// (the rows and writes the space's rules give that user), trusted otherwise.
    /// - Throws: `SyncError` when the hub refuses the replica; `SQLiteError` from the schema.
    public func makeReplica(
        _ replicaID: String, identity: SyncIdentity? = nil, tables: [String]? = nil,
        settings: SyncReplicaSettings = SyncReplicaSettings()
    ) throws -> SyncReplica {
        let database = try Database(path: directory.path("replica-\(UUID().uuidString).sqlite"))
        try database.write { try schema($0) }
        let transport = identity.map { InProcessSyncTransport(hub: hub, identity: $0) } ?? InProcessSyncTransport(hub: hub)
        return try SyncReplica(
            database: database, replicaID: replicaID, space: space, tables: tables ?? self.tables,
            transport: transport, settings: settings)
    }

    /// Syncs each replica in turn, twice over, so a write any of them held has reached every
    /// other: the first round pushes everything, the second pulls it everywhere. Every replica
    /// syncs in both rounds even when one fails (a write its rules refuse).
    /// - Throws: The first error a replica's sync threw, after both rounds.
    public func syncAll(_ replicas: [SyncReplica]) async throws {
        var firstError: (any Error)?
        for _ in 0..<2 {
            for replica in replicas {
                do { try await replica.sync() } catch { firstError = firstError ?? error }
            }
        }
        if let firstError { throw firstError }
    }
}
