import Foundation
import StrataSQift
import Strata
import StrataSync

/// A hub in `folder` whose space "s" has the table `t`, and replica "r" of it on `r.sqlite` in the
/// same folder, syncing `t` in process: the setup of the API's refusal and status tests.
struct OneTableSync {
    let hub: SyncHub
    let database: Database
    let replica: SyncReplica

    /// `hubTable` and `replicaTable` are the `CREATE TABLE t` statements of the hub's space and of
    /// the replica; the replica's is the hub's unless given.
    init(in folder: SyncFolder, hubTable: String = "CREATE TABLE t(id TEXT PRIMARY KEY, v)", replicaTable: String? = nil) throws {
        hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        try hub.createSpace("s") { try $0.execute(hubTable) }
        database = try Database(path: folder.path("r.sqlite"))
        try database.executeWrite { try $0.execute(replicaTable ?? hubTable) }
        replica = try SyncReplica(database: database, replicaID: "r", space: "s", tables: ["t"], transport: InProcessSyncTransport(hub: hub))
    }
}

extension SyncHub {
    /// The schema fingerprint space `s` expects of `tables`, read from the refusal of a pull that
    /// offers a wrong one.
    func expectedFingerprint(of tables: [String] = ["t"]) throws -> String {
        do {
            _ = try pull(SyncPullRequest(space: "s", replicaID: "probe", tables: tables, schemaFingerprint: "?", after: 0, limit: 1))
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
        throw SyncError.refused("the hub accepted a wrong fingerprint")
    }
}
