import Foundation
import StrataSQift
import Strata
import StrataSync

/// StrataSync's costs against the same work without sync, in one run:
/// - `sync-capture`: single-row write transactions through `SyncReplica.write` (each also records
///   a changeset and stores it in the outbox) against `Database.write` of the same rows.
/// - `sync-capture-parts`: where capture's cost goes, each part alone against the same plain
///   writes: a session recording the transaction and making its changeset (stored nowhere); one
///   more row (the changeset's size) in another table of the same transaction; and the whole
///   capture on a table whose key is NOT NULL (no NULL-key guard triggers).
/// - `sync-hub-apply`: one push of 100 entries holding all rows, applied by the hub (dedupe,
///   conflict policy, a session recording its own log entry, one transaction per entry) against
///   `Connection.apply` of the same changesets into an identical file.
/// - `sync-hub-group-commit`: 8 replicas pushing 100-entry batches at once into the SQLite
///   folder store, which commits the pushes that arrive together as one, against the same rows
///   inserted in one transaction.
/// - `sync-bootstrap`: a new replica catching up with a log of one-row entries through `sync()`
///   against `bootstrap()` from a snapshot of the same space.
enum SyncWorkloads {
    struct Result {
        let workload: String
        let rows: Int
        let baseline: Measurement
        let sync: Measurement
        let baselineName: String
    }

    static let schema = "CREATE TABLE item(id TEXT PRIMARY KEY, v INTEGER NOT NULL, label TEXT NOT NULL)"

    static func selected(_ name: String) -> Bool { options.filter == nil || name.contains(options.filter!) }

    static func elapsed(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000 }

    static func newDatabase(_ name: String) throws -> Database {
        let path = directory.appendingPathComponent(name + "-" + UUID().uuidString + ".sqlite").path
        let database = try Database(path: path)
        try database.executeWrite { try $0.execute(schema) }
        return database
    }

    static func newHub() throws -> SyncHub {
        let hub = try SyncHub(directory: directory.appendingPathComponent("hub-" + UUID().uuidString))
        try hub.createSpace("bench") { try $0.execute(schema) }
        return hub
    }

    static func count(_ database: Database) throws -> Int {
        try database.executeRead { try $0.query("SELECT count(*) FROM item") ?? 0 }
    }

    @MainActor static func measureAll() async throws -> [Result] {
        var results: [Result] = []
        if selected("sync-capture") { results.append(try await capture()) }
        if selected("sync-capture-parts") { results += try await captureParts() }
        if selected("sync-hub-apply") { results.append(try await hubApply()) }
        if selected("sync-hub-group-commit") { results.append(try await hubGroupCommit()) }
        if selected("sync-bootstrap") { results.append(try await bootstrap()) }
        return results
    }

    static func progress(_ name: String) {
        if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
    }

    @MainActor static func capture() async throws -> Result {
        progress("sync-capture")
        let commits = options.rows.map { min($0, 2_000) } ?? 2_000
        var plain = Measurement(), synced = Measurement()
        for round in 0...options.runs {
            let database = try newDatabase("capture-plain")
            var start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<commits {
                try await database.write { try $0.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)") }
            }
            if round > 0 { plain.times.append(elapsed(start)) }
            guard try count(database) == commits else { throw BenchError.mismatch("sync-capture: plain left the wrong count") }
            try await database.close()

            let replicaDatabase = try newDatabase("capture-sync")
            let replica = try SyncReplica(
                database: replicaDatabase, replicaID: "r", space: "bench", tables: ["item"],
                transport: InProcessSyncTransport(hub: try newHub()))
            start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<commits {
                try await replica.write { try $0.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)") }
            }
            if round > 0 { synced.times.append(elapsed(start)) }
            guard try count(replicaDatabase) == commits, try await replica.pendingChangeCount == commits else {
                throw BenchError.mismatch("sync-capture: the replica did not capture every commit")
            }
            try await replicaDatabase.close()
        }
        return Result(workload: "sync-capture", rows: commits, baseline: plain, sync: synced, baselineName: "Database.write")
    }

    /// Single-row write transactions on a new database, with `extra` run in each after the insert.
    static func timedWrites(
        _ name: String, schema: String = schema, commits: Int,
        _ extra: @escaping @Sendable (Connection, Int) throws -> Void
    ) async throws -> Double {
        let path = directory.appendingPathComponent(name + "-" + UUID().uuidString + ".sqlite").path
        let database = try Database(path: path)
        try database.executeWrite { try $0.execute(schema + "; CREATE TABLE side(sequence INTEGER PRIMARY KEY, changeset BLOB NOT NULL)") }
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<commits {
            try await database.write { connection in
                try connection.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)")
                try extra(connection, index)
            }
        }
        let time = elapsed(start)
        guard try count(database) == commits else { throw BenchError.mismatch("sync-capture-parts: \(name) left the wrong count") }
        try await database.close()
        return time
    }

    @MainActor static func captureParts() async throws -> [Result] {
        progress("sync-capture-parts")
        let commits = options.rows.map { min($0, 2_000) } ?? 2_000
        let notNullSchema = "CREATE TABLE item(id TEXT NOT NULL PRIMARY KEY, v INTEGER NOT NULL, label TEXT NOT NULL)"
        var plain = Measurement(), session = Measurement(), row = Measurement(), plainNotNull = Measurement(), replicaNotNull = Measurement()
        // A changeset of one such row is about 40 bytes: the side row carries as many.
        let payload = Data(repeating: 7, count: 40)
        for round in 0...options.runs {
            let plainTime = try await timedWrites("parts-plain", commits: commits) { _, _ in }
            let rowTime = try await timedWrites("parts-row", commits: commits) { connection, index in
                try connection.run("INSERT INTO side(sequence, changeset) VALUES (?, ?)", index + 1, payload)
            }
            // The session must see the insert: it is opened before it, in its own write.
            let sessionPath = directory.appendingPathComponent("parts-session2-" + UUID().uuidString + ".sqlite").path
            let sessionDatabase = try Database(path: sessionPath)
            try sessionDatabase.executeWrite { try $0.execute(schema) }
            var start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<commits {
                try await sessionDatabase.write { connection in
                    let recorder = try connection.recordChanges(tables: ["item"])
                    defer { recorder.close() }
                    try connection.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)")
                    guard try !recorder.changeset().isEmpty else { throw BenchError.mismatch("sync-capture-parts: the session saw nothing") }
                }
            }
            let sessionTime = elapsed(start)
            try await sessionDatabase.close()
            let notNullPlain = try await timedWrites("parts-plain-notnull", schema: notNullSchema, commits: commits) { _, _ in }
            let replicaDatabase = try Database(path: directory.appendingPathComponent("parts-replica-" + UUID().uuidString + ".sqlite").path)
            try replicaDatabase.executeWrite { try $0.execute(notNullSchema) }
            let hub = try SyncHub(directory: directory.appendingPathComponent("hub-" + UUID().uuidString))
            try hub.createSpace("bench") { try $0.execute(notNullSchema) }
            let replica = try SyncReplica(
                database: replicaDatabase, replicaID: "r", space: "bench", tables: ["item"],
                transport: InProcessSyncTransport(hub: hub))
            start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<commits {
                try await replica.write { try $0.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)") }
            }
            let replicaTime = elapsed(start)
            try await replicaDatabase.close()
            if round > 0 {
                plain.times.append(plainTime); row.times.append(rowTime); session.times.append(sessionTime)
                plainNotNull.times.append(notNullPlain); replicaNotNull.times.append(replicaTime)
            }
        }
        return [
            Result(
                workload: "sync-capture-parts: a session per write transaction (changeset made, not stored)", rows: commits,
                baseline: plain, sync: session, baselineName: "Database.write"),
            Result(
                workload: "sync-capture-parts: one more 40-byte row in another table", rows: commits,
                baseline: plain, sync: row, baselineName: "Database.write"),
            Result(
                workload: "sync-capture (key NOT NULL: no guard triggers)", rows: commits,
                baseline: plainNotNull, sync: replicaNotNull, baselineName: "Database.write")
        ]
    }

    @MainActor static func hubApply() async throws -> Result {
        progress("sync-hub-apply")
        let rows = options.rows ?? 100_000
        let entryCount = 100
        let perEntry = max(1, rows / entryCount)
        // The changesets: a replica's 100 write transactions, captured once.
        let source = try newDatabase("apply-source")
        let capturing = try SyncReplica(
            database: source, replicaID: "r", space: "bench", tables: ["item"],
            transport: InProcessSyncTransport(hub: try newHub()))
        for entry in 0..<entryCount {
            try await capturing.write { db in
                for index in (entry * perEntry)..<((entry + 1) * perEntry) {
                    try db.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)")
                }
            }
        }
        let entries: [SyncOutboxEntry] = try source.executeRead { connection in
            let stored: [Row] = try connection.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
            return stored.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
        try await source.close()
        let fingerprintProbe = try newHub()
        let fingerprint = try fingerprintOf(hub: fingerprintProbe)
        var direct = Measurement(), hubMeasure = Measurement()
        for round in 0...options.runs {
            let target = try Connection(storageLocation: .onDisk(directory.appendingPathComponent("apply-\(UUID().uuidString).sqlite").path))
            try target.execute("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; " + schema)
            var start = DispatchTime.now().uptimeNanoseconds
            for entry in entries {
                try target.transaction(transactionType: .immediate) {
                    try target.apply(Changeset(data: entry.changeset)) { _ in .abort }
                }
            }
            if round > 0 { direct.times.append(elapsed(start)) }
            let directCount: Int = try target.query("SELECT count(*) FROM item") ?? 0

            let hub = try newHub()
            start = DispatchTime.now().uptimeNanoseconds
            let response = try hub.push(SyncPushRequest(space: "bench", replicaID: "r", tables: ["item"], schemaFingerprint: fingerprint, entries: entries))
            if round > 0 { hubMeasure.times.append(elapsed(start)) }
            let hubCount: Int = try hub.withSpace("bench") { try $0.query("SELECT count(*) FROM item") ?? 0 }
            guard directCount == perEntry * entryCount, hubCount == directCount, response.acknowledged.count == entryCount else {
                throw BenchError.mismatch("sync-hub-apply: direct \(directCount), hub \(hubCount) rows, \(response.acknowledged.count) acknowledged")
            }
        }
        return Result(workload: "sync-hub-apply", rows: perEntry * entryCount, baseline: direct, sync: hubMeasure, baselineName: "Connection.apply")
    }

    /// 8 replicas pushing at once, each up to 10 pushes of 100 single-row entries, into the SQLite
    /// folder store (group commit): issue 66's 10,000 changes/s target, against its floor, the
    /// same rows inserted in one transaction.
    @MainActor static func hubGroupCommit() async throws -> Result {
        progress("sync-hub-group-commit")
        let replicas = 8, perPush = 100
        // 10 pushes a replica (8,000 changes) unless `--rows` (or `--quick`) asks for fewer.
        let pushes = max(1, min(10, (options.rows ?? 8_000) / (replicas * perPush)))
        let perReplica = pushes * perPush
        var batches: [[SyncOutboxEntry]] = []
        for replica in 0..<replicas {
            let source = try newDatabase("group-source-\(replica)")
            let capturing = try SyncReplica(
                database: source, replicaID: "r\(replica)", space: "bench", tables: ["item"],
                transport: InProcessSyncTransport(hub: try newHub()))
            for index in 0..<perReplica {
                let key = replica * perReplica + index
                try await capturing.write { try $0.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(key)", key, "item \(key)") }
            }
            batches.append(
                try source.executeRead { connection in
                    let stored: [Row] = try connection.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
                    return stored.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
                })
            try await source.close()
        }
        let fingerprint = try fingerprintOf(hub: try newHub())
        var floor = Measurement(), grouped = Measurement()
        for round in 0...options.runs {
            let target = try Connection(storageLocation: .onDisk(directory.appendingPathComponent("group-\(UUID().uuidString).sqlite").path))
            try target.execute("PRAGMA journal_mode = WAL; " + schema)
            var start = DispatchTime.now().uptimeNanoseconds
            try target.transaction(transactionType: .immediate) {
                let insert = try target.prepare("INSERT INTO item(id, v, label) VALUES (?, ?, ?)")
                for key in 0..<(replicas * perReplica) { try insert.bind("id-\(key)", key, "item \(key)").run() }
            }
            if round > 0 { floor.times.append(elapsed(start)) }

            let hub = try newHub()
            let acknowledged = Tally()
            let done = DispatchGroup()
            start = DispatchTime.now().uptimeNanoseconds
            for (replica, entries) in batches.enumerated() {
                done.enter()
                Thread {
                    for push in 0..<pushes {
                        let request = SyncPushRequest(
                            space: "bench", replicaID: "r\(replica)", tables: ["item"], schemaFingerprint: fingerprint,
                            entries: Array(entries[push * perPush..<(push + 1) * perPush]))
                        if let response = try? hub.push(request) { acknowledged.add(response.acknowledged.count) }
                    }
                    done.leave()
                }.start()
            }
            done.wait()
            if round > 0 { grouped.times.append(elapsed(start)) }
            let hubCount: Int = try hub.withSpace("bench") { try $0.query("SELECT count(*) FROM item") ?? 0 }
            guard hubCount == replicas * perReplica, acknowledged.count == replicas * perReplica else {
                throw BenchError.mismatch("sync-hub-group-commit: \(hubCount) rows, \(acknowledged.count) acknowledged")
            }
        }
        // Entries SQLite's apply took because the hub's own applier declined them (conflicts,
        // shapes it leaves to SQLite): none are expected here.
        if !options.json {
            let counts = SyncHub.applyCounts
            FileHandle.standardError.write(
                Data("sync-hub-group-commit: \(counts.direct) entries applied by the hub's applier, \(counts.declined) by SQLite's apply\n".utf8))
        }
        return Result(
            workload: "sync-hub-group-commit: 8 replicas, 100-entry pushes", rows: replicas * perReplica,
            baseline: floor, sync: grouped, baselineName: "one INSERT transaction")
    }

    @MainActor static func bootstrap() async throws -> Result {
        progress("sync-bootstrap")
        let logEntries = options.rows.map { min($0, 10_000) } ?? 10_000
        let hub = try newHub()
        let writer = try SyncReplica(
            database: try newDatabase("bootstrap-writer"), replicaID: "w", space: "bench", tables: ["item"],
            transport: InProcessSyncTransport(hub: hub))
        for index in 0..<logEntries {
            try await writer.write { try $0.run("INSERT INTO item(id, v, label) VALUES (?, ?, ?)", "id-\(index)", index, "item \(index)") }
            if index % 1_000 == 999 { try await writer.push() }
        }
        try await writer.sync()
        var pulled = Measurement(), bootstrapped = Measurement()
        for round in 0...options.runs {
            for (index, useSnapshot) in [false, true].enumerated() {
                let database = try newDatabase("bootstrap-\(index)")
                let replica = try SyncReplica(
                    database: database, replicaID: "new-\(round)-\(index)", space: "bench", tables: ["item"],
                    transport: InProcessSyncTransport(hub: hub))
                let start = DispatchTime.now().uptimeNanoseconds
                if useSnapshot { try await replica.bootstrap() } else { try await replica.sync() }
                let time = elapsed(start)
                if round > 0, useSnapshot { bootstrapped.times.append(time) } else if round > 0 { pulled.times.append(time) }
                guard try count(database) == logEntries, try await replica.lastPulledVersion == hub.version(ofSpace: "bench") else {
                    throw BenchError.mismatch("sync-bootstrap: a new replica did not reach the hub")
                }
                try await database.close()
            }
        }
        return Result(
            workload: "sync-bootstrap (log of one-row entries)", rows: logEntries, baseline: pulled, sync: bootstrapped,
            baselineName: "sync() through the log")
    }

    /// The schema fingerprint a replica of `schema` sends, as the hub reports it in a refusal.
    static func fingerprintOf(hub: SyncHub) throws -> String {
        do {
            _ = try hub.pull(SyncPullRequest(space: "bench", replicaID: "x", tables: ["item"], schemaFingerprint: "?", after: 0, limit: 1))
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
        throw BenchError.mismatch("the hub accepted a wrong fingerprint")
    }
}

/// A count the pushing threads add to.
// @unchecked Sendable: `total` is only read and written under `lock`.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ value: Int) { lock.withLock { total += value } }
    var count: Int { lock.withLock { total } }
}
