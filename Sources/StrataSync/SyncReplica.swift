// The device side of sync: writes through the replica are captured as changesets in an outbox
// in the same transaction; `sync()` pushes the outbox, then pulls the hub's log.
import Foundation
import Strata

// Changesets compile where Strata links its SQLite shim (not yet on Apple platforms, whose SDK
// header declares no session functions though the library exports them).
#if !canImport(Darwin)

/// A local-first copy of a hub's space, kept in a Strata `Database`.
///
/// ```swift
/// let replica = try SyncReplica(database: database, replicaID: "phone-1", space: "team",
///                               tables: ["todo"], transport: InProcessSyncTransport(hub: hub))
/// try await replica.write { db in try db.run("INSERT INTO todo(id, title) VALUES (?, ?)", UUID().uuidString, "milk") }
/// try await replica.sync()
/// ```
/// Only writes made through ``write(_:)`` are captured: a write through another connection or
/// process reaches the hub only if made through a replica there. A pull is applied when the
/// outbox is empty (after a push): it undoes this replica's pushed changes, applies the hub's log
/// in the hub's order (which holds the hub's account of those changes, conflicts settled), and
/// so ends where the hub is. Pulls are ordinary commits, which observations see. A replica whose
/// cursor is behind the hub's trimmed log (``SyncHub/trimLog(ofSpace:keepingLast:)``) catches up
/// from a ``SyncSnapshot``, as ``bootstrap()`` does for a new one.
public final class SyncReplica: Sendable {
    /// The local database the replica keeps the space in.
    public let database: Database
    /// This replica's name at the hub; unique per device and database.
    public let replicaID: String
    /// The hub's space this replica copies.
    public let space: String
    /// The synced tables.
    public let tables: [String]
    /// How pushes and pulls reach the hub.
    public let transport: any SyncTransport
    private let fingerprint: String
    /// One sync at a time, so the outbox is pushed and acknowledged in order.
    private let syncing = AsyncSerializer()
    /// One push at a time (a running ``SyncLoop`` pushes beside the app's own calls).
    private let pushing = AsyncSerializer()
    /// Signalled after each write commits, for a running ``SyncLoop``.
    let localWrites = SyncWakeup()

    /// Prepares `database` to sync `tables` of `space` (creating the outbox and state tables).
    /// - Throws: ``SyncError/tableNeedsGlobalKey(table:)`` for a table without a key every
    ///   replica agrees on; ``SyncError/refused(_:)`` for a missing table;
    ///   `ChangesetError.generatedColumnsUnsupported(table:)` for a table with generated columns
    ///   where the linked SQLite's session extension cannot record them (3.40 cannot).
    public init(database: Database, replicaID: String, space: String, tables: [String], transport: any SyncTransport) throws {
        self.database = database
        self.replicaID = replicaID
        self.space = space
        self.tables = tables
        self.transport = transport
        guard !tables.isEmpty else { throw SyncError.refused("a replica needs at least one table to sync") }
        fingerprint = try database.executeWrite { connection in
            for table in tables { _ = try SchemaFingerprint.keyColumns(of: table, in: connection) }
            // Refuses here, by name, a table the session extension cannot record (generated
            // columns on SQLite 3.40), rather than failing every write.
            try ChangeSession.refuseUnrecordable(tables: tables, on: connection)
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(syncTablePrefix)outbox(sequence INTEGER PRIMARY KEY AUTOINCREMENT, changeset BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS \(syncTablePrefix)state(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS \(syncTablePrefix)inflight(sequence INTEGER PRIMARY KEY, version INTEGER NOT NULL, changeset BLOB NOT NULL, chain INTEGER);
                CREATE TABLE IF NOT EXISTS \(syncTablePrefix)sent(sequence INTEGER PRIMARY KEY, changeset BLOB NOT NULL, at INTEGER NOT NULL);
                """)
            // A replica made before hub chains were kept has no chain column yet.
            if try !connection.schemaReader.columns(ofTable: syncTablePrefix + "inflight").contains(where: { $0.name == "chain" }) {
                try connection.execute("ALTER TABLE \(syncTablePrefix)inflight ADD COLUMN chain INTEGER")
            }
            return try SchemaFingerprint.of(tables: tables, in: connection)
        }
    }

    /// Runs `body` in one IMMEDIATE transaction and stores what it changed in the synced tables
    /// in the outbox, in that same transaction: both commit or neither does.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let tables = self.tables
        let result = try await database.writeInTransaction(transactionType: .immediate) { connection in
            let session = try connection.recordChanges(tables: tables)
            defer { session.close() }
            let result = try body(connection)
            // A COMMIT or ROLLBACK run by `body` ended the transaction: what it committed is
            // beyond the outbox's reach, and nothing more may run as if it were one transaction.
            guard connection.isInTransaction else {
                throw SyncError.refused("the write ended its own transaction (COMMIT or ROLLBACK inside it): what it committed before is not captured; write without transaction control")
            }
            let changeset = try session.changeset()
            if !changeset.isEmpty {
                try connection.run(literal: "INSERT INTO \(identifier: syncTablePrefix + "outbox")(changeset) VALUES (\(changeset.data))")
            }
            return result
        }
        localWrites.signal()
        return result
    }

    /// Writes captured and not yet acknowledged by the hub.
    public var pendingChangeCount: Int {
        get async throws {
            try await database.read { try $0.query(literal: "SELECT count(*) FROM \(identifier: syncTablePrefix + "outbox")") ?? 0 }
        }
    }

    /// The hub version this replica has pulled up to.
    public var lastPulledVersion: Int64 {
        get async throws { try await database.read { try SyncStatus.read($0).lastPulledVersion } }
    }

    /// Pushes the outbox, then pulls until caught up with the hub. A failure is kept as the
    /// status's `lastError` until a sync succeeds.
    public func sync() async throws {
        try await syncing.run {
            try await self.recordingStatus {
                try await self.push()
                try await self.pull()
            }
        }
    }

    /// Runs `body`, keeping its failure as the status's `lastError`, or clearing it on success.
    func recordingStatus(_ body: () async throws -> Void) async throws {
        do {
            try await body()
            if try await status.lastError != nil {
                try await database.write { try SyncStatus.setState("last_error", .null, $0) }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let message = String(describing: error)
            _ = try? await database.write { try SyncStatus.setState("last_error", .text(message), $0) }
            throw error
        }
    }

    /// Catches up from a snapshot of the hub's synced tables rather than its log, then pulls what
    /// came after: for a new replica of a space with a long history. Local writes are pushed first
    /// and the replica's rows of the synced tables become the hub's.
    public func bootstrap() async throws {
        try await syncing.run {
            try await self.push()
            try await self.catchUpFromSnapshot()
            try await self.pull()
        }
    }

    /// The replica's status now: pending writes, the pulled version, the last error.
    public var status: SyncStatus {
        get async throws { try await database.read { try SyncStatus.read($0) } }
    }

    /// The status now and after every change to it (a write, a push, a pull, an error), as an
    /// async sequence of values.
    public func statusUpdates() -> DatabaseObservation<SyncStatus> {
        database.observe { try SyncStatus.read($0) }
    }

    /// Sends the outbox in order; what the hub acknowledged waits for the pull that reaches it.
    public func push() async throws {
        try await pushing.run { try await self.pushOutbox() }
    }

    private func pushOutbox() async throws {
        let entries: [SyncOutboxEntry] = try await database.read { connection in
            let rows: [Row] = try connection.query(literal: "SELECT sequence, changeset FROM \(identifier: syncTablePrefix + "outbox") ORDER BY sequence")
            return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
        guard !entries.isEmpty else { return }
        let response = try await transport.push(SyncPushRequest(space: space, replicaID: replicaID, tables: tables,
                                                                 schemaFingerprint: fingerprint, entries: entries))
        let acknowledged = Set(response.acknowledged)
        let acknowledgedEntries = entries.filter { acknowledged.contains($0.sequence) }
        try await database.writeInTransaction(transactionType: .immediate) { connection in
            // Acknowledged entries wait, with the hub version they were applied by, until the
            // pull passes that version: the pull first undoes them, applies the hub's log in its
            // order (which holds the hub's own account of them), and so ends exactly at the hub.
            // Acknowledged entries are also kept for a while (``sentRetention``): a hub restored
            // from an older copy may have lost them, and they are then sent again.
            let now = Int64(Date().timeIntervalSince1970)
            for entry in acknowledgedEntries {
                try connection.run(literal: """
                    INSERT OR REPLACE INTO \(identifier: syncTablePrefix + "inflight")(sequence, version, changeset, chain)
                    VALUES (\(entry.sequence), \(response.hubVersion), \(entry.changeset), \(response.chain))
                    """)
                try connection.run(literal: """
                    INSERT OR REPLACE INTO \(identifier: syncTablePrefix + "sent")(sequence, changeset, at) VALUES (\(entry.sequence), \(entry.changeset), \(now))
                    """)
                try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "outbox") WHERE sequence = \(entry.sequence)")
            }
            try connection.run(literal: """
                DELETE FROM \(identifier: syncTablePrefix + "sent") WHERE at < \(now - Int64(Self.sentRetention.components.seconds))
                """)
        }
    }

    /// Undoes the writes the hub has not acknowledged and empties the outbox: for a push the hub
    /// refuses (a foreign key a concurrent delete broke, a constraint), once the app has decided
    /// the local changes should go. Returns how many entries were discarded.
    @discardableResult
    public func discardPendingChanges() async throws -> Int {
        let tables = Set(self.tables.map { $0.lowercased() })
        return try await database.writeInTransaction(transactionType: .immediate) { connection in
            let rows: [Row] = try connection.query(literal: "SELECT changeset FROM \(identifier: syncTablePrefix + "outbox") ORDER BY sequence DESC")
            for row in rows {
                try connection.apply(try Changeset(data: row.value(at: 0) ?? Data()).inverted(), filter: { tables.contains($0.lowercased()) },
                                     onConflict: Self.replaceConflicts)
            }
            try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "outbox")")
            return rows.count
        }
    }

    /// Applies the hub's log after this replica's cursor, in pages, until caught up. A page is
    /// applied only when the outbox is empty; otherwise the outbox is pushed first.
    public func pull() async throws {
        for _ in 0..<10_000 {
            // The pushes acknowledged before this request: the hub had them at their versions
            // then, so its answer must reach those versions (a push acknowledged meanwhile, by the
            // loop's other lane, may be newer than the answer).
            let (after, afterChain, acknowledgedBefore, lastAcknowledged) = try await database.read { connection in
                (try SyncStatus.read(connection).lastPulledVersion, try SyncStatus.pulledChain(connection),
                 Set(try connection.query(literal: "SELECT sequence FROM \(identifier: syncTablePrefix + "inflight")") as [Int64]),
                 try connection.query(literal: "SELECT max(sequence) FROM \(identifier: syncTablePrefix + "sent")") as Int64?)
            }
            let response = try await transport.pull(SyncPullRequest(space: space, replicaID: replicaID, tables: tables,
                                                                    schemaFingerprint: fingerprint, after: after, limit: 500,
                                                                    afterChain: after == 0 ? 0 : afterChain,
                                                                    lastAcknowledged: lastAcknowledged))
            if response.hubRolledBack {
                try await recoverFromHubRollback()
                continue
            }
            if response.snapshotNeeded {
                // The hub trimmed the log past this replica's cursor.
                try await catchUpFromSnapshot()
                continue
            }
            let tables = Set(self.tables.map { $0.lowercased() })
            let outcome: PageOutcome = try await database.writeInTransaction(transactionType: .immediate) { connection in
                let pending: Int = try connection.query(literal: "SELECT count(*) FROM \(identifier: syncTablePrefix + "outbox")") ?? 0
                guard pending == 0 else { return .pushFirst }
                // Another pull (the app's beside a running loop) applied a page since this one
                // was asked for: this page is not applied twice; the next request starts after it.
                guard try SyncStatus.read(connection).lastPulledVersion == after else { return .applied }
                let inflight: [Row] = try connection.query(literal: """
                    SELECT sequence, version, changeset, chain FROM \(identifier: syncTablePrefix + "inflight") ORDER BY sequence
                    """)
                let pushed = inflight.map { (sequence: $0.value(at: 0) ?? Int64(0), version: $0.value(at: 1) ?? Int64(0),
                                             changeset: Changeset(data: $0.value(at: 2) ?? Data()), chain: $0.value(at: 3) as Int64?) }
                // The hub acknowledged a push at a version it no longer has, or has with another
                // history: it was restored from an older copy and may have lost that push.
                if pushed.contains(where: { acknowledgedBefore.contains($0.sequence) && $0.version > response.hubVersion }) { return .hubRolledBack }
                for entry in response.entries {
                    if let mine = pushed.first(where: { $0.version == entry.version }), let ours = mine.chain, let theirs = entry.chain, ours != theirs {
                        return .hubRolledBack
                    }
                }
                // Back to the state at the cursor: this replica's pushed changes undone, newest first.
                for entry in pushed.reversed() {
                    try connection.apply(try entry.changeset.inverted(), filter: { tables.contains($0.lowercased()) }, onConflict: Self.replaceConflicts)
                }
                guard !response.entries.isEmpty else {
                    // Caught up: what the log holds of them is applied; the rest the hub dropped.
                    try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "inflight")")
                    return .applied
                }
                for entry in response.entries {
                    try connection.apply(Changeset(data: entry.changeset), filter: { tables.contains($0.lowercased()) }, onConflict: Self.replaceConflicts)
                    try SyncStatus.setState("pulled", .integer(entry.version), connection)
                    try SyncStatus.setState("pulled_chain", entry.chain.map { .integer($0) } ?? .null, connection)
                }
                // Pushed changes the log has not reached yet are made again (undone by the next page).
                let reached = response.entries.last?.version ?? 0
                for entry in pushed {
                    if entry.version <= reached {
                        try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "inflight") WHERE sequence = \(entry.sequence)")
                    } else {
                        try connection.apply(entry.changeset, filter: { tables.contains($0.lowercased()) }, onConflict: Self.replaceConflicts)
                    }
                }
                return .applied
            }
            switch outcome {
            case .pushFirst: try await push()
            case .hubRolledBack: try await recoverFromHubRollback()
            case .applied: if response.entries.isEmpty { return }
            }
        }
    }

    /// How long pushed entries are kept after the hub acknowledged them, to be sent again if the
    /// hub is restored from an older copy within that time (a Litestream restore loses at most
    /// its last seconds).
    public static let sentRetention: Duration = .seconds(7 * 24 * 3600)

    /// The hub no longer has the history this replica pulled (restored from an older copy): what
    /// this replica pushed within ``sentRetention`` goes back to the outbox and is pushed again
    /// (the hub applies once what it still has, anew what it lost), then the replica starts over
    /// from a snapshot, its synced tables becoming the restored hub's.
    private func recoverFromHubRollback() async throws {
        try await database.writeInTransaction(transactionType: .immediate) { connection in
            try connection.run(literal: """
                INSERT OR IGNORE INTO \(identifier: syncTablePrefix + "outbox")(sequence, changeset)
                SELECT sequence, changeset FROM \(identifier: syncTablePrefix + "sent") ORDER BY sequence
                """)
            try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "inflight")")
        }
        try await push()
        try await catchUpFromSnapshot()
    }

    /// Replaces the synced tables' rows with a hub snapshot's, in one transaction: the log entries
    /// up to the snapshot's version are in it, so pushed changes it covers are done, and those it
    /// does not are made again, as after a pull.
    private func catchUpFromSnapshot() async throws {
        let request = SyncSnapshotRequest(space: space, replicaID: replicaID, tables: tables, schemaFingerprint: fingerprint)
        for _ in 0..<100 {
            let snapshot = try await transport.snapshot(request)
            let tables = self.tables
            let applied: Bool = try await database.writeWithoutTransaction { connection in
                // ATTACH cannot run inside a transaction, so the image is attached around it.
                let schema = "strata_sync_snapshot"
                try connection.execute("ATTACH ':memory:' AS " + quoteIdentifier(schema))
                defer { try? connection.execute("DETACH " + quoteIdentifier(schema)) }
                do {
                    // Writable: BEGIN IMMEDIATE would fail on a read-only attached schema. It is
                    // the replica's own in-memory copy and nothing writes it.
                    try connection.deserialize(snapshot.database, schema: schema)
                } catch {
                    throw SyncError.refused("the hub's snapshot of \(request.space) is not a database: \(error)")
                }
                // A damaged image may open and fail only where a copy reads it: check it whole first.
                let check: [String] = (try? connection.query("PRAGMA " + quoteIdentifier(schema) + ".quick_check")) ?? ["unreadable"]
                guard check == ["ok"] else {
                    throw SyncError.refused("the hub's snapshot of \(request.space) is damaged: \(check.prefix(3).joined(separator: "; "))")
                }
                return try connection.transaction(transactionType: .immediate) {
                    let pending: Int = try connection.query(literal: "SELECT count(*) FROM \(identifier: syncTablePrefix + "outbox")") ?? 0
                    guard pending == 0 else { return false }
                    try Self.copyTables(Self.childrenFirst(tables, connection), from: schema, on: connection)
                    let inflight: [Row] = try connection.query(literal: """
                        SELECT sequence, version, changeset FROM \(identifier: syncTablePrefix + "inflight") ORDER BY sequence
                        """)
                    let synced = Set(tables.map { $0.lowercased() })
                    for row in inflight {
                        let sequence: Int64 = row.value(at: 0) ?? 0
                        let version: Int64 = row.value(at: 1) ?? 0
                        if version <= snapshot.version {
                            try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "inflight") WHERE sequence = \(sequence)")
                        } else {
                            try connection.apply(Changeset(data: row.value(at: 2) ?? Data()), filter: { synced.contains($0.lowercased()) },
                                                 onConflict: Self.replaceConflicts)
                        }
                    }
                    try SyncStatus.setState("pulled", .integer(snapshot.version), connection)
                    try SyncStatus.setState("pulled_chain", snapshot.chain.map { .integer($0) } ?? .null, connection)
                    return true
                }
            }
            if applied { return }
            try await push()
        }
        throw SyncError.refused("the outbox kept filling while catching up from a snapshot of \(request.space)")
    }

    /// Makes each synced table hold the attached snapshot's rows, with values copied by SQLite
    /// itself (no conversion: invalid UTF-8 text, -0.0 and blobs stay as they were): rows the
    /// snapshot lacks are deleted (children first), the others inserted or updated where they
    /// differ. Rows that stay are never deleted, so `ON DELETE` actions of foreign keys from the
    /// replica's own tables do not fire for them.
    private static func copyTables(_ tables: [String], from schema: String, on connection: Connection) throws {
        let snapshot = quoteIdentifier(schema)
        try connection.withForeignKeysDeferred {
            for table in tables {
                let name = quoteIdentifier(table)
                let same = try SchemaFingerprint.keyColumns(of: table, in: connection)
                    .map { "s." + quoteIdentifier($0) + " IS " + quoteIdentifier("main") + "." + name + "." + quoteIdentifier($0) }
                    .joined(separator: " AND ")
                try connection.run(literal: SQLFragment(sql: "DELETE FROM " + quoteIdentifier("main") + "." + name
                    + " WHERE NOT EXISTS (SELECT 1 FROM " + snapshot + "." + name + " AS s WHERE " + same + ")"))
            }
            for table in tables.reversed() {
                let name = quoteIdentifier(table)
                let keys = try SchemaFingerprint.keyColumns(of: table, in: connection)
                let columns = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
                let others = columns.filter { column in !keys.contains { sameIdentifier($0, column) } }
                let list = columns.map(quoteIdentifier).joined(separator: ", ")
                var sql = "INSERT INTO " + quoteIdentifier("main") + "." + name + "(" + list + ") SELECT " + list + " FROM "
                    + snapshot + "." + name + " WHERE true ON CONFLICT(" + keys.map(quoteIdentifier).joined(separator: ", ") + ") DO "
                if others.isEmpty {
                    sql += "NOTHING"
                } else {
                    sql += "UPDATE SET " + others.map { quoteIdentifier($0) + " = excluded." + quoteIdentifier($0) }.joined(separator: ", ")
                        + " WHERE " + others.map { name + "." + quoteIdentifier($0) + " IS NOT excluded." + quoteIdentifier($0) }
                            .joined(separator: " OR ")
                }
                try connection.run(literal: SQLFragment(sql: sql))
            }
        }
    }

    /// The synced tables with every table before the synced tables it references, so emptying them
    /// in this order never meets an `ON DELETE RESTRICT` (a cycle keeps its declared order).
    private static func childrenFirst(_ tables: [String], _ connection: Connection) throws -> [String] {
        var parents: [String: Set<String>] = [:]
        let names = Set(tables.map { $0.lowercased() })
        for table in tables {
            parents[table.lowercased()] = Set(try connection.schemaReader.foreignKeys(ofTable: table).map { $0.parentTable.lowercased() })
                .intersection(names).subtracting([table.lowercased()])
        }
        var ordered: [String] = []
        var remaining = tables
        while !remaining.isEmpty {
            // A table no remaining table references goes next.
            let next = remaining.firstIndex { candidate in
                !remaining.contains { other in other != candidate && parents[other.lowercased()]?.contains(candidate.lowercased()) == true }
            } ?? 0
            ordered.append(remaining.remove(at: next))
        }
        return ordered
    }

    /// Remote changes win over what they meet; a change to a row that is gone is dropped.
    private static func replaceConflicts(_ conflict: Conflict) -> ConflictResolution {
        switch conflict.kind {
        case .data, .conflict: return .replace
        case .notFound: return .omit
        case .constraint, .foreignKey: return .abort
        }
    }
}

/// What one transaction of a pull did with a page.
private enum PageOutcome: Sendable {
    case applied, pushFirst, hubRolledBack
}

/// What an app shows about a replica's sync.
public struct SyncStatus: Sendable, Equatable {
    /// Captured writes the hub has not acknowledged.
    public var pendingChangeCount: Int
    /// The hub version pulled up to.
    public var lastPulledVersion: Int64
    /// Why the last sync failed; nil once one succeeds.
    public var lastError: String?

    /// A status made of its parts.
    public init(pendingChangeCount: Int, lastPulledVersion: Int64, lastError: String?) {
        self.pendingChangeCount = pendingChangeCount
        self.lastPulledVersion = lastPulledVersion
        self.lastError = lastError
    }

    /// The status of the replica kept in `connection`'s database (zeros before its first sync).
    public static func read(_ connection: Connection) throws -> SyncStatus {
        guard try connection.schemaReader.table(named: syncTablePrefix + "outbox") != nil else {
            return SyncStatus(pendingChangeCount: 0, lastPulledVersion: 0, lastError: nil)
        }
        let pending: Int = try connection.query(literal: "SELECT count(*) FROM \(identifier: syncTablePrefix + "outbox")") ?? 0
        let pulled: Int64 = try connection.query(literal: "SELECT value FROM \(identifier: syncTablePrefix + "state") WHERE key = 'pulled'") ?? 0
        let error: String? = try connection.query(literal: "SELECT value FROM \(identifier: syncTablePrefix + "state") WHERE key = 'last_error'")
        return SyncStatus(pendingChangeCount: pending, lastPulledVersion: pulled, lastError: error)
    }

    /// The hub's log chain at the pulled version, as the last pull or snapshot brought it.
    static func pulledChain(_ connection: Connection) throws -> Int64? {
        guard try connection.schemaReader.table(named: syncTablePrefix + "state") != nil else { return nil }
        return try connection.query(literal: "SELECT value FROM \(identifier: syncTablePrefix + "state") WHERE key = 'pulled_chain'")
    }

    static func setState(_ key: String, _ value: BindingValue, _ connection: Connection) throws {
        try connection.run(literal: SQLFragment(
            sql: "INSERT INTO " + quoteIdentifier(syncTablePrefix + "state") + "(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [.text(key), value]))
    }
}

extension Connection {
    /// Runs `body` with foreign keys checked at commit, so rows corrected one by one may pass
    /// through states between.
    func withForeignKeysDeferred(_ body: () throws -> Void) throws {
        try execute("PRAGMA defer_foreign_keys = ON")
        defer { try? execute("PRAGMA defer_foreign_keys = OFF") }
        try body()
    }
}

/// Runs async bodies one at a time, in order of arrival.
final class AsyncSerializer: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        // Reading the tail and storing the new one under one lock: two callers arriving together
        // must not both chain onto the same previous task and then run side by side.
        let task = tail.withLock { tail -> Task<T, any Error> in
            let previous = tail
            let task = Task { () async throws -> T in
                await previous?.value
                return try await body()
            }
            tail = Task { _ = try? await task.value }
            return task
        }
        return try await task.value
    }
}
#endif
