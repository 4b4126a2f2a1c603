// The device side of sync: writes through the replica are captured as changesets in an outbox
// in the same transaction; `sync()` pushes the outbox, then pulls the hub's log.
import Foundation
import Strata

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
    /// Page and batch sizes.
    public let settings: SyncReplicaSettings
    /// An identity this database generated for itself when it first became a replica (empty for
    /// a replica made before incarnations): a reinstalled app, or another device given the same
    /// ``replicaID``, is a new incarnation, whose writes the hub never takes for another's.
    public let incarnation: String
    /// The name the hub knows this replica by: ``replicaID`` and ``incarnation``.
    public var hubReplicaID: String { incarnation.isEmpty ? replicaID : replicaID + "#" + incarnation }
    let fingerprint: String
    /// One sync at a time, so the outbox is pushed and acknowledged in order.
    let syncing = AsyncSerializer()
    /// One push at a time (a running ``SyncLoop`` pushes beside the app's own calls).
    let pushing = AsyncSerializer()
    /// Signalled after each write commits, for a running ``SyncLoop``.
    let localWrites = SyncWakeup()
    /// Key columns of synced tables that accept NULL, refused at write time by the triggers
    /// installed on the writer (the session extension skips a row whose key is NULL).
    let nullableKeys: [(table: String, column: String)]

    /// Prepares `database` to sync `tables` of `space` (creating the outbox and state tables).
    /// - Throws: ``SyncError/tableNeedsGlobalKey(table:)`` for a table without a key every
    ///   replica agrees on; ``SyncError/refused(_:)`` for a missing table;
    ///   `ChangesetError.generatedColumnsUnsupported(table:)` for a table with generated columns
    ///   where the linked SQLite's session extension cannot record them (3.40 cannot).
    public init(
        database: Database, replicaID: String, space: String, tables: [String], transport: any SyncTransport,
        settings: SyncReplicaSettings = SyncReplicaSettings()
    ) throws {
        self.database = database
        self.replicaID = replicaID
        self.space = space
        self.tables = tables
        self.transport = transport
        self.settings = settings
        guard !tables.isEmpty else { throw SyncError.refused("a replica needs at least one table to sync") }
        let prepared = try database.bareWrite { connection -> (String, String, [(table: String, column: String)]) in
            for table in tables { _ = try SchemaFingerprint.keyColumns(of: table, in: connection) }
            // Refuses here, by name, a table the session extension cannot record (generated
            // columns on SQLite 3.40), rather than failing every write.
            try ChangeSession.refuseUnrecordable(tables: tables, on: connection)
            return try connection.transaction(transactionType: .immediate) {
                try SyncOutbox(connection).prepare()
                let incarnation = try Self.incarnation(connection)
                try Self.noteIdentity(replicaID: replicaID, space: space, connection)
                // Signed in as a user the transport knows: the writes from now on are theirs.
                try Self.noteUser(transport.signedInUser, connection)
                let fingerprint = try SchemaFingerprint.of(tables: tables, in: connection)
                try Self.noteSyncedTables(tables, fingerprint: fingerprint, connection)
                let nullable = try NullKeyGuards.installNullKeyGuards(tables: tables, connection)
                return (fingerprint, incarnation, nullable)
            }
        }
        (fingerprint, incarnation, nullableKeys) = prepared
    }

    /// The incarnation kept in the database, made now for a new replica. A database that synced
    /// before incarnations existed keeps the plain name, so the hub still knows its entries.
    static func incarnation(_ connection: Connection) throws -> String {
        if let kept: String = try SyncStatus.state("incarnation", connection) {
            return kept
        }
        let made = try SyncOutbox(connection).hasHistory() ? "" : UUID().uuidString.lowercased()
        try SyncStatus.setState("incarnation", .text(made), connection)
        return made
    }

    /// Remembers the synced tables and their definitions. A table added to the list since the
    /// last pull, or one whose columns changed (the app migrated to a newer schema version),
    /// needs the hub's rows from before: the log entries went past this replica's cursor
    /// unapplied, or were cut to the columns it had. The next pull catches up from a snapshot.
    static func noteSyncedTables(_ tables: [String], fingerprint: String, _ connection: Connection) throws {
        let names = Set(tables.map { $0.lowercased() }).sorted().joined(separator: "\n")
        let known: String? = try SyncStatus.state("tables", connection)
        let knownFingerprint: String? = try SyncStatus.state("fingerprint", connection)
        let pulled = try SyncStatus.read(connection).lastPulledVersion
        if pulled > 0 {
            if let known, known != names {
                let before = Set(known.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) })
                if !Set(tables.map { $0.lowercased() }).isSubset(of: before) {
                    try SyncStatus.setState("snapshot_needed", .integer(1), connection)
                }
            } else if known == nil {
                // Synced before the list was kept: which tables it pulled is unknown.
                try SyncStatus.setState("snapshot_needed", .integer(1), connection)
            }
            // Definitions not kept (a replica from before they were) or changed: the columns the
            // pulled rows were cut to are unknown or narrower than now. A table that only lost
            // columns or left the list needs nothing, but a snapshot is exact either way.
            if knownFingerprint != fingerprint {
                var widened = knownFingerprint == nil
                for table in tables {
                    let signature = try SchemaFingerprint.signature(of: table, in: connection)
                    let kept: String? = try SyncStatus.state("signature:" + table.lowercased(), connection)
                    if let kept, kept != signature { widened = true }
                }
                if widened { try SyncStatus.setState("snapshot_needed", .integer(1), connection) }
            }
        }
        // Pulled or not, rows written before an upgrade lack its columns.
        if knownFingerprint != nil, knownFingerprint != fingerprint {
            for table in tables {
                guard let kept: String = try SyncStatus.state("signature:" + table.lowercased(), connection),
                    kept != (try SchemaFingerprint.signature(of: table, in: connection))
                else { continue }
                try materializeAddedColumns(table, keptSignature: kept, connection)
            }
        }
        try SyncStatus.setState("tables", .text(names), connection)
        try SyncStatus.setState("fingerprint", .text(fingerprint), connection)
        for table in tables {
            try SyncStatus.setState("signature:" + table.lowercased(), .text(try SchemaFingerprint.signature(of: table, in: connection)), connection)
        }
    }

    /// Writes the columns `table` gained since `keptSignature` into every row. SQLite keeps an
    /// added column out of the rows written before `ALTER TABLE ... ADD COLUMN`, and 3.40's session
    /// then records such a row's first update as changing the column from NULL to its default: the
    /// hub, which stores the default, takes that for a conflict (`hubWins` drops the update) and
    /// the replica's undo writes the NULL. Rewritten once, with the table's triggers off (no value
    /// changes, so nothing is captured or synced).
    static func materializeAddedColumns(_ table: String, keptSignature: String, _ connection: Connection) throws {
        var known = Set<String>()
        for line in keptSignature.utf8.split(separator: UInt8(ascii: "\n")).dropFirst() {
            known.insert(String(decoding: line.prefix { $0 != UInt8(ascii: "|") }, as: UTF8.self))
        }
        let added = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 && !known.contains($0.name.lowercased()) }
        guard !added.isEmpty else { return }
        let triggers = try SyncTriggers.all(connection).filter { $0.table.lowercased() == table.lowercased() }
        try SyncTriggers.withoutTriggers(triggers, connection) {
            try connection.execute(
                "UPDATE " + quoteIdentifier("main") + "." + quoteIdentifier(table) + " SET "
                    + added.map { quoteIdentifier($0.name) + " = " + quoteIdentifier($0.name) }.joined(separator: ", "))
        }
    }

    /// Remembers which replica ID and space this database syncs as. Under another replica ID
    /// (a new login, a copied file given its own name) the writes the old name sent are the
    /// hub's already: they are forgotten, never sent again under the new name (the hub would
    /// take them as new, and an old value would overwrite a newer one). The pending ones go
    /// under the new name, which names the old ones too, so one the hub applied under them (its
    /// answer lost) is answered as applied. For another space (a
    /// team switch) the database starts over from that space's snapshot (``SyncStatus/needsSnapshot``
    /// until then), and refuses while it holds writes for the old space not yet pushed, which
    /// must never reach the new one.
    /// - Throws: ``SyncError/spaceChanged(from:to:pendingChanges:)``.
    static func noteIdentity(replicaID: String, space: String, _ connection: Connection) throws {
        let knownSpace: String? = try SyncStatus.state("space", connection)
        let knownReplica: String? = try SyncStatus.state("replica_id", connection)
        let outbox = SyncOutbox(connection)
        if let knownSpace, knownSpace != space {
            let pending = try outbox.count()
            guard pending == 0 else { throw SyncError.spaceChanged(from: knownSpace, to: space, pendingChanges: pending) }
            try outbox.forgetSpace()
            // The new space's answers name its user anew, and no write of the old one is pending
            // under any name.
            try setWriters(Writers(user: nil, later: []), connection)
            try setFormerReplicaIDs([], connection)
            try SyncStatus.setState("pushed_under_name", .null, connection)
            // The synced tables hold the old space's rows: the snapshot replaces them whole
            // (a pull from version 0 would apply the new space's log over them).
            try SyncStatus.setState("snapshot_needed", .integer(1), connection)
            // The rows stay until the snapshot replaces them (rows it keeps are never deleted, so
            // local tables' ON DELETE actions do not fire); `SyncStatus.needsSnapshot` tells the
            // app meanwhile, as the cursor (0) cannot.
        } else if let knownReplica, knownReplica != replicaID {
            try outbox.forgetSent()
            // A pending write may have reached the hub under the old name, its answer lost: the
            // pushes name the old one too, so the hub answers it as applied, not applies it again.
            // Only a name a push went out under can hold an applied write, so a file reopened
            // offline under several names, or switching back and forth between two, keeps the
            // name that matters among the 8 (once each) instead of pushing it out.
            let pushedUnderOldName: Int64? = try SyncStatus.state("pushed_under_name", connection)
            if try outbox.count() > 0, pushedUnderOldName == 1 {
                let incarnation: String = try SyncStatus.state("incarnation", connection) ?? ""
                let former = incarnation.isEmpty ? knownReplica : knownReplica + "#" + incarnation
                let others = try formerReplicaIDs(connection).filter { $0 != former }
                try setFormerReplicaIDs(Array((others + [former]).suffix(8)), connection)
            }
            try SyncStatus.setState("pushed_under_name", .null, connection)
        }
        try SyncStatus.setState("space", .text(space), connection)
        try SyncStatus.setState("replica_id", .text(replicaID), connection)
    }

    /// The names this database pushed under before its replica ID changed, while writes it may
    /// have pushed under them are pending.
    static func formerReplicaIDs(_ connection: Connection) throws -> [String] {
        guard let text: String = try SyncStatus.state("former_replica_ids", connection) else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    static func setFormerReplicaIDs(_ names: [String], _ connection: Connection) throws {
        let text = names.isEmpty ? nil : String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
        try SyncStatus.setState("former_replica_ids", text.map { .text($0) } ?? .null, connection)
    }

    /// Runs `body` in one IMMEDIATE transaction and stores what it changed in the synced tables
    /// in the outbox, in that same transaction: both commit or neither does.
    /// - Throws: ``SyncError/nullKey(table:column:)`` when the write leaves a NULL in a synced
    ///   table's key column (nothing is written); what `body` throws.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let tables = self.tables
        let capturePath = settings.capturePath
        let result: T
        do {
            result = try await database.writeInTransaction(transactionType: .immediate) { connection in
                // From the pre-update hook where SQLite has it (a session otherwise): the
                // transaction has just begun, so the tables' cached shapes may be refreshed.
                let capture = try connection.captureChanges(tables: tables, path: capturePath, atTransactionStart: true)
                defer { capture.close() }
                let result = try body(connection)
                // A COMMIT or ROLLBACK run by `body` ended the transaction: what it committed is
                // beyond the outbox's reach, and nothing more may run as if it were one transaction.
                guard connection.isInTransaction else {
                    throw SyncError.refused(
                        "the write ended its own transaction (COMMIT or ROLLBACK inside it): what it committed before is not captured; write without transaction control"
                    )
                }
                // The capture's own statements (rows read back, the outbox row) are bookkeeping:
                // out of the user's trace and authorizer.
                try connection.withBookkeeping {
                    let changeset = try capture.changeset()
                    if !changeset.isEmpty {
                        try SyncOutbox(connection).append(changeset)
                    }
                }
                return result
            }
        } catch let error as SQLiteError {
            throw nullKeyError(error) ?? error
        }
        localWrites.signal()
        return result
    }

    /// Writes captured and not yet acknowledged by the hub.
    public var pendingChangeCount: Int {
        get async throws {
            try await database.read { try SyncOutbox($0).count() }
        }
    }

    /// The writes not yet acknowledged by the hub, oldest first, each with the hub's refusal
    /// where it refused one: an app shows them, and drops one with ``discard(_:)``.
    public var pendingChanges: [SyncPendingChange] {
        get async throws {
            try await database.read { connection in
                try SyncOutbox(connection).pendingWithRefusals().map { row in
                    let changeset = Changeset(data: row.changeset)
                    let refusal = row.refusal.flatMap { try? JSONDecoder().decode(SyncRefusal.self, from: Data($0.utf8)) }
                    return SyncPendingChange(
                        sequence: row.sequence, changeset: changeset,
                        tables: try Self.tableNames(in: changeset), refusal: refusal)
                }
            }
        }
    }

    /// The pending writes refused and held (``SyncPendingChange/refusal``), oldest first: each was
    /// reported once by the sync that met it, and is not sent again until ``retry(_:)``,
    /// ``discard(_:)``, or a change of the space's rules. Observe them with ``statusUpdates()``
    /// (``SyncStatus/refusedChangeCount``).
    public var refusedChanges: [SyncPendingChange] {
        get async throws { try await pendingChanges.filter { $0.refusal != nil } }
    }

    /// Offers a refused write again at the next push (after the app fixed what refused it: a
    /// permission granted, a row restored).
    /// - Returns: Whether the write was still pending with a refusal.
    @discardableResult
    public func retry(_ change: SyncPendingChange) async throws -> Bool {
        try await database.write { try SyncOutbox($0).releaseRefusal(change.sequence) > 0 }
    }

    /// Offers every refused write again at the next push; returns how many there were.
    @discardableResult
    public func retryRefusedChanges() async throws -> Int {
        try await database.write { try SyncOutbox($0).releaseRefusal(nil) }
    }

    static func tableNames(in changeset: Changeset) throws -> [String] {
        var names: [String] = []
        try changeset.forEachChange { change in
            if !names.contains(change.table) { names.append(change.table) }
        }
        return names
    }

    /// The hub version this replica has pulled up to.
    public var lastPulledVersion: Int64 {
        get async throws { try await database.read { try SyncStatus.read($0).lastPulledVersion } }
    }

    /// Pushes the outbox, then pulls until caught up with the hub. A failure is kept as the
    /// status's `lastError` until a sync succeeds.
    /// - Throws: ``SyncError/entryRefused(_:)`` or ``SyncError/entriesRefused(_:)`` after the pull,
    ///   naming each write this sync found refused for the first time (the others are pushed and
    ///   the pull is applied around them; see ``refusedChanges``). A refusal is reported once: a
    ///   later sync that meets nothing new succeeds.
    public func sync() async throws {
        try await syncing.run {
            try await self.recordingStatus {
                let refusal = try await self.pushKeepingRefusal()
                try await self.pull()
                if let refusal { throw refusal }
            }
        }
    }

    /// Pushes; a refused write (which stays pending) is returned rather than thrown, so the pull
    /// after it still runs; any other failure is thrown.
    func pushKeepingRefusal() async throws -> SyncError? {
        do {
            try await push()
            return nil
        } catch let error as SyncError {
            guard !error.refusals.isEmpty else { throw error }
            return error
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
            let refusal = try await self.pushKeepingRefusal()
            try await self.catchUpFromSnapshot()
            try await self.pull()
            if let refusal { throw refusal }
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

    /// Undoes the writes the hub has not acknowledged and empties the outbox: for a push the hub
    /// refuses (a foreign key a concurrent delete broke, a constraint), once the app has decided
    /// the local changes should go. Returns how many entries were discarded. To drop only the
    /// refused write, use ``discard(_:)``.
    @discardableResult
    public func discardPendingChanges() async throws -> Int {
        let tables = self.tables
        return try await database.writeInTransaction(transactionType: .immediate) { connection in
            let sequences = try SyncOutbox(connection).sequences()
            try Self.rebase(tables: tables, dropping: Set(sequences), connection) { _ in nil }
            try Self.setFormerReplicaIDs([], connection)
            return sequences.count
        }
    }

    /// Undoes one pending write and removes it from the outbox, keeping every other: for a write
    /// the hub refused (``SyncPendingChange/refusal``). Later writes stay, made again without it.
    /// - Returns: Whether the write was still pending (the hub may have acknowledged it meanwhile).
    @discardableResult
    public func discard(_ change: SyncPendingChange) async throws -> Bool {
        let tables = self.tables
        return try await database.writeInTransaction(transactionType: .immediate) { connection in
            guard try SyncOutbox(connection).isPending(change.sequence) else { return false }
            try Self.rebase(tables: tables, dropping: [change.sequence], connection) { _ in nil }
            if try SyncOutbox(connection).count() == 0 { try Self.setFormerReplicaIDs([], connection) }
            return true
        }
    }

    /// The named error for a NULL-key guard's refusal, nil for any other error.
    func nullKeyError(_ error: SQLiteError) -> SyncError? {
        let message = error.message
        guard let range = message.range(of: NullKeyGuards.nullKeyMarker) else { return nil }
        let digits = message[range.upperBound...].unicodeScalars.prefix { ("0"..."9").contains($0) }
        guard let index = Int(String(String.UnicodeScalarView(digits))), nullableKeys.indices.contains(index) else { return nil }
        return .nullKey(table: nullableKeys[index].table, column: nullableKeys[index].column)
    }
}
