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
/// outbox is empty (after a push), so it never lands over local work the hub has not seen; the
/// hub's corrections of conflicting rows, and the log from the hub, are applied as ordinary
/// commits, which observations see.
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

    /// Prepares `database` to sync `tables` of `space` (creating the outbox and state tables).
    /// - Throws: ``SyncError/tableNeedsGlobalKey(table:)`` for a table without a key every
    ///   replica agrees on; ``SyncError/refused(_:)`` for a missing table.
    public init(database: Database, replicaID: String, space: String, tables: [String], transport: any SyncTransport) throws {
        self.database = database
        self.replicaID = replicaID
        self.space = space
        self.tables = tables
        self.transport = transport
        fingerprint = try database.executeWrite { connection in
            for table in tables { _ = try SchemaFingerprint.keyColumns(of: table, in: connection) }
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(syncTablePrefix)outbox(sequence INTEGER PRIMARY KEY AUTOINCREMENT, changeset BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS \(syncTablePrefix)state(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                """)
            return try SchemaFingerprint.of(tables: tables, in: connection)
        }
    }

    /// Runs `body` in one IMMEDIATE transaction and stores what it changed in the synced tables
    /// in the outbox, in that same transaction: both commit or neither does.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let tables = self.tables
        return try await database.writeInTransaction(transactionType: .immediate) { connection in
            let session = try connection.recordChanges(tables: tables)
            defer { session.close() }
            let result = try body(connection)
            let changeset = try session.changeset()
            if !changeset.isEmpty {
                try connection.run(literal: "INSERT INTO \(identifier: syncTablePrefix + "outbox")(changeset) VALUES (\(changeset.data))")
            }
            return result
        }
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
            do {
                try await self.push()
                try await self.pull()
                try await self.database.write { try SyncStatus.setState("last_error", .null, $0) }
            } catch {
                let message = String(describing: error)
                _ = try? await self.database.write { try SyncStatus.setState("last_error", .text(message), $0) }
                throw error
            }
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

    /// Sends the outbox in order; removes what the hub acknowledged and applies its corrections.
    public func push() async throws {
        let entries: [SyncOutboxEntry] = try await database.read { connection in
            let rows: [Row] = try connection.query(literal: "SELECT sequence, changeset FROM \(identifier: syncTablePrefix + "outbox") ORDER BY sequence")
            return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
        guard !entries.isEmpty else { return }
        let response = try await transport.push(SyncPushRequest(space: space, replicaID: replicaID, tables: tables,
                                                                 schemaFingerprint: fingerprint, entries: entries))
        let acknowledged = response.acknowledged
        try await database.writeInTransaction(transactionType: .immediate) { connection in
            for sequence in acknowledged {
                try connection.run(literal: "DELETE FROM \(identifier: syncTablePrefix + "outbox") WHERE sequence = \(sequence)")
            }
            // The hub's rows where it settled a conflict otherwise (not captured: they are the hub's).
            try connection.withForeignKeysDeferred {
                for row in response.corrections { try connection.applySyncRow(row) }
            }
        }
    }

    /// Applies the hub's log after this replica's cursor, in pages, until caught up. A page is
    /// applied only when the outbox is empty; otherwise the outbox is pushed first.
    public func pull() async throws {
        for _ in 0..<10_000 {
            let after: Int64 = try await lastPulledVersion
            let response = try await transport.pull(SyncPullRequest(space: space, replicaID: replicaID, tables: tables,
                                                                    schemaFingerprint: fingerprint, after: after, limit: 500))
            guard !response.entries.isEmpty else { return }
            let tables = Set(self.tables.map { $0.lowercased() })
            let applied: Bool = try await database.writeInTransaction(transactionType: .immediate) { connection in
                let pending: Int = try connection.query(literal: "SELECT count(*) FROM \(identifier: syncTablePrefix + "outbox")") ?? 0
                guard pending == 0 else { return false }
                for entry in response.entries {
                    try connection.apply(Changeset(data: entry.changeset), filter: { tables.contains($0.lowercased()) }) { conflict in
                        switch conflict.kind {
                        case .data, .conflict: return .replace
                        case .notFound: return .omit
                        case .constraint, .foreignKey: return .abort
                        }
                    }
                    try SyncStatus.setState("pulled", .integer(entry.version), connection)
                }
                return true
            }
            if !applied { try await push() }
        }
    }
}

/// What an app shows about a replica's sync.
public struct SyncStatus: Sendable, Equatable {
    /// Captured writes the hub has not acknowledged.
    public var pendingChangeCount: Int
    /// The hub version pulled up to.
    public var lastPulledVersion: Int64
    /// Why the last sync failed; nil once one succeeds.
    public var lastError: String?

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
        let previous = tail.withLock { $0 }
        let task = Task { () async throws -> T in
            await previous?.value
            return try await body()
        }
        tail.withLock { $0 = Task { _ = try? await task.value } }
        return try await task.value
    }
}
#endif
