import Strata
import StrataSync

// Steps the sync suites take again and again with replicas, said once.

/// Syncs each of `replicas` in turn, as their apps would one after another.
func syncInTurn(_ replicas: SyncReplica...) async throws {
    for replica in replicas { try await replica.sync() }
}

/// The refusal that `replica`'s next sync reports by throwing `SyncError.entryRefused`, or nil
/// when the sync goes through; any other error is thrown on.
func refusalOfSync(_ replica: SyncReplica) async throws -> SyncRefusal? {
    do {
        try await replica.sync()
        return nil
    } catch SyncError.entryRefused(let refusal) {
        return refusal
    }
}

/// `replica`'s app upgraded: `upgrade` run on its database as the app's own migration, then a
/// replica opened again on that database under the same replica ID, on space `space` syncing
/// `tables` with `hub` in process.
func upgradedReplica(
    _ replica: SyncReplica, by upgrade: String, space: String = "s", tables: [String] = ["t"], hub: SyncHub
) async throws -> SyncReplica {
    try await replica.database.write { try $0.execute(upgrade) }
    return try SyncReplica(
        database: replica.database, replicaID: replica.replicaID, space: space, tables: tables,
        transport: InProcessSyncTransport(hub: hub))
}
