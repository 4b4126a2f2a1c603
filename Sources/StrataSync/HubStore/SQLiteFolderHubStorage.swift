// The embedded hub store: one SQLite file per space in a folder, each holding the space's tables,
// its log, its applied entries and its meta values.
import Foundation
import Strata

/// One `<space>.sqlite` per space in `directory`.
final class SQLiteFolderHubStorage: SyncHubStorage {
    let directory: URL
    let spaces = Locked<[String: ConnectionQueue]>([:])
    let pushGroups = Locked<[String: PushGroup]>([:])
    let configureConnection: @Sendable (Connection) throws -> Void

    init(directory: URL, configureConnection: @escaping @Sendable (Connection) throws -> Void) throws {
        self.directory = directory
        self.configureConnection = configureConnection
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var description: String { "SQLite folder \(directory.path)" }

    func fileURL(of space: String) -> URL { directory.appendingPathComponent(space + ".sqlite") }

    /// The folder store reads rules as the compiler that made `rules` did: nothing more to check.
    func verifyRules(_ rules: InitialSpaceRules, schema: (Connection) throws -> Void) throws {}

    func createSpace(_ name: String, schema: (Connection) throws -> Void, rules: InitialSpaceRules?) throws {
        let url = fileURL(of: name)
        guard !FileManager.default.fileExists(atPath: url.path) else { throw SyncError.refused("the space \(name) exists already") }
        // Made whole under a name of its own, then linked into place (link(2) fails when the
        // name is taken): hubs started at once with the same --create never see a file half
        // made, and the one that loses never removes the file the winner made.
        let building = directory.appendingPathComponent(".\(name).\(UUID().uuidString).creating")
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
        }
        try Self.build(building, schema: schema, rules: rules)
        guard link(building.path, url.path) == 0 else {
            let code = errno
            if code == EEXIST { throw SyncError.refused("the space \(name) exists already") }
            throw SyncError.refused("cannot create the space \(name) in \(directory.path): \(String(cString: strerror(code)))")
        }
        _ = try queue(of: name)
    }

    /// Writes a space's file at `url`: its tables and the log's (and its rules), in WAL mode. The connection is
    /// closed when this returns (its WAL checkpointed into the file), before the file is linked.
    /// SQLite runs the rules as they were compiled, so they need no probe here; they are written
    /// with the tables, before the file has its name.
    private static func build(_ url: URL, schema: (Connection) throws -> Void, rules: InitialSpaceRules?) throws {
        let connection = try Connection(storageLocation: .onDisk(url.path), flags: OpenFlags.make())
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.transaction {
            try schema(connection)
            let log = SyncLog(connection)
            try log.prepare()
            if let rules { _ = try log.setRules(rules.json) }
        }
    }

    func spaceNames() throws -> [String] {
        // A space half made is a hidden `.<name>.<uuid>.creating` file; `<name>.sqlite` is whole.
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sqlite") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(".sqlite".count)) }
            .sorted()
    }

    func withSpace<T>(_ name: String, _ body: (any SyncSpaceStorage) throws -> T) throws -> T {
        try queue(of: name).execute { connection in try body(SQLiteSpaceStorage(connection: connection)) }
    }

    /// Group commit: a push joins its space's pending pushes, then asks for the space's queue.
    /// Whichever call gets the queue first applies every push pending then in one IMMEDIATE
    /// transaction (one lock, one commit, one fsync), each push in a savepoint of its own; the
    /// others find theirs done when their turn comes. Every push is answered only after the
    /// commit that holds it, and a push that fails is undone alone.
    func withPush<T>(_ name: String, replica: String, sequences: [Int64], _ body: (any SyncSpaceStorage) throws -> T) throws -> T {
        let queue = try queue(of: name)
        let group = pushGroups.withLock { groups in
            if let group = groups[name] { return group }
            let group = PushGroup()
            groups[name] = group
            return group
        }
        return try group.submit(body) {
            try queue.execute { connection in SQLiteSpaceStorage(connection: connection).applyPendingPushes(of: group) }
        }
    }

    func withConnection<T>(_ name: String, _ body: (Connection) throws -> T) throws -> T {
        try queue(of: name).execute(closure: body)
    }

    // Other processes on the files are not observed: their pushes reach a long poll here at its
    // next look (the routes look again when the wait ends).
    func observeCommits(_ onCommit: @escaping @Sendable (String?, Int64) -> Void) {}

    func queue(of name: String) throws -> ConnectionQueue {
        try spaces.withLock { spaces in
            if let queue = spaces[name] { return queue }
            let url = fileURL(of: name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw SyncError.unknownSpace(name) }
            let connection = try Connection(storageLocation: .onDisk(url.path), flags: OpenFlags.make())
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
}

/// One space's file, through its connection.
struct SQLiteSpaceStorage: SyncSpaceStorage {
    let connection: Connection
    /// Whether a push's transaction is open (``applyPendingPushes(of:)``), shared by the copies
    /// of this value: each write is then a savepoint of it.
    let push = PushTransaction()
    var log: SyncLog { SyncLog(connection) }

    final class PushTransaction {
        var isOpen = false {
            didSet { applyPlan = nil }
        }
        /// The hub's triggers that write synced tables and whether an entry's changes are all it
        /// makes, for `tables`: read once per push transaction, in which only changesets run (the
        /// triggers an apply drops come back before its savepoint ends). Read for every entry,
        /// they took a quarter of the hub's time per push (schema reads are not cached inside a
        /// transaction).
        /// With the hub's own applier for the push's tables (its statements prepared once, where
        /// the fast path holds).
        var applyPlan: (tables: [String], triggers: [SyncTriggers.Trigger], fastPath: Bool, direct: DirectChangesetApplier?)?
    }

    /// One push alone in one IMMEDIATE transaction (a store that is not a folder's, the tests):
    /// applied as a group of one.
    func applyingPush<T>(replica: String, sequences: [Int64], _ body: () throws -> T) throws -> T {
        guard !push.isOpen else { return try body() }
        let group = PushGroup()
        return try group.submit({ _ in try body() }) { applyPendingPushes(of: group) }
    }

    /// Applies the pushes pending in `group` (up to ``PushGroup/largest``) in one IMMEDIATE
    /// transaction, each in a savepoint of its own, and sets each one's outcome only once the
    /// transaction has committed (or failed, when every one of them fails with it).
    func applyPendingPushes(of group: PushGroup) {
        let batch = group.pending.withLock { pending in
            let taken = Array(pending.prefix(PushGroup.largest))
            pending.removeFirst(taken.count)
            return taken
        }
        guard !batch.isEmpty else { return }
        var outcomes: [PushGroup.Outcome] = []
        do {
            try connection.transaction(transactionType: .immediate) {
                push.isOpen = true
                defer { push.isOpen = false }
                outcomes = []
                for pending in batch {
                    // One outcome a push, set once its savepoint is released or rolled back: a
                    // RELEASE that fails undoes the push, whatever its body answered.
                    var outcome = PushGroup.Outcome.answered
                    do {
                        try connection.strataSavepoint(named: "strata_sync_push") {
                            do {
                                try pending.run(self)
                            } catch let error as SyncError {
                                // Refused from an entry on: the entries before it stay, as with
                                // a transaction each.
                                outcome = .failed(error)
                            }
                        }
                    } catch {
                        // Undone alone: the savepoint rolled back, the other pushes stand.
                        outcome = .failed(error)
                    }
                    outcomes.append(outcome)
                    // Ended inside a changeset apply, which the wrapper does not see: what the
                    // earlier pushes applied is gone with it, so none of them is answered.
                    try requirePushTransaction()
                }
            }
        } catch {
            var failure = error
            if let error = error as? SQLiteError, error.resultCode.primary == .busy {
                // Another process holds the space's file past the busy timeout: nothing of the
                // pushes is applied, and each can be sent again.
                failure = SyncHubStoreUnavailable(reason: "another process holds the space's file: \(error)")
            }
            outcomes = Array(repeating: .failed(failure), count: batch.count)
        }
        for (pending, outcome) in zip(batch, outcomes) { pending.outcome.withLock { $0 = outcome } }
    }

    func write<T>(_ body: () throws -> T) throws -> T {
        guard push.isOpen else { return try connection.transaction(transactionType: .immediate) { try body() } }
        try requirePushTransaction()
        return try connection.strataSavepoint(named: "strata_sync_write") {
            let result = try body()
            // A deferred foreign key the entry left unresolved: its own COMMIT failed on it
            // before; releasing a savepoint checks none, and the next entries' changeset applies
            // would each meet it and the push's COMMIT fail, again on every resend.
            if let violation = connection.outstandingDeferredForeignKeyError() { throw violation }
            return result
        }
    }

    func read<T>(_ body: () throws -> T) throws -> T {
        guard push.isOpen else { return try connection.transaction(transactionType: .deferred) { try body() } }
        try requirePushTransaction()
        return try body()
    }

    /// SQLite can end a transaction by itself (a full disk, an I/O error): what the push applied
    /// before is undone, so it stops there, unanswered, and the replica sends it again. Strata's
    /// wrapper begins another transaction at once when it sees this (so a later write does not
    /// commit alone); a changeset apply it does not see leaves none open.
    private func requirePushTransaction() throws {
        if let ended = connection.transactionEndedBySQLite {
            throw SyncHubStoreUnavailable(reason: "SQLite ended the push's transaction: \(ended)")
        }
        guard connection.isInTransaction else {
            throw SyncHubStoreUnavailable(reason: "SQLite ended the push's transaction before its entries were applied")
        }
    }

    func schemaWidths(tables: [String], fingerprint: String) throws -> [String: Int]? {
        try HubSchema.checkSchema(tables, fingerprint, connection)
    }

    func schemaVersion() throws -> Int { try SpaceSchemaHistory.version(connection) }
    func schemaDifference(from created: Connection) throws -> String? { try HubSchema.difference(of: created, from: connection) }

    func migrateSchema(space name: String, to version: Int, dryRun: Bool, _ body: (Connection) throws -> Void) throws -> SyncMigrationPlan {
        try HubSchema.runMigration(space: name, to: version, dryRun: dryRun, connection, body)
    }

    func meta(_ key: String) throws -> Int64? { try log.meta(key) }
    func setMeta(_ key: String, _ value: Int64) throws { try log.setMeta(key, value) }
    func currentVersion() throws -> Int64 { try log.currentVersion() }
    func loggedChain(version: Int64) throws -> Int64? { try log.loggedChain(version: version) }

    func appendLog(replica: String, sequence: Int64, changeset: Data, at seconds: Int64, chain: Int64) throws -> Int64 {
        try log.append(replica: replica, sequence: sequence, changeset: changeset, at: seconds, chain: chain)
    }

    func entries(after version: Int64, limit: Int) throws -> [SyncLogEntry] { try log.entries(after: version, limit: limit) }

    func appendLogRoutes(version: Int64, _ routes: [LogRoutes.Filed]) throws { try log.appendRoutes(version: version, routes) }
    func loggedVersions(after version: Int64, routes: [Data], limit: Int) throws -> LogRoutes.Found {
        try log.versions(after: version, routes: routes, limit: limit)
    }
    func entries(at versions: [Int64]) throws -> [SyncLogEntry] { try log.entries(at: versions) }
    func newestVersion(before seconds: Int64) throws -> Int64 { try log.newestVersion(before: seconds) }
    func deleteLog(through version: Int64) throws -> Int { try log.deleteLog(through: version) }
    func inventory() throws -> (logEntries: Int, replicas: Int) { try log.inventory() }

    func applied(replica: String, sequence: Int64) throws -> AppliedRecord? {
        try log.applied(replica: replica, sequence: sequence).map { AppliedRecord(conflicts: $0.conflicts, version: $0.version, digest: $0.digest) }
    }

    func recordApplied(replica: String, sequence: Int64, version: Int64, conflicts: String, digest: Int64) throws {
        try log.recordApplied(replica: replica, sequence: sequence, version: version, conflicts: conflicts, digest: digest)
    }

    func applyEntry(
        _ changeset: Data, sequence: Int64, replica: String, tables: [String],
        policies: [String: SyncPolicy]
    ) throws -> AppliedChanges {
        // The entry holds what the replica's triggers did to synced tables: the hub's triggers
        // that write synced tables stay off while it is applied, so the hub and every replica
        // agree; the others (local state) see the rows.
        let triggers: [SyncTriggers.Trigger], fastPath: Bool, direct: DirectChangesetApplier?
        if push.isOpen, let plan = push.applyPlan, plan.tables == tables {
            (triggers, fastPath, direct) = (plan.triggers, plan.fastPath, plan.direct)
        } else {
            triggers = try SyncTriggers.writingSyncedTables(tables, connection)
            fastPath = try HubApply.entriesAreTheChangesMade(tables: tables, connection)
            direct = fastPath && HubApply.usesOwnApplier ? try DirectChangesetApplier(tables: tables, connection: connection) : nil
            if push.isOpen { push.applyPlan = (tables, triggers, fastPath, direct) }
        }
        return try SyncTriggers.withoutTriggers(triggers, connection) {
            try HubApply.apply(
                changeset, replica: replica, tables: tables, policies: policies, fastPath: fastPath, direct: direct, on: connection)
        }
    }

    func row(table: String, key: [SyncValue]) throws -> SyncRow {
        let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: connection)
        return try connection.syncRow(table: table, keyColumns: keyColumns, key: key)
    }

    func snapshot(tables: [String]) throws -> (version: Int64, database: Data) {
        // Only the synced tables are copied, never the log (which can be far larger than the
        // tables it made): a new in-memory database gets each table's own definition, then its
        // rows, read from the space's file in one read transaction with the version, so the image
        // and the version agree even with another hub process writing the file.
        var version: Int64 = 0
        let image = try HubApply.snapshotImage(tables: tables, schema: connection) { copy in
            try copy.run("ATTACH DATABASE ? AS " + quoteIdentifier("space"), connection.fileName)
            defer { try? copy.execute("DETACH DATABASE " + quoteIdentifier("space")) }
            version = try copy.transaction {
                let version = try SyncLog(copy, schema: "space").currentVersion()
                for table in tables {
                    let columns = try connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map { quoteIdentifier($0.name) }
                        .joined(separator: ", ")
                    try copy.execute(
                        "INSERT INTO " + quoteIdentifier("main") + "." + quoteIdentifier(table) + "(" + columns + ") SELECT "
                            + columns + " FROM " + quoteIdentifier("space") + "." + quoteIdentifier(table))
                }
                return version
            }
        }
        return (version, image)
    }

    func rules() throws -> (version: Int64, json: Data?) { try log.rules() }
    func setRules(_ json: Data?) throws -> Int64 { try log.setRules(json) }

    func viewRecord(replica: String, user: String, atOrBefore version: Int64) throws -> SyncViewRecord? {
        try log.viewRecord(replica: replica, user: user, atOrBefore: version)
    }

    func recordView(_ record: SyncViewRecord, replica: String, user: String, keepingFrom: Int64) throws {
        try log.recordView(record, replica: replica, user: user, keepingFrom: keepingFrom)
    }

    func forgetViews(replica: String, user: String) throws { try log.forgetViews(replica: replica, user: user) }

    var definitions: Connection { connection }
    var ruleDialect: RuleDialect { .sqlite }

    func ruleRows(_ sql: String, _ arguments: [BindingValue]) throws -> [[BindingValue]] {
        try connection.valueRows(literal: SQLFragment(sql: sql, arguments: arguments)).rows
    }

    /// The rows go to a temporary table declared with the table's own affinities and collations,
    /// read under the table's name: a `VALUES` list has no affinity, so there `1 = '1'` is false
    /// where the table says true. Subqueries in a rule still read the space's tables.
    func ruleMatches(_ table: String, columns: [String], rows: [[BindingValue]], conditions: [RuleCondition]) throws -> Set<Int> {
        guard !rows.isEmpty, !conditions.isEmpty else { return [] }
        let scratch = quoteIdentifier("temp") + "." + quoteIdentifier(SyncBookkeeping.prefix + "rule_rows")
        let rowColumn = quoteIdentifier(SyncBookkeeping.prefix + "row")
        let declared = try connection.schemaReader.columns(ofTable: table)
        var definitions = [rowColumn + " INTEGER"]
        for column in columns {
            guard let found = declared.first(where: { $0.name == column }) ?? declared.first(where: { $0.name.lowercased() == column.lowercased() })
            else { throw SyncError.refused("the space's table \(table) has no column \(column)") }
            let affinity = DeclaredTypeAffinity(declaredType: found.declaredType).name
            let collation = connection.schemaReader.declaredCollation(ofTable: table, column: found.name) ?? "BINARY"
            definitions.append(quoteIdentifier(column) + " " + affinity + " COLLATE " + quoteIdentifier(collation))
        }
        try connection.execute("DROP TABLE IF EXISTS " + scratch)
        try connection.execute("CREATE TABLE " + scratch + "(" + definitions.joined(separator: ", ") + ")")
        defer { try? connection.execute("DROP TABLE IF EXISTS " + scratch) }
        let insert = "INSERT INTO " + scratch + " VALUES (" + Array(repeating: "?", count: columns.count + 1).joined(separator: ", ") + ")"
        for (index, row) in rows.enumerated() {
            var values: [BindingValue] = [.integer(Int64(index))]
            for column in 0..<columns.count { values.append(column < row.count ? row[column] : .null) }
            try connection.run(literal: SQLFragment(sql: insert, arguments: values))
        }
        var matched: Set<Int> = []
        for condition in conditions {
            var arguments: [BindingValue] = []
            guard let sql = condition(&arguments) else { continue }
            let statement = "SELECT " + rowColumn + " FROM " + scratch + " AS " + quoteIdentifier(table) + " WHERE " + sql
            for row in try ruleRows(statement, arguments) {
                if case .integer(let index)? = row.first { matched.insert(Int(index)) }
            }
        }
        return matched
    }
}

/// The pushes waiting to be applied to one space, in arrival order.
final class PushGroup: Sendable {
    /// The most pushes one transaction applies: a group is answered as one, so a bound keeps
    /// the first push's wait short.
    static let largest = 64

    enum Outcome {
        case answered
        case failed(any Error)
    }

    let pending = Locked<[PendingPush]>([])

    /// Queues `body` in this group, then runs `apply`, which applies the pushes pending then
    /// (this one among them, unless an earlier call took it and has applied it already); returns
    /// `body`'s answer once the transaction that applied it has committed.
    func submit<T>(_ body: (any SyncSpaceStorage) throws -> T, apply: () throws -> Void) throws -> T {
        try withoutActuallyEscaping(body) { body in
            let value = PendingValue<T>()
            let push = PendingPush { storage in value.value = try body(storage) }
            pending.withLock { $0.append(push) }
            do {
                // Each call applies up to `largest` of the pushes pending, oldest first: with more
                // pending before this one, it takes more than one call (never returning while it
                // waits, since its body must not outlive this call).
                repeat { try apply() } while push.outcome.current == nil
            } catch {
                // Not applied (the space's queue closed): checked on the queue, so no later call
                // applies anything either, and this push must not outlive this call.
                pending.withLock { $0.removeAll { $0 === push } }
                if push.outcome.current == nil { throw error }
            }
            switch push.outcome.current {
            case .answered?:
                guard let answer = value.value else { throw SyncHubStoreUnavailable(reason: "the push was applied without an answer") }
                return answer
            case .failed(let error)?: throw error
            case nil: throw SyncHubStoreUnavailable(reason: "the push was left unapplied")
            }
        }
    }
}

/// One push waiting in a ``PushGroup``.
// @unchecked Sendable: `run` is the caller's non-escaping body, made escaping for the wait. The
// caller appends this push, then blocks on the space's queue until a call on that queue has run
// it (its own call at the latest), so `run` never outlives the caller and runs on one thread.
final class PendingPush: @unchecked Sendable {
    let run: (any SyncSpaceStorage) throws -> Void
    let outcome = Locked<PushGroup.Outcome?>(nil)

    init(_ run: @escaping (any SyncSpaceStorage) throws -> Void) { self.run = run }
}

/// A push's answer, set by whichever call applies it and read by its caller after the commit.
// @unchecked Sendable: written once, by the call holding the space's queue, before the push's
// outcome is set under its lock; read by the caller only after it sees that outcome.
final class PendingValue<T>: @unchecked Sendable {
    var value: T?
}
