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
    private let fingerprint: String
    /// One sync at a time, so the outbox is pushed and acknowledged in order.
    private let syncing = AsyncSerializer()
    /// One push at a time (a running ``SyncLoop`` pushes beside the app's own calls).
    private let pushing = AsyncSerializer()
    /// Signalled after each write commits, for a running ``SyncLoop``.
    let localWrites = SyncWakeup()
    /// Key columns of synced tables that accept NULL, refused at write time by the triggers
    /// installed on the writer (the session extension skips a row whose key is NULL).
    private let nullableKeys: [(table: String, column: String)]

    /// Prepares `database` to sync `tables` of `space` (creating the outbox and state tables).
    /// - Throws: ``SyncError/tableNeedsGlobalKey(table:)`` for a table without a key every
    ///   replica agrees on; ``SyncError/refused(_:)`` for a missing table;
    ///   `ChangesetError.generatedColumnsUnsupported(table:)` for a table with generated columns
    ///   where the linked SQLite's session extension cannot record them (3.40 cannot).
    public init(database: Database, replicaID: String, space: String, tables: [String], transport: any SyncTransport,
                settings: SyncReplicaSettings = SyncReplicaSettings()) throws {
        self.database = database
        self.replicaID = replicaID
        self.space = space
        self.tables = tables
        self.transport = transport
        self.settings = settings
        guard !tables.isEmpty else { throw SyncError.refused("a replica needs at least one table to sync") }
        let prepared = try database.executeWrite { connection -> (String, String, [(table: String, column: String)]) in
            for table in tables { _ = try SchemaFingerprint.keyColumns(of: table, in: connection) }
            // Refuses here, by name, a table the session extension cannot record (generated
            // columns on SQLite 3.40), rather than failing every write.
            try ChangeSession.refuseUnrecordable(tables: tables, on: connection)
            return try connection.transaction(transactionType: .immediate) {
                try SyncOutbox(connection).prepare()
                let incarnation = try Self.incarnation(connection)
                try Self.noteSyncedTables(tables, connection)
                let nullable = try Self.installNullKeyGuards(tables: tables, connection)
                return (try SchemaFingerprint.of(tables: tables, in: connection), incarnation, nullable)
            }
        }
        (fingerprint, incarnation, nullableKeys) = prepared
    }

    /// The incarnation kept in the database, made now for a new replica. A database that synced
    /// before incarnations existed keeps the plain name, so the hub still knows its entries.
    private static func incarnation(_ connection: Connection) throws -> String {
        if let kept: String = try SyncStatus.state("incarnation", connection) {
            return kept
        }
        let made = try SyncOutbox(connection).hasHistory() ? "" : UUID().uuidString.lowercased()
        try SyncStatus.setState("incarnation", .text(made), connection)
        return made
    }

    /// Remembers the synced tables; a table added to the list since the last pull needs the hub's
    /// rows from before (its log entries went past this replica's cursor unapplied), which the
    /// next pull fetches from a snapshot.
    private static func noteSyncedTables(_ tables: [String], _ connection: Connection) throws {
        let names = Set(tables.map { $0.lowercased() }).sorted().joined(separator: "\n")
        let known: String? = try SyncStatus.state("tables", connection)
        if let known, known != names {
            let before = Set(known.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) })
            let pulled = try SyncStatus.read(connection).lastPulledVersion
            if pulled > 0, !Set(tables.map { $0.lowercased() }).isSubset(of: before) {
                try SyncStatus.setState("snapshot_needed", .integer(1), connection)
            }
        } else if known == nil, try SyncStatus.read(connection).lastPulledVersion > 0 {
            // Synced before the list was kept: which tables it pulled is unknown.
            try SyncStatus.setState("snapshot_needed", .integer(1), connection)
        }
        try SyncStatus.setState("tables", .text(names), connection)
    }

    /// Temporary triggers on the writer that refuse, at the statement, a NULL in a key column
    /// that accepts one (`id TEXT PRIMARY KEY` does): SQLite stores such a row, and the session
    /// extension skips it, so it would never sync and nothing would say so.
    private static func installNullKeyGuards(tables: [String], _ connection: Connection) throws -> [(table: String, column: String)] {
        var nullable: [(table: String, column: String)] = []
        for table in tables {
            guard let entry = try connection.schemaReader.table(named: table) else { continue }
            // A WITHOUT ROWID table's key is NOT NULL by itself.
            if tableOptionsAreWithoutRowID(Connection.tableOptions(ofCreateTableSQL: entry.sql ?? "")) { continue }
            let keys = try connection.schemaReader.columns(ofTable: table).filter { $0.primaryKeyIndex > 0 && !$0.notNull }
            for key in keys {
                let index = nullable.count
                nullable.append((table, key.name))
                let message = sqlLiteral(.text("\(nullKeyMarker)\(index): the key column \(key.name) of the synced table \(table) is NULL; such a row never syncs"))
                for event in ["INSERT", "UPDATE OF " + quoteIdentifier(key.name)] {
                    let name = quoteIdentifier("\(SyncBookkeeping.prefix)null_key_\(index)_\(event.hasPrefix("INSERT") ? "insert" : "update")")
                    try connection.execute("DROP TRIGGER IF EXISTS temp.\(name)")
                    try connection.execute("""
                        CREATE TEMP TRIGGER \(name) BEFORE \(event) ON main.\(quoteIdentifier(table))
                        WHEN NEW.\(quoteIdentifier(key.name)) IS NULL BEGIN SELECT RAISE(ABORT, \(message)); END
                        """)
                }
            }
        }
        return nullable
    }

    /// The start of the message of a NULL-key refusal, followed by the guard's index.
    private static let nullKeyMarker = "strata-sync-null-key "

    /// Runs `body` in one IMMEDIATE transaction and stores what it changed in the synced tables
    /// in the outbox, in that same transaction: both commit or neither does.
    /// - Throws: ``SyncError/nullKey(table:column:)`` when the write leaves a NULL in a synced
    ///   table's key column (nothing is written); what `body` throws.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let tables = self.tables
        let result: T
        do {
            result = try await database.writeInTransaction(transactionType: .immediate) { connection in
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
                    try SyncOutbox(connection).append(changeset)
                }
                return result
            }
        } catch let error as SQLiteError {
            throw nullKeyError(error) ?? error
        }
        localWrites.signal()
        return result
    }

    /// The named error for a NULL-key guard's refusal, nil for any other error.
    private func nullKeyError(_ error: SQLiteError) -> SyncError? {
        let message = error.message
        guard let range = message.range(of: Self.nullKeyMarker) else { return nil }
        let digits = message[range.upperBound...].unicodeScalars.prefix { ("0"..."9").contains($0) }
        guard let index = Int(String(String.UnicodeScalarView(digits))), nullableKeys.indices.contains(index) else { return nil }
        return .nullKey(table: nullableKeys[index].table, column: nullableKeys[index].column)
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
                    return SyncPendingChange(sequence: row.sequence, changeset: changeset,
                                             tables: try Self.tableNames(in: changeset), refusal: refusal)
                }
            }
        }
    }

    private static func tableNames(in changeset: Changeset) throws -> [String] {
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
    /// - Throws: ``SyncError/entryRefused(_:)`` after the pull when the hub refused a pending
    ///   write (the others are pushed and the pull is applied around it; see ``pendingChanges``).
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
    private func pushKeepingRefusal() async throws -> SyncError? {
        do {
            try await push()
            return nil
        } catch let error as SyncError {
            guard case .entryRefused = error else { throw error }
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

    /// Sends the outbox in order, in batches within ``SyncReplicaSettings``; what the hub
    /// acknowledged waits for the pull that reaches the version it got.
    /// - Throws: ``SyncError/entryRefused(_:)`` once the rest is pushed, when the hub refused a
    ///   write or one is larger than a push may carry (it stays pending, see ``pendingChanges``).
    public func push() async throws {
        try await pushing.run { try await self.pushOutbox() }
    }

    private func pushOutbox() async throws {
        var after: Int64 = 0
        var refusals: [SyncRefusal] = []
        // Rows refused writes touched, and which write: a later write on one waits with it.
        var held: [String: Int64] = [:]
        let settings = self.settings
        while true {
            let batchLimit = max(1, settings.maximumPushEntries)
            let from = after
            let candidates = try await database.read { try SyncOutbox($0).entries(after: from, limit: batchLimit) }
            guard !candidates.isEmpty else { break }
            var entries: [SyncOutboxEntry] = []
            var bytes = 0
            for entry in candidates {
                // (A batch cut short meets its last refused write again: it is not its own blocker.)
                let blocker = held.isEmpty ? nil : rowsTouched(by: entry.changeset).lazy.compactMap { held[$0] }.first { $0 != entry.sequence }
                if let blocker {
                    if entries.isEmpty { after = entry.sequence }
                    let refusal = SyncRefusal(sequence: entry.sequence, reason: .dependsOnRefused, table: nil, key: nil,
                                              message: "it changes a row that write \(blocker), refused, made or changed; it waits for that write")
                    refusals.append(refusal)
                    for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = entry.sequence }
                    try await database.write { try Self.record([refusal], $0) }
                    if entries.isEmpty { continue } else { break }
                }
                if entry.changeset.count > settings.maximumPushBytes {
                    for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = entry.sequence }
                    // Never pushable as it is: said by name, the rest goes on.
                    if entries.isEmpty { after = entry.sequence }
                    let refusal = SyncRefusal(sequence: entry.sequence, reason: .tooLarge, table: nil, key: nil,
                                              message: "the write is \(entry.changeset.count) bytes, over the \(settings.maximumPushBytes) a push may carry")
                    refusals.append(refusal)
                    try await database.write { try Self.record([refusal], $0) }
                    if entries.isEmpty { continue } else { break }
                }
                if !entries.isEmpty, bytes + entry.changeset.count > settings.maximumPushBytes { break }
                bytes += entry.changeset.count
                entries.append(entry)
            }
            guard let last = entries.last else { continue }
            after = last.sequence
            let response = try await transport.push(SyncPushRequest(space: space, replicaID: hubReplicaID, tables: tables,
                                                                     schemaFingerprint: fingerprint, entries: entries))
            try await acknowledge(entries, response)
            for refusal in response.refused ?? [] {
                refusals.append(refusal)
                guard let entry = entries.first(where: { $0.sequence == refusal.sequence }) else { continue }
                for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = refusal.sequence }
            }
        }
        if let first = refusals.first { throw SyncError.entryRefused(first) }
    }

    /// Files what the hub acknowledged under the version each entry got, and its refusals.
    private func acknowledge(_ entries: [SyncOutboxEntry], _ response: SyncPushResponse) async throws {
        let byEntry = Dictionary(entries.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        try await database.writeInTransaction(transactionType: .immediate) { connection in
            // Acknowledged entries wait, with the hub version each was applied at, until the
            // pull passes that version. They are also kept for a while (``sentRetention``): a hub
            // restored from an older copy may have lost them, and they are then sent again.
            let now = Int64(Date().timeIntervalSince1970)
            let outbox = SyncOutbox(connection)
            for (index, sequence) in response.acknowledged.enumerated() {
                guard let entry = byEntry[sequence] else { continue }
                let version = response.versions.flatMap { $0.indices.contains(index) ? $0[index] : nil } ?? response.hubVersion
                // Another syncer of this file (a second process, a second `Database`) may have
                // settled the entry already: then its outbox row is gone and nothing is filed again.
                let chain = version == response.hubVersion ? response.chain : nil
                _ = try outbox.acknowledge(entry, version: version, chain: chain, at: now)
            }
            try Self.record(response.refused ?? [], connection)
            try outbox.forgetSent(before: now - Int64(Self.sentRetention.components.seconds))
        }
    }

    /// Keeps refusals of entries still pending, for ``pendingChanges``.
    private static func record(_ refusals: [SyncRefusal], _ connection: Connection) throws {
        for refusal in refusals {
            let text = String(decoding: try JSONEncoder().encode(refusal), as: UTF8.self)
            try SyncOutbox(connection).recordRefusal(sequence: refusal.sequence, json: text)
        }
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
            guard try SyncOutbox(connection).contains(change.sequence) else { return false }
            try Self.rebase(tables: tables, dropping: [change.sequence], connection) { _ in nil }
            return true
        }
    }

    /// Takes the synced tables back to the hub's state at the cursor, runs `moveCursor` (which
    /// applies a page, or copies a snapshot, and returns the version it reached), drops the
    /// local entries the hub's log now holds and those in `dropping`, and makes the rest again.
    ///
    /// Exact both ways: the writes since the last rebase are undone newest first from the
    /// changesets their sessions recorded, then the rebase's own changes from the changeset a
    /// session recorded while it made them (conflicts settled as they were then), so the tables
    /// are the hub's at the cursor; the rest made again is recorded the same way for next time.
    private static func rebase(tables: [String], dropping: Set<Int64>, _ connection: Connection,
                               moveCursor: (Connection) throws -> Int64?) throws {
        let synced = Set(tables.map { $0.lowercased() })
        let filter: (String) -> Bool = { synced.contains($0.lowercased()) }
        let local = try SyncOutbox(connection).localEntries()
        let through: Int64 = try SyncStatus.state("rebase_through", connection) ?? 0
        let made: Data? = try SyncStatus.state("rebase", connection)
        // The changesets hold what the origin's triggers did to synced tables: those triggers
        // stay off while they are applied; the others (an FTS5 index's) see every row.
        let triggers = try SyncTriggers.writingSyncedTables(tables, connection)
        try connection.withForeignKeysDeferred { try SyncTriggers.withoutTriggers(triggers, connection) {
            for entry in local.reversed() where entry.sequence > through {
                try connection.apply(try entry.changeset.inverted(), filter: filter, onConflict: undoConflicts)
            }
            if let made, !made.isEmpty {
                try connection.apply(try Changeset(data: made).inverted(), filter: filter, onConflict: undoConflicts)
            }
            let reached = try moveCursor(connection)
            if let reached {
                try SyncOutbox(connection).settle(through: reached)
            }
            for sequence in dropping { try SyncOutbox(connection).drop(sequence) }
            let remaining = local.filter { entry in
                guard !dropping.contains(entry.sequence) else { return false }
                guard let reached, let version = entry.version else { return true }
                return version > reached
            }
            // A pending write that the hub's newer rows make break a foreign key (a child of a row
            // another replica deleted) is left out locally, as the hub will refuse it: each try
            // starts again from the same point without it, so the rebase never fails for one write.
            var leftOut = Set<Int64>()
            var remade = Changeset(data: Data())
            while true {
                try connection.execute("SAVEPOINT strata_sync_remake")
                let session = try connection.recordChanges(tables: tables)
                var broken: Int64?
                for entry in remaining where !leftOut.contains(entry.sequence) {
                    var breaksForeignKey = false
                    do {
                        try connection.apply(entry.changeset, filter: filter) { conflict in
                            if conflict.kind == .foreignKey { breaksForeignKey = true }
                            return remakeConflicts(conflict)
                        }
                    } catch where breaksForeignKey {
                        broken = entry.sequence
                        break
                    }
                }
                if let broken {
                    session.close()
                    try connection.execute("ROLLBACK TO SAVEPOINT strata_sync_remake")
                    try connection.execute("RELEASE SAVEPOINT strata_sync_remake")
                    leftOut.insert(broken)
                    continue
                }
                remade = try session.changeset()
                session.close()
                try connection.execute("RELEASE SAVEPOINT strata_sync_remake")
                break
            }
            try SyncStatus.setState("rebase", .blob(remade.data), connection)
            try SyncStatus.setState("rebase_through", .integer(max(through, local.last?.sequence ?? 0)), connection)
        } }
    }

    /// Moves the cursor over a page without undoing and redoing anything, where that is exact:
    /// an empty page with no acknowledged entry to settle, or a page that is this replica's own
    /// oldest writes, logged by the hub byte for byte as they were made (no conflict, no trigger),
    /// made directly on the hub's state at the cursor (no rebase since). A replica pulling back
    /// its own 2,000 offline writes in pages of 3 pays one small transaction a page, not a redo of
    /// all of them.
    private static func fastForward(_ page: [SyncLogEntry], after: Int64, origin: String, _ connection: Connection) throws -> Bool {
        let local = try SyncOutbox(connection).localEntries()
        if page.isEmpty {
            return !local.contains { entry in entry.version.map { $0 <= after } ?? false }
        }
        let made: Data? = try SyncStatus.state("rebase", connection)
        guard made?.isEmpty ?? true, local.count >= page.count else { return false }
        let through: Int64 = try SyncStatus.state("rebase_through", connection) ?? 0
        for (entry, mine) in zip(page, local) {
            guard entry.replicaID == origin, entry.sequence == mine.sequence, mine.sequence > through, mine.version == entry.version,
                  entry.changeset == mine.changeset.data else { return false }
        }
        for entry in page {
            try SyncOutbox(connection).settle(sequence: entry.sequence)
        }
        if let last = page.last {
            try SyncStatus.setState("pulled", .integer(last.version), connection)
            try SyncStatus.setState("pulled_chain", last.chain.map { .integer($0) } ?? .null, connection)
        }
        return true
    }

    /// Applies the hub's log after this replica's cursor, in pages, until caught up. Pending
    /// writes stay pending: each page is applied under them (they are undone, the page applied,
    /// and they are made again), so a write the hub refused never stops the pull.
    public func pull() async throws {
        if try await database.read({ try SyncStatus.state("snapshot_needed", $0) as Int64? }) == 1 {
            try await catchUpFromSnapshot()
        }
        for _ in 0..<100_000 {
            // The pushes acknowledged before this request: the hub had them at their versions
            // then, so its answer must reach those versions (a push acknowledged meanwhile, by the
            // loop's other lane, may be newer than the answer).
            let (after, afterChain, lastAcknowledged) = try await database.read { connection in
                (try SyncStatus.read(connection).lastPulledVersion, try SyncStatus.pulledChain(connection),
                 try SyncOutbox(connection).lastSent())
            }
            let response = try await transport.pull(SyncPullRequest(space: space, replicaID: hubReplicaID, tables: tables,
                                                                    schemaFingerprint: fingerprint, after: after,
                                                                    limit: max(1, settings.pullPageSize),
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
            let tables = self.tables
            let synced = Set(tables.map { $0.lowercased() })
            let outcome: PageOutcome = try await database.writeInTransaction(transactionType: .immediate) { connection in
                // Another pull (the app's beside a running loop, another process on this file)
                // applied a page since this one was asked for: this page is not applied twice; the
                // next request starts after it.
                guard try SyncStatus.read(connection).lastPulledVersion == after else { return .applied }
                let inflight = try SyncOutbox(connection).localEntries().filter { $0.version != nil }
                for entry in response.entries {
                    if let mine = inflight.first(where: { $0.version == entry.version }), let ours = mine.chain, let theirs = entry.chain, ours != theirs {
                        return .hubRolledBack
                    }
                }
                if try Self.fastForward(response.entries, after: after, origin: self.hubReplicaID, connection) { return .applied }
                try Self.rebase(tables: tables, dropping: [], connection) { connection in
                    for entry in response.entries {
                        try connection.apply(Changeset(data: entry.changeset), filter: { synced.contains($0.lowercased()) }, onConflict: Self.replaceConflicts)
                        try SyncStatus.setState("pulled", .integer(entry.version), connection)
                        try SyncStatus.setState("pulled_chain", entry.chain.map { .integer($0) } ?? .null, connection)
                    }
                    // Caught up (an empty page): the log holds every acknowledged entry up to the
                    // cursor, the rest it dropped.
                    return response.entries.last?.version ?? after
                }
                return .applied
            }
            switch outcome {
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
            try SyncOutbox(connection).resendSent()
        }
        _ = try await pushKeepingRefusal()
        try await catchUpFromSnapshot()
    }

    /// Replaces the synced tables' rows with a hub snapshot's, in one transaction: the log entries
    /// up to the snapshot's version are in it, so pushed changes it covers are done, and those it
    /// does not, and the pending ones, are made again, as after a pull.
    private func catchUpFromSnapshot() async throws {
        let request = SyncSnapshotRequest(space: space, replicaID: hubReplicaID, tables: tables, schemaFingerprint: fingerprint)
        let snapshot = try await transport.snapshot(request)
        let tables = self.tables
        try await database.writeWithoutTransaction { connection in
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
            try connection.transaction(transactionType: .immediate) {
                try Self.rebase(tables: tables, dropping: [], connection) { connection in
                    try Self.copyTables(Self.childrenFirst(tables, connection), from: schema, on: connection)
                    try SyncStatus.setState("pulled", .integer(snapshot.version), connection)
                    try SyncStatus.setState("pulled_chain", snapshot.chain.map { .integer($0) } ?? .null, connection)
                    try SyncStatus.setState("snapshot_needed", .null, connection)
                    return snapshot.version
                }
            }
        }
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

    /// Undoing recorded changes meets what they made; anything else is a state the undo cannot
    /// take back, and the row stays as it is.
    private static func undoConflicts(_ conflict: Conflict) -> ConflictResolution {
        switch conflict.kind {
        case .data, .conflict: return .replace
        case .notFound, .constraint: return .omit
        case .foreignKey: return .abort
        }
    }

    /// A pending write made again over the hub's newer rows: it wins where it can, and one the
    /// hub's rows now refuse (a UNIQUE value another replica took) is left out locally, still
    /// pending, as the hub will refuse it too.
    private static func remakeConflicts(_ conflict: Conflict) -> ConflictResolution {
        switch conflict.kind {
        case .data, .conflict: return .replace
        case .notFound, .constraint: return .omit
        case .foreignKey: return .abort
        }
    }
}

/// What one transaction of a pull did with a page.
private enum PageOutcome: Sendable {
    case applied, hubRolledBack
}

/// How a replica pages its pulls and batches its pushes.
public struct SyncReplicaSettings: Sendable, Equatable {
    /// Log entries asked for per pull request (the hub may answer fewer).
    public var pullPageSize: Int
    /// Outbox entries per push request, within the hub's limit (1,000 by default).
    public var maximumPushEntries: Int
    /// Changeset bytes per push request, within the hub's body limit (8 MiB by default); a
    /// single write larger than this is never pushed and is reported as refused (`.tooLarge`).
    public var maximumPushBytes: Int

    /// Settings with the defaults: pages of 500, pushes of at most 500 entries and 4 MiB.
    public init(pullPageSize: Int = 500, maximumPushEntries: Int = 500, maximumPushBytes: Int = 4 << 20) {
        self.pullPageSize = pullPageSize
        self.maximumPushEntries = maximumPushEntries
        self.maximumPushBytes = maximumPushBytes
    }
}

/// A write captured by a replica and not yet acknowledged by the hub.
public struct SyncPendingChange: Sendable, Equatable {
    /// The write's place in the replica's order.
    public let sequence: Int64
    /// What the write changed.
    public let changeset: Changeset
    /// The synced tables it changed.
    public let tables: [String]
    /// Why the hub refused it at the last push, if it did.
    public let refusal: SyncRefusal?
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
        let outbox = SyncOutbox(connection)
        guard try outbox.exists() else {
            return SyncStatus(pendingChangeCount: 0, lastPulledVersion: 0, lastError: nil)
        }
        let pending = try outbox.count()
        let pulled: Int64 = try outbox.state("pulled") ?? 0
        let error: String? = try outbox.state("last_error")
        return SyncStatus(pendingChangeCount: pending, lastPulledVersion: pulled, lastError: error)
    }

    /// The hub's log chain at the pulled version, as the last pull or snapshot brought it.
    static func pulledChain(_ connection: Connection) throws -> Int64? {
        try SyncOutbox(connection).state("pulled_chain")
    }

    /// A value kept in the replica's state table.
    static func state<Value: Extractable>(_ key: String, _ connection: Connection) throws -> Value? where Value.DataType == Value {
        try SyncOutbox(connection).state(key)
    }

    static func setState(_ key: String, _ value: BindingValue, _ connection: Connection) throws {
        try SyncOutbox(connection).setState(key, value)
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
