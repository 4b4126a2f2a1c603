// The hub: the authoritative copy of each space, an append-only log of the changes it applied,
// and the record of which (replica, sequence) entries it has applied, so a retried push is applied
// once.
import Foundation
import Strata

/// Why the hub did not apply one entry; becomes a ``SyncRefusal`` in the push's answer.
struct EntryRefusal: Error {
    let reason: SyncRefusal.Reason
    let table: String?
    let key: [SyncValue]?
    let message: String
}

/// The server side of sync: one SQLite file per space in a folder, each holding the space's
/// tables, a log numbered by hub version, and the entries applied so far.
///
/// ```swift
/// let hub = try SyncHub(directory: hubFolder)
/// try hub.createSpace("team") { db in try db.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
/// hub.setPolicy(.lastWriterWins, forTable: "todo")
/// ```
/// A push is applied entry by entry, each in one transaction under the table's ``SyncPolicy``
/// with foreign keys enforced; a damaged or foreign-key-violating entry refuses the push from
/// there on, and the replica keeps it.
public final class SyncHub: Sendable {
    /// The folder holding one `<space>.sqlite` per space.
    public let directory: URL
    private let spaces = Locked<[String: ConnectionQueue]>([:])
    private let policies = Locked<[String: SyncPolicy]>([:])
    private let configureConnection: @Sendable (Connection) throws -> Void
    /// What one push or pull may carry.
    public let limits: SyncLimits
    /// Long polls waiting for a space to pass a version, woken by the push that commits it.
    private let waiters = Locked<[String: [(after: Int64, id: UUID, continuation: CheckedContinuation<Void, Never>)]]>([:])

    /// Opens the hub in `directory`, creating the folder if needed. `configureConnection` runs on
    /// each space's connection when the hub opens it (to instrument it with StrataServer's
    /// `connection.instrument(_:)`, set a busy timeout, ...).
    public init(directory: URL, limits: SyncLimits = SyncLimits(),
                configureConnection: @escaping @Sendable (Connection) throws -> Void = { _ in }) throws {
        self.directory = directory
        self.limits = limits
        self.configureConnection = configureConnection
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Opens the hub in the folder at `directory` (a path), creating it if needed.
    public convenience init(directory: String, limits: SyncLimits = SyncLimits(),
                            configureConnection: @escaping @Sendable (Connection) throws -> Void = { _ in }) throws {
        try self.init(directory: URL(fileURLWithPath: directory), limits: limits, configureConnection: configureConnection)
    }

    /// Returns once the space's version is past `version`, or after `timeout`, or when the task is
    /// cancelled: a long poll waits here, woken by the push that commits (no polling).
    public func waitForVersion(ofSpace name: String, after version: Int64, timeout: Duration) async throws {
        guard try self.version(ofSpace: name) <= version, timeout > .zero else { return }
        let id = UUID()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.wake(name, id: id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters.withLock { $0[name, default: []].append((version, id, continuation)) }
                // A push that committed between the check above and the registration woke nobody.
                if (try? self.version(ofSpace: name)).map({ $0 > version }) ?? true { wake(name, id: id) }
            }
        } onCancel: {
            wake(name, id: id)
        }
    }

    /// Wakes the wait `id`, or every wait on `name` behind `version` when `id` is nil.
    private func wake(_ name: String, id: UUID? = nil, reached version: Int64 = .max) {
        let woken = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            guard let list = waiters[name] else { return [] }
            let (wake, keep) = (list.filter { id == nil ? $0.after < version : $0.id == id },
                                list.filter { id == nil ? $0.after >= version : $0.id != id })
            waiters[name] = keep.isEmpty ? nil : keep
            return wake.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Creates the space `name`: `schema` makes its tables, which replicas must match.
    /// - Throws: ``SyncError/refused(_:)`` for a bad name or an existing space; what `schema`
    ///   throws (then no space is created).
    public func createSpace(_ name: String, schema: (Connection) throws -> Void) throws {
        try validateSpaceName(name)
        let url = fileURL(of: name)
        guard !FileManager.default.fileExists(atPath: url.path) else { throw SyncError.refused("the space \(name) exists already") }
        do {
            let connection = try Connection(storageLocation: .onDisk(url.path))
            // Another process may use the space's file (a second hub process, `strata sync
            // --hub-folder`): wait for its locks rather than failing at once.
            try connection.busyHandler(.timeout(10))
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.transaction {
                try schema(connection)
                try SyncLog(connection).prepare()
            }
            try connection.execute("PRAGMA foreign_keys = ON")
            try configureConnection(connection)
            spaces.withLock { $0[name] = ConnectionQueue(connection: connection) }
        } catch {
            try? FileManager.default.removeItem(at: url)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            throw error
        }
    }

    /// Settles conflicts on `table` by `policy` from now on (`.lastWriterWins` until set).
    public func setPolicy(_ policy: SyncPolicy, forTable table: String) {
        policies.withLock { $0[table.lowercased()] = policy }
    }

    /// The space's newest version (0 before any change).
    public func version(ofSpace name: String) throws -> Int64 {
        try queue(of: name).execute { try SyncLog($0).currentVersion() }
    }

    /// Runs `body` on the space's connection (to read the hub's state, or migrate it).
    public func withSpace<T>(_ name: String, _ body: (Connection) throws -> T) throws -> T {
        try queue(of: name).execute(closure: body)
    }

    // MARK: - Serving replicas

    /// Applies a replica's entries in order (each once), and acknowledges them with the version
    /// each was applied at. An entry the hub refuses (a foreign key, a constraint, the policy) is
    /// answered in `refused` and the others are applied.
    /// - Throws: ``SyncError/refused(_:)`` for a push over ``SyncHub/limits``;
    ///   ``SyncError/duplicateEntry(replicaID:sequence:)`` for an entry applied before with other
    ///   content (the entries before it are applied and stay so; the push is answered by none).
    public func push(_ request: SyncPushRequest) throws -> SyncPushResponse {
        guard request.entries.count <= limits.maximumEntriesPerPush else {
            throw SyncError.refused("a push is limited to \(limits.maximumEntriesPerPush) entries, this one has \(request.entries.count)")
        }
        let bytes = request.entries.reduce(0) { $0 + $1.changeset.count }
        guard bytes <= limits.maximumPushBytes else {
            throw SyncError.refused("a push is limited to \(limits.maximumPushBytes) changeset bytes, this one has \(bytes)")
        }
        let queue = try queue(of: request.space)
        let policies = self.policies.current
        let response = try queue.execute { connection in
            let widths = try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            let fastPath = try Self.entriesAreTheChangesMade(tables: request.tables, connection)
            var acknowledged: [Int64] = []
            var versions: [Int64] = []
            var refused: [SyncRefusal] = []
            var corrections: [SyncRow] = []
            // Rows a refused entry touched: a later entry of the push that touches one waits with
            // it (applied alone it would meet a row that is not there and be dropped).
            var held: [String: Int64] = [:]
            for entry in request.entries {
                if !held.isEmpty, try !Self.isApplied(entry, from: request.replicaID, connection) {
                    let rows = rowsTouched(by: entry.changeset)
                    if let blocker = rows.lazy.compactMap({ held[$0] }).first {
                        refused.append(SyncRefusal(sequence: entry.sequence, reason: .dependsOnRefused, table: nil, key: nil,
                                                   message: "it changes a row that write \(blocker), refused, made or changed; it waits for that write"))
                        for row in rows where held[row] == nil { held[row] = entry.sequence }
                        continue
                    }
                }
                let conflicts: [(String, [SyncValue])], version: Int64
                do {
                    (conflicts, version) = try Self.apply(entry, from: request.replicaID, tables: request.tables, policies: policies,
                                                          fastPath: fastPath, on: connection)
                } catch let refusal as EntryRefusal {
                    refused.append(SyncRefusal(sequence: entry.sequence, reason: refusal.reason, table: refusal.table,
                                               key: refusal.key, message: refusal.message))
                    for row in rowsTouched(by: entry.changeset) where held[row] == nil { held[row] = entry.sequence }
                    continue
                }
                acknowledged.append(entry.sequence)
                versions.append(version)
                for (table, key) in conflicts {
                    let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: connection)
                    var row = try connection.syncRow(table: table, keyColumns: keyColumns, key: key)
                    // The columns a replica on an earlier schema version has.
                    if let width = widths?[table.lowercased()], width < row.columns.count {
                        row.columns = Array(row.columns.prefix(width))
                        row.values = row.values.map { Array($0.prefix(width)) }
                    }
                    corrections.append(row)
                }
            }
            let version = try SyncLog(connection).currentVersion()
            return SyncPushResponse(acknowledged: acknowledged, corrections: corrections, hubVersion: version,
                                    chain: try SyncLog(connection).chain(at: version), versions: versions,
                                    refused: refused.isEmpty ? nil : refused)
        }
        wake(request.space, reached: response.hubVersion)
        return response
    }

    /// The log entries after the request's cursor; when the hub has trimmed entries after it, none,
    /// with `snapshotNeeded` set.
    public func pull(_ request: SyncPullRequest) throws -> SyncPullResponse {
        try queue(of: request.space).execute { connection in
            // A replica on an earlier schema version gets each entry cut to the columns it has.
            let widths = try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            if try Self.rolledBack(after: request.after, chain: request.afterChain, replica: request.replicaID,
                                   lastAcknowledged: request.lastAcknowledged, connection) {
                return SyncPullResponse(entries: [], hubVersion: try SyncLog(connection).currentVersion(), hubRolledBack: true)
            }
            if request.after < (try SyncLog(connection).trimmedThrough()) {
                return SyncPullResponse(entries: [], hubVersion: try SyncLog(connection).currentVersion(), snapshotNeeded: true)
            }
            let limit = min(max(1, request.limit), max(1, limits.maximumEntriesPerPull))
            var entries: [SyncLogEntry] = []
            var bytes = 0
            for var entry in try SyncLog(connection).entries(after: request.after, limit: limit) {
                if let widths {
                    entry.changeset = try Changeset(data: entry.changeset).keepingLeadingColumns { widths[$0.lowercased()] }.data
                }
                // The page ends before the entry that would take it over the byte limit (the
                // first entry goes whatever its size, or the replica could never pass it).
                if !entries.isEmpty, bytes + entry.changeset.count > limits.maximumPullBytes { break }
                bytes += entry.changeset.count
                entries.append(entry)
            }
            return SyncPullResponse(entries: entries, hubVersion: try SyncLog(connection).currentVersion())
        }
    }

    /// The synced tables as they are now, with the version they are at, for a replica to start
    /// from: a new one (``SyncReplica/bootstrap()``), or one whose cursor is behind the trimmed log.
    /// - Throws: ``SyncError/schemaMismatch(local:remote:)`` or ``SyncError/unknownSpace(_:)``
    ///   as a pull does.
    public func snapshot(_ request: SyncSnapshotRequest) throws -> SyncSnapshot {
        try queue(of: request.space).execute { connection in
            try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            // Only the synced tables are copied, never the log (which can be far larger than the
            // tables it made): a new in-memory database gets each table's own definition, then its
            // rows, read from the space's file in one read transaction with the version, so the
            // image and the version agree even with another hub process writing the file.
            let copy = try Connection(storageLocation: .inMemory)
            var definitions: [String] = []
            for table in request.tables {
                guard let sql: String = try connection.query(literal: """
                    SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = \(table) COLLATE NOCASE
                    """) else { throw SyncError.schemaMismatch(local: request.schemaFingerprint, remote: "no table \(table)") }
                definitions.append(sql)
            }
            for sql in definitions { try copy.execute(sql) }
            try copy.run("ATTACH DATABASE ? AS " + quoteIdentifier("space"), connection.fileName)
            defer { try? copy.execute("DETACH DATABASE " + quoteIdentifier("space")) }
            let (version, chain): (Int64, Int64?) = try copy.transaction {
                let version = try SyncLog(copy, schema: "space").currentVersion()
                for table in request.tables {
                    let columns = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map { quoteIdentifier($0.name) }
                        .joined(separator: ", ")
                    try copy.execute("INSERT INTO " + quoteIdentifier("main") + "." + quoteIdentifier(table) + "(" + columns + ") SELECT "
                                     + columns + " FROM " + quoteIdentifier("space") + "." + quoteIdentifier(table))
                }
                return (version, try SyncLog(connection).chain(at: version))
            }
            return SyncSnapshot(version: version, database: try copy.serialize(), chain: chain)
        }
    }

    /// Removes log entries, keeping the newest `count`; returns how many went. A replica whose
    /// cursor is behind what was removed catches up from a ``snapshot(_:)``.
    @discardableResult
    public func trimLog(ofSpace name: String, keepingLast count: Int) throws -> Int {
        try trim(name) { connection in
            let newest = try SyncLog(connection).currentVersion()
            return newest - Int64(max(0, count))
        }
    }

    /// Removes log entries the hub applied before `date` (to the second); returns how many went.
    @discardableResult
    public func trimLog(ofSpace name: String, olderThan date: Date) throws -> Int {
        try trim(name) { connection in
            let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
            return try SyncLog(connection).newestVersion(before: seconds)
        }
    }

    // MARK: - Internals

    /// Removes the log through the version `horizon` returns, and remembers that it did.
    private func trim(_ name: String, horizon: @escaping (Connection) throws -> Int64) throws -> Int {
        try queue(of: name).execute { connection in
            try connection.transaction(transactionType: .immediate) {
                try SyncLog(connection).trim(through: try horizon(connection))
            }
        }
    }

    /// Whether applying an entry without a conflict makes exactly the entry's changes: no
    /// trigger and no foreign key action (CASCADE, SET NULL, SET DEFAULT) can add others.
    private static func entriesAreTheChangesMade(tables: [String], _ connection: Connection) throws -> Bool {
        let reader = connection.schemaReader
        if try reader.entries().contains(where: { $0.type == "trigger" }) { return false }
        let temporaryTriggers: Int = try connection.query(literal: "SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger'") ?? 0
        if temporaryTriggers > 0 { return false }
        let inert: Set<String> = ["NO ACTION", "RESTRICT"]
        for table in try reader.userTableNames() {
            for key in try reader.foreignKeys(ofTable: table)
            where !inert.contains(key.onDelete.uppercased()) || !inert.contains(key.onUpdate.uppercased()) {
                return false
            }
        }
        return true
    }

    /// Whether the history a replica pulled up to `after` (ending in `chain`) is not this hub's:
    /// the hub was restored from an older copy (and may have logged other changes since).
    private static func rolledBack(after: Int64, chain: Int64?, replica: String, lastAcknowledged: Int64?,
                                   _ connection: Connection) throws -> Bool {
        if after > (try SyncLog(connection).currentVersion()) { return true }
        // The applied entries are never trimmed: a push this hub acknowledged and has no record of
        // was acknowledged by a copy it was restored over.
        if let sequence = lastAcknowledged, sequence > 0 {
            if try !SyncLog(connection).isApplied(replica: replica, sequence: sequence) { return true }
        }
        guard let chain, let known = try SyncLog(connection).chain(at: after) else { return false }
        return known != chain
    }

    private func fileURL(of space: String) -> URL { directory.appendingPathComponent(space + ".sqlite") }

    func queue(of name: String) throws -> ConnectionQueue {
        try validateSpaceName(name)
        return try spaces.withLock { spaces in
            if let queue = spaces[name] { return queue }
            let url = fileURL(of: name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw SyncError.unknownSpace(name) }
            let connection = try Connection(storageLocation: .onDisk(url.path))
            // Another process may use the space's file (a second hub process, `strata sync
            // --hub-folder`): wait for its locks rather than failing at once.
            try connection.busyHandler(.timeout(10))
            try connection.execute("PRAGMA foreign_keys = ON")
            let log = SyncLog(connection)
            guard try log.exists() else { throw SyncError.unknownSpace(name) }
            try log.prepare()
            try configureConnection(connection)
            let queue = ConnectionQueue(connection: connection)
            spaces[name] = queue
            return queue
        }
    }

    /// Which of the space's schema versions the replica's tables are; the tables' widths at that
    /// version when it is an earlier one (nil for the current).
    @discardableResult
    private static func checkSchema(_ tables: [String], _ fingerprint: String, _ connection: Connection) throws -> [String: Int]? {
        for table in tables {
            guard !SyncBookkeeping.isBookkeeping(table) else { throw SyncError.refused("\(table) is the sync engine's own table") }
            guard try connection.schemaReader.table(named: table) != nil else {
                throw SyncError.schemaMismatch(local: fingerprint, remote: "no table \(table)")
            }
        }
        // A replica on an earlier version of the space's schema syncs the columns it has.
        return try SpaceSchemaHistory.widths(of: tables, fingerprint: fingerprint, connection)
    }
    /// The space's schema version (1 until ``migrateSpace(_:to:_:)``).
    public func schemaVersion(ofSpace name: String) throws -> Int {
        try queue(of: name).execute { connection in try SpaceSchemaHistory.version(connection) }
    }

    /// Moves the space's schema to `version` with the additive steps `body` runs (add a table, add
    /// a column with a default or NULL, add an index), in one transaction, and records it. Replicas
    /// on earlier versions go on syncing the columns they know: their rows arrive with the new
    /// columns' defaults, and they receive rows without the columns they lack.
    ///
    /// ```swift
    /// try hub.migrateSpace("team", to: 2) { db in
    ///     try db.execute("ALTER TABLE todo ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
    /// }
    /// ```
    /// - Throws: ``SyncError/schemaChangeRefused(space:version:reason:)`` for a step that drops or
    ///   renames a table, a column or an index, changes a column, or adds a key column, and for a
    ///   version not after the space's; what `body` throws. The space is then as it was.
    public func migrateSpace(_ name: String, to version: Int, _ body: (Connection) throws -> Void) throws {
        try queue(of: name).execute { connection in
            let current = try SpaceSchemaHistory.version(connection)
            guard version > current else {
                throw SyncError.schemaChangeRefused(space: name, version: version, reason: "the space is at version \(current) already")
            }
            try connection.transaction(transactionType: .immediate) {
                let before = try SpaceSchemaHistory.shape(connection)
                try body(connection)
                let after = try SpaceSchemaHistory.shape(connection)
                if let reason = SpaceSchemaHistory.destructiveChange(from: before, to: after) {
                    throw SyncError.schemaChangeRefused(space: name, version: version, reason: reason)
                }
                try SpaceSchemaHistory.record(version: version, connection)
            }
        }
    }

    /// Applies one entry in one transaction, unless it was applied before; returns the rows whose
    /// conflicts the policy settled otherwise than by the replica's change, and the version the
    /// entry was applied at.
    /// - Throws: `EntryRefusal` when the entry cannot be applied (nothing of it is);
    ///   ``SyncError/duplicateEntry(replicaID:sequence:)`` when it was, with other content.
    private static func apply(_ entry: SyncOutboxEntry, from replica: String, tables: [String], policies: [String: SyncPolicy],
                              fastPath: Bool, on connection: Connection) throws -> ([(String, [SyncValue])], Int64) {
        let digest = Self.digest(entry.changeset)
        let log = SyncLog(connection)
        if let applied = try log.applied(replica: replica, sequence: entry.sequence) {
            // The same (replica, sequence) with other bytes is another database under this name,
            // not a retry: taking it for one would drop its write without a word.
            if let known = applied.digest, known != digest {
                throw SyncError.duplicateEntry(replicaID: replica, sequence: entry.sequence)
            }
            return (decodeConflicts(applied.conflicts), applied.version)
        }
        var settled: [(String, [SyncValue])] = []
        var version: Int64 = 0
        do {
            try connection.transaction(transactionType: .immediate) {
              // The entry holds what the replica's triggers did to synced tables: the hub's
              // triggers that write synced tables stay off while it is applied, so the hub and
              // every replica agree; the others (local state) see the rows.
              let triggers = try SyncTriggers.writingSyncedTables(tables, connection)
              try SyncTriggers.withoutTriggers(triggers, connection) {
                let synced = Set(tables.map { $0.lowercased() })
                // Most entries meet no conflict, and then the change the hub made is the entry
                // itself: applied without a session, aborting (SQLite undoes the whole apply) at
                // the first conflict, which takes the recorded path below. Halves the hub's cost.
                // Not when the hub's own triggers or foreign key actions would add changes, nor
                // for an entry touching a table the hub does not sync (the log keeps only what
                // the hub did).
                var conflicted = !fastPath
                if fastPath {
                    try connection.execute("SAVEPOINT strata_sync_fast")
                    do {
                        try connection.apply(Changeset(data: entry.changeset), filter: { table in
                            guard synced.contains(table.lowercased()) else { conflicted = true; return false }
                            return true
                        }) { _ in
                            conflicted = true
                            return .abort
                        }
                    } catch where conflicted {}
                    // A conflict aborted the apply (SQLite undid it); a skipped table did not:
                    // either way the recorded path starts from the state before.
                    if conflicted { try connection.execute("ROLLBACK TO SAVEPOINT strata_sync_fast") }
                    try connection.execute("RELEASE SAVEPOINT strata_sync_fast")
                }
                let made: Changeset
                if !conflicted {
                    made = Changeset(data: entry.changeset)
                } else {
                    let session = try connection.recordChanges(tables: tables)
                    defer { session.close() }
                    var narrowInserts: [Change] = []
                    var widths: [String: Int] = [:]
                    for table in tables {
                        widths[table.lowercased()] = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.count
                    }
                    try connection.apply(Changeset(data: entry.changeset), filter: { synced.contains($0.lowercased()) }) { conflict in
                        var resolution = try resolve(conflict, replica: replica, policies: policies)
                        // An insert from a replica on an earlier schema version that meets a row:
                        // REPLACE would reset the columns it does not know to their defaults, so
                        // only the columns it has are written, after the apply.
                        if conflict.kind == .conflict, resolution == .replace,
                           let width = widths[conflict.change.table.lowercased()], width > conflict.change.newValues.count {
                            narrowInserts.append(conflict.change)
                            resolution = .omit
                        }
                        if conflict.kind != .foreignKey, conflict.kind != .constraint {
                            settled.append((conflict.change.table, conflict.change.primaryKey.map { SyncValue($0) }))
                        }
                        return resolution
                    }
                    for change in narrowInserts { try updateKnownColumns(change, connection) }
                    made = try session.changeset()
                }
                version = try log.currentVersion()
                if !made.isEmpty {
                    version = try log.append(replica: replica, sequence: entry.sequence, changeset: made.data)
                }
                try log.recordApplied(replica: replica, sequence: entry.sequence, version: version,
                                      conflicts: encodeConflicts(settled), digest: digest)
              }
            }
        } catch let error as SyncError {
            throw error
        } catch let refusal as EntryRefusal {
            throw refusal
        } catch {
            throw EntryRefusal(reason: .damaged, table: nil, key: nil, message: "entry \(entry.sequence) of \(replica) was not applied: \(error)")
        }
        return (settled, version)
    }

    /// Writes the columns an insert from a narrower replica carries into the row it met.
    private static func updateKnownColumns(_ change: Change, _ connection: Connection) throws {
        let columns = try connection.schemaReader.columns(ofTable: change.table).filter { $0.hidden == 0 }.map(\.name)
        var assignments: [String] = [], values: [BindingValue] = [], keys: [String] = [], keyValues: [BindingValue] = []
        for (index, value) in change.newValues.enumerated() where index < columns.count {
            if change.primaryKeyColumns[index] {
                keys.append(quoteIdentifier(columns[index]) + " IS ?")
                keyValues.append(value ?? .null)
            } else if let value {
                assignments.append(quoteIdentifier(columns[index]) + " = ?")
                values.append(value)
            }
        }
        guard !assignments.isEmpty, !keys.isEmpty else { return }
        try connection.run(literal: SQLFragment(
            sql: "UPDATE " + quoteIdentifier(change.table) + " SET " + assignments.joined(separator: ", ") + " WHERE " + keys.joined(separator: " AND "),
            arguments: values + keyValues))
    }

    /// Whether the hub applied `entry` of `replica` before.
    private static func isApplied(_ entry: SyncOutboxEntry, from replica: String, _ connection: Connection) throws -> Bool {
        try SyncLog(connection).isApplied(replica: replica, sequence: entry.sequence)
    }

    /// An entry's content, to tell a retry (same bytes) from another database's entry.
    private static func digest(_ changeset: Data) -> Int64 {
        var hash = FNV1a()
        hash.add(changeset)
        return Int64(bitPattern: hash.value)
    }

    private static func resolve(_ conflict: Conflict, replica: String, policies: [String: SyncPolicy]) throws -> ConflictResolution {
        let key = conflict.change.primaryKey.map { SyncValue($0) }
        switch conflict.kind {
        case .foreignKey:
            throw EntryRefusal(reason: .foreignKey, table: nil, key: nil,
                               message: "the change would break a foreign key (\(conflict.foreignKeyViolations) violation(s)); the replica keeps it")
        case .constraint:
            throw EntryRefusal(reason: .constraint, table: conflict.change.table, key: key,
                               message: "the change to \(conflict.change.table) breaks a constraint (a UNIQUE value taken, a CHECK, NOT NULL)")
        default:
            break
        }
        switch policies[conflict.change.table.lowercased()] ?? .lastWriterWins {
        case .lastWriterWins:
            return conflict.kind == .notFound ? .omit : .replace
        case .hubWins:
            return .omit
        case .custom(let decide):
            let resolution = decide(SyncConflict(replicaID: replica, table: conflict.change.table, kind: conflict.kind,
                                                 change: conflict.change, currentValues: conflict.currentValues))
            if resolution == .abort {
                throw EntryRefusal(reason: .policy, table: conflict.change.table, key: key,
                                   message: "the hub's policy for \(conflict.change.table) refused the change")
            }
            return conflict.kind == .notFound ? .omit : resolution
        }
    }

    private static func encodeConflicts(_ conflicts: [(String, [SyncValue])]) -> String {
        struct Item: Codable { var table: String; var key: [SyncValue] }
        let data = (try? JSONEncoder().encode(conflicts.map { Item(table: $0.0, key: $0.1) })) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func decodeConflicts(_ text: String) -> [(String, [SyncValue])] {
        struct Item: Codable { var table: String; var key: [SyncValue] }
        let items = (try? JSONDecoder().decode([Item].self, from: Data(text.utf8))) ?? []
        return items.map { ($0.table, $0.key) }
    }
}
