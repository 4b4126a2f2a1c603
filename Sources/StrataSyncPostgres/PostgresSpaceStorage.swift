// One space in PostgreSQL: the primitives the hub's logic runs over. An entry is settled by the
// same SQLite conflict handling as on the SQLite store, in the space's scratch SQLite database
// holding only the rows the entry touches (read FOR UPDATE); what that made is written to the
// PostgreSQL tables in the entry's write: a savepoint of the push's one transaction
// (`applyingPush`), under the space's advisory lock taken once per push.
#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync

struct PostgresSpaceStorage: SyncSpaceStorage {
    let space: PostgresSpace
    let link: PostgresLink
    /// Whether a push of a space without rules may be applied as a batch.
    var batching = PostgresPushBatching.whereExact
    /// Whether a push's transaction is open (``applyingPush(_:)``): each write is then a savepoint.
    let push = PushTransaction()

    /// The state of ``applyingPush(_:)``, shared by the copies of one storage value. Under the
    /// space's advisory lock no other transaction writes the space's meta values or applied
    /// records, so what this one read or wrote of them is known without asking again.
    final class PushTransaction {
        var isOpen = false
        /// Meta values read or set in the transaction (nil: known to be absent).
        var meta: [String: Int64?] = [:]
        /// Meta values set and not written yet: written once, before the commit.
        var unwritten: Set<String> = []
        /// Entries found not applied, as `replica NUL sequence`.
        var notApplied: Set<String> = []
        /// The push's entries applied before it began, read in one statement.
        var appliedBefore: [String: AppliedRecord] = [:]
        /// Statements sent without waiting for their answers (postgres-nio sends them in order):
        /// each write's savepoint, its log row and its applied record, settled before the
        /// savepoint is released.
        var unanswered: [EventLoopFuture<PostgresQueryResult>] = []
        /// Whether this run of the push may batch its entries (``batchEntries(_:tables:)``): not
        /// on its second run, after a batch was abandoned.
        var batching = false
        /// The push's batch, when it batches.
        var batch: PostgresPushBatch?
        /// Whether every batch is abandoned when written (``PostgresPushBatching/abandonedAtFlush``).
        var abandonsAtFlush = false
        /// Whether `meta` holds every meta value (read at the push's start): an absent key is absent.
        var metaComplete = false
        /// The space's rules, read at the push's start.
        var rules: (version: Int64, json: Data?)?

        typealias Known = (meta: [String: Int64?], unwritten: Set<String>, notApplied: Set<String>, applied: [String: AppliedRecord])
        var known: Known {
            get { (meta, unwritten, notApplied, appliedBefore) }
            set { (meta, unwritten, notApplied, appliedBefore) = newValue }
        }

        static func entry(_ replica: String, _ sequence: Int64) -> String { replica + "\u{0}" + String(sequence) }
    }

    /// Sends `sql` inside the push's transaction without waiting for its answer.
    func send(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) {
        push.unanswered.append(link.connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: link.logger))
    }

    /// Waits for the statements sent without waiting; throws the first one's failure.
    func settleUnanswered() throws {
        let unanswered = push.unanswered
        push.unanswered = []
        var failure: (any Error)?
        for future in unanswered {
            do {
                _ = try link.wait(for: future)
            } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// Sends the meta values set in the push's transaction, in one statement.
    private func writeUnwrittenMeta() throws {
        var binds = PostgresBindings()
        var rows: [String] = []
        for key in push.unwritten.sorted() {
            guard let value = push.meta[key] ?? nil else { continue }
            binds.append(key)
            binds.append(value)
            rows.append("($\(binds.count - 1), $\(binds.count))")
        }
        push.unwritten = []
        guard !rows.isEmpty else { return }
        send(
            "INSERT INTO \(bookkeeping("meta")) (key, value) VALUES " + rows.joined(separator: ", ")
                + " ON CONFLICT (key) DO UPDATE SET value = excluded.value", binds)
    }

    /// One transaction for a push: the space's lock taken once and one commit (one WAL flush)
    /// for all its entries, each entry's ``write(_:)`` a savepoint, so a refused entry is undone
    /// alone and the others stay. The applied-entry record is still read under the lock before
    /// each entry, so several hub processes never apply one twice.
    /// A push that batches its entries runs once more, entry by entry, when its batch is
    /// abandoned (see PostgresPushBatch.swift).
    func applyingPush<T>(replica: String, sequences: [Int64], _ body: () throws -> T) throws -> T {
        guard !push.isOpen else { return try body() }
        do {
            return try applyingPushOnce(replica: replica, sequences: sequences, batching: batching != .never, body)
        } catch is BatchAbandoned {
            PostgresPushBatchCounts.current.withLock { $0.abandoned += 1 }
            return try applyingPushOnce(replica: replica, sequences: sequences, batching: false, body)
        }
    }

    private func applyingPushOnce<T>(replica: String, sequences: [Int64], batching: Bool, _ body: () throws -> T) throws -> T {
        var refusal: SyncError?
        let result: T? = try lockedTransaction(countsVersions: false) {
            // In one round trip under the lock: which of the push's entries were applied before
            // (the others are known not to be until this transaction applies them), every meta
            // value, and the rules. No other transaction writes them until the commit.
            var binds = PostgresBindings()
            binds.append(replica)
            binds.append(sequences)
            let appliedRows = link.connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT sequence, conflicts, version, digest FROM \(bookkeeping("applied")) WHERE replica = $1 AND sequence = ANY($2)",
                    binds: binds), logger: link.logger)
            let metaRows = link.connection.query(PostgresQuery(unsafeSQL: "SELECT key, value FROM \(bookkeeping("meta"))"), logger: link.logger)
            let rulesRows = link.connection.query(
                PostgresQuery(unsafeSQL: "SELECT version, json FROM \(bookkeeping("rules")) WHERE id = 1"), logger: link.logger)
            // Whether PostgreSQL holds checks on the space's tables beside their keys (a
            // constraint, a unique index, a trigger beside the hub's): only each entry's own
            // write meets those, so such a push is not batched.
            var guardBinds = PostgresBindings()
            guardBinds.append(space.name)
            guardBinds.append(space.tables.map(\.name))
            let guardRows = link.connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT EXISTS (SELECT 1 FROM pg_class t
                            WHERE t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) AND t.relname = ANY($2) AND (
                                EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = t.oid AND c.contype <> 'p')
                                OR EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = t.oid AND i.indisunique AND NOT i.indisprimary)
                                OR EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = t.oid AND NOT g.tgisinternal
                                    AND g.tgname NOT LIKE '\\_strata\\_sync\\_%')))
                        """, binds: guardBinds), logger: link.logger)
            var appliedBefore: [String: AppliedRecord] = [:]
            for row in try link.wait(for: appliedRows).rows {
                let (sequence, conflicts, version, digest) = try row.decode((Int64, String, Int64, Int64?).self)
                appliedBefore[PushTransaction.entry(replica, sequence)] = AppliedRecord(conflicts: conflicts, version: version, digest: digest)
            }
            var meta: [String: Int64?] = [:]
            for row in try link.wait(for: metaRows).rows {
                let (key, value) = try row.decode((String, Int64).self)
                meta[key] = .some(value)
            }
            var rules: (version: Int64, json: Data?) = (0, nil)
            if let row = try link.wait(for: rulesRows).rows.first { rules = try row.decode((Int64, Data?).self) }
            let guarded = try link.wait(for: guardRows).rows.first?.decode(Bool.self) ?? true
            let versionBefore = meta["version"] ?? nil
            push.isOpen = true
            push.batching = batching && !guarded
            push.abandonsAtFlush = self.batching == .abandonedAtFlush
            push.known = (meta, [], Set(sequences.map { PushTransaction.entry(replica, $0) }).subtracting(appliedBefore.keys), appliedBefore)
            push.metaComplete = true
            push.rules = rules
            defer {
                push.metaComplete = false
                push.rules = nil
                push.isOpen = false
                push.batching = false
                push.known = ([:], [], [], [:])
                push.unanswered = []
                // The scratch holds nothing beyond the push; its rollback restores its triggers.
                if let batch = push.batch, batch.scratch.isInTransaction { try? batch.scratch.execute("ROLLBACK") }
                push.batch = nil
            }
            let result: T?
            do {
                result = try body()
            } catch let error as SyncError {
                // The push refused from an entry on: the entries before it stay (committed), as
                // with a transaction each.
                refusal = error
                result = nil
            } catch {
                if push.batch?.abandoned == true { throw BatchAbandoned() }
                throw error
            }
            if let batch = push.batch {
                if batch.abandoned { throw BatchAbandoned() }
                try flushBatch(settling: true)
                PostgresPushBatchCounts.current.withLock { $0.written += 1 }
            }
            try writeUnwrittenMeta()
            if let after = push.meta["version"] ?? nil, after != versionBefore {
                // Delivered at commit, to every hub process listening (long polls wake).
                var binds = PostgresBindings()
                binds.append(notifyChannel)
                binds.append("\(after) \(space.name)")
                send("SELECT pg_notify($1, $2)", binds)
            }
            try settleUnanswered()
            return result
        }
        guard let result else { throw refusal ?? SyncError.refused("the push was not applied") }
        return result
    }

    var schema: String { quotePostgresIdentifier(space.name) }
    func bookkeeping(_ table: String) -> String { schema + "." + quotePostgresIdentifier("_strata_sync_" + table) }
    func qualified(_ table: PostgresTable) -> String { schema + "." + quotePostgresIdentifier(table.name) }

    func write<T>(_ body: () throws -> T) throws -> T {
        if push.isOpen, let batch = push.batch {
            // Batched: the entry's rows and bookkeeping stay in the batch until its flush, so its
            // savepoint is the scratch's alone.
            let known = push.known
            let mark = batch.mark
            try batch.scratch.execute("SAVEPOINT strata_write")
            batch.entryOpen = true
            defer { batch.entryOpen = false }
            do {
                let result = try body()
                try batch.scratch.execute("RELEASE SAVEPOINT strata_write")
                batch.entryOpen = false
                entryWritten(batch)
                return result
            } catch {
                _ = try? batch.scratch.execute("ROLLBACK TO SAVEPOINT strata_write")
                _ = try? batch.scratch.execute("RELEASE SAVEPOINT strata_write")
                push.known = known
                batch.restore(mark)
                throw error
            }
        }
        if push.isOpen {
            // Inside a push's transaction, under its lock: undone alone when it throws, with
            // what the push knew of the meta values and applied records then.
            let known = push.known
            send("SAVEPOINT strata_write")
            let result: T
            do {
                result = try body()
                send("RELEASE SAVEPOINT strata_write")
                try settleUnanswered()
            } catch {
                // A statement sent without waiting may have failed first: its failure is the cause.
                var cause = error
                do { try settleUnanswered() } catch let earlier { cause = earlier }
                push.known = known
                _ = try? link.query("ROLLBACK TO SAVEPOINT strata_write")
                _ = try? link.query("RELEASE SAVEPOINT strata_write")
                throw cause
            }
            return result
        }
        return try lockedTransaction(countsVersions: true, body)
    }

    /// One transaction under the space's lock. With `countsVersions`, listeners are notified when
    /// it moved the space's version (a push notifies by itself: it knows its versions).
    private func lockedTransaction<T>(countsVersions: Bool, _ body: () throws -> T) throws -> T {
        try link.transaction {
            // Every write of the space, in every hub process, one at a time: versions are dense
            // and in commit order.
            try link.query("SELECT pg_advisory_xact_lock($1)", [spaceLockKey(space.name)])
            // The hub's own writes are not logged again by the tables' triggers. In the same round
            // trip, under the lock: the schema version, which another process may have moved
            // since this request read the definitions (a write on the old ones would log changes
            // of the old width). The request is run again on the new ones.
            let version = try applyingAndSchemaVersion()
            guard version == space.schemaVersion else {
                throw SyncHubStoreUnavailable(
                    reason: "space \(space.name) was migrated to schema version \(version) by another hub process during this request")
            }
            guard countsVersions else { return try body() }
            let before = try currentVersion()
            let result = try body()
            let after = try currentVersion()
            if after != before {
                // Delivered at commit, to every hub process listening (long polls wake).
                try link.query("SELECT pg_notify($1, $2)", [notifyChannel, "\(after) \(space.name)"])
            }
            return result
        }
    }

    /// Marks the transaction as the hub's own and reads the space's schema version (1 before any
    /// migration), in one round trip.
    private func applyingAndSchemaVersion() throws -> Int {
        let sql =
            "SELECT set_config('strata.applying', 'on', true), (SELECT value FROM " + bookkeeping("meta")
            + " WHERE key = 'schema_version')"
        guard let row = try link.query(sql).first else { return 1 }
        let (_, version): (String, Int64?) = try row.decode((String, Int64?).self)
        return Int(version ?? 1)
    }

    func read<T>(_ body: () throws -> T) throws -> T {
        try link.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    func schemaWidths(tables: [String], fingerprint: String) throws -> [String: Int]? {
        try HubSchema.widths(tables: tables, fingerprint: fingerprint, space.definitions)
    }

    func schemaVersion() throws -> Int { try HubSchema.version(space.definitions) }
    func schemaDifference(from created: Connection) throws -> String? { try HubSchema.difference(of: created, from: space.definitions) }

    /// Runs the migration on the space's SQLite definitions (as the SQLite store does, with the
    /// same check that it is additive), then makes PostgreSQL's tables match in the same
    /// transaction: new tables, new columns (`ADD COLUMN` with the mapped type and default), new
    /// UNIQUE indexes, and capture triggers that list the new columns. Other hub processes see
    /// the new version at their next request and read the definitions again. With `dryRun` the
    /// same checks run and the plan lists the statements; none is run.
    func migrateSchema(space name: String, to version: Int, dryRun: Bool, _ body: (Connection) throws -> Void) throws -> SyncMigrationPlan {
        try write {
            // Read under the space's lock: another process may have migrated since this one read.
            let rows = try link.query("SELECT image FROM \(bookkeeping("definitions")) WHERE id = 1 FOR UPDATE")
            guard let cell = rows.first?.first else { throw SyncError.unknownSpace(name) }
            // A copy of the definitions: a dry run's changes to it are dropped with it.
            let definitions = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
            try definitions.deserialize(try cell.decode(Data.self))
            let before = try PostgresHubStorage.tables(of: definitions)
            var plan = try HubSchema.runMigration(space: name, to: version, definitions, body)
            let after = try PostgresHubStorage.tables(of: definitions)
            var statements: [String] = []
            for table in after {
                guard let old = before.first(where: { IdentifierSet.key($0.name) == IdentifierSet.key(table.name) }) else {
                    statements += PostgresHubStorage.createStatements(space: name, table: table)
                    continue
                }
                // Additive (checked above): the new columns follow the old ones.
                for column in table.columns.dropFirst(old.columns.count) {
                    if column.notNull && column.defaultLiteral == nil {
                        throw SyncError.schemaChangeRefused(
                            space: name, version: version,
                            reason: """
                                PostgreSQL cannot add the NOT NULL column \(table.name).\(column.name): its default is not a literal \
                                PostgreSQL reads the same way for \(column.type.rawValue)
                                """)
                    }
                    statements.append("ALTER TABLE " + qualified(table) + " ADD COLUMN " + PostgresHubStorage.columnDefinition(column))
                }
                for columns in table.uniqueColumns where !old.uniqueColumns.contains(columns) {
                    statements.append(PostgresHubStorage.uniqueIndexStatement(space: name, table: table, columns: columns))
                }
            }
            plan.storeStatements = statements
            if dryRun { return plan }
            for statement in statements { try link.query(statement) }
            // A backend's writes noted before the ALTERs took their tables' locks were noted with
            // the old columns: logged now, under the definitions they were noted with.
            try logNotedWrites()
            for table in before {
                try link.query("DROP TRIGGER IF EXISTS \"_strata_sync_capture\" ON " + qualified(table))
            }
            for index in before.indices {
                try link.query("DROP FUNCTION IF EXISTS " + schema + "." + quotePostgresIdentifier("_strata_sync_capture_\(index)") + "()")
            }
            for statement in PostgresHubStorage.triggerStatements(space: name, tables: after) { try link.query(statement) }
            try link.query("UPDATE \(bookkeeping("definitions")) SET image = $1 WHERE id = 1", [try definitions.serialize()])
            try setMeta("schema_version", Int64(version))
            return plan
        }
    }

    // MARK: Meta and log

    func meta(_ key: String) throws -> Int64? {
        if push.isOpen, let known = push.meta[key] { return known }
        if push.isOpen, push.metaComplete { return nil }
        let value = try metaInStore(key)
        if push.isOpen { push.meta[key] = .some(value) }
        return value
    }

    private func metaInStore(_ key: String) throws -> Int64? {
        try link.query("SELECT value FROM \(bookkeeping("meta")) WHERE key = $1", [key]).first?.first?.decode(Int64.self)
    }

    func setMeta(_ key: String, _ value: Int64) throws {
        if push.isOpen {
            // Written once before the push commits (only this transaction reads it until then).
            push.meta[key] = .some(value)
            push.unwritten.insert(key)
            return
        }
        try link.query(
            """
            INSERT INTO \(bookkeeping("meta")) (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, [key, value])
    }

    func currentVersion() throws -> Int64 { try meta("version") ?? 0 }

    func loggedChain(version: Int64) throws -> Int64? {
        try flushBeforeReading()
        return try link.query("SELECT chain FROM \(bookkeeping("log")) WHERE version = $1", [version]).first?.first?.decode(Int64.self)
    }

    func appendLog(replica: String, sequence: Int64, changeset: Data, at seconds: Int64, chain: Int64) throws -> Int64 {
        let version = try currentVersion() + 1
        let sql = """
            INSERT INTO \(bookkeeping("log")) (version, replica, sequence, changeset, at, chain) VALUES ($1, $2, $3, $4, $5, $6)
            """
        if let batch = push.batch {
            batch.log.append((version, replica, sequence, changeset, seconds, chain))
        } else if push.isOpen {
            var binds = PostgresBindings()
            for value: any PostgresThrowingDynamicTypeEncodable in [version, replica, sequence, changeset, seconds, chain] { try binds.append(value) }
            send(sql, binds)
        } else {
            try link.query(sql, [version, replica, sequence, changeset, seconds, chain])
        }
        try setMeta("version", version)
        return version
    }

    func entries(after version: Int64, limit: Int) throws -> [SyncLogEntry] {
        try flushBeforeReading()
        return try link.query(
            """
            SELECT version, replica, sequence, changeset, chain FROM \(bookkeeping("log")) WHERE version > $1 ORDER BY version LIMIT $2
            """, [version, Int64(limit)]
        ).map { row in
            let (version, replica, sequence, changeset, chain) = try row.decode((Int64, String, Int64, Data, Int64).self)
            return SyncLogEntry(version: version, replicaID: replica, sequence: sequence, changeset: changeset, chain: chain)
        }
    }

    /// One statement per entry, sent without waiting inside a push (its answer settled with the
    /// savepoint's).
    func appendLogRoutes(version: Int64, _ routes: [LogRoutes.Filed]) throws {
        guard !routes.isEmpty else { return }
        if let batch = push.batch {
            batch.routes += routes.map { (version, $0.route, $0.row) }
            return
        }
        var binds = PostgresBindings()
        binds.append(version)
        var rows: [String] = []
        for filed in routes {
            try binds.append(filed.route)
            try binds.append(filed.row)
            rows.append("($\(binds.count - 1), $1, $\(binds.count))")
        }
        let sql =
            "INSERT INTO \(bookkeeping("log_routes")) (route, version, row) VALUES " + rows.joined(separator: ", ") + " ON CONFLICT DO NOTHING"
        if push.isOpen {
            send(sql, binds)
        } else {
            _ = try link.run(sql, binds)
        }
    }

    func loggedVersions(after version: Int64, routes: [Data], limit: Int) throws -> LogRoutes.Found {
        try flushBeforeReading()
        return try LogRoutes.find(routes: routes, limit: limit) { chunk, most in
            var binds = PostgresBindings()
            binds.append(version)
            binds.append(Int64(most))
            var placeholders: [String] = []
            for route in chunk {
                try binds.append(route)
                placeholders.append("$\(binds.count)")
            }
            return try link.query(
                "SELECT version, row FROM \(bookkeeping("log_routes")) WHERE route IN (" + placeholders.joined(separator: ", ")
                    + ") AND version > $1 LIMIT $2", binds
            ).map { try $0.decode((Int64, Data).self) }
        }
    }

    func entries(at versions: [Int64]) throws -> [SyncLogEntry] {
        try flushBeforeReading()
        var entries: [SyncLogEntry] = []
        let ordered = versions.sorted()
        var start = 0
        while start < ordered.count {
            let chunk = ordered[start..<min(ordered.count, start + 500)]
            start += chunk.count
            var binds = PostgresBindings()
            for version in chunk { binds.append(version) }
            let placeholders = (1...chunk.count).map { "$\($0)" }.joined(separator: ", ")
            entries += try link.query(
                "SELECT version, replica, sequence, changeset, chain FROM \(bookkeeping("log")) WHERE version IN (" + placeholders + ") ORDER BY version",
                binds
            ).map { row in
                let (version, replica, sequence, changeset, chain) = try row.decode((Int64, String, Int64, Data, Int64).self)
                return SyncLogEntry(version: version, replicaID: replica, sequence: sequence, changeset: changeset, chain: chain)
            }
        }
        return entries
    }

    func newestVersion(before seconds: Int64) throws -> Int64 {
        try flushBeforeReading()
        return try link.query("SELECT coalesce(max(version), 0) FROM \(bookkeeping("log")) WHERE at < $1", [seconds])
            .first?.first?.decode(Int64.self) ?? 0
    }

    func deleteLog(through version: Int64) throws -> Int {
        try flushBeforeReading()
        var binds = PostgresBindings()
        binds.append(version)
        let removed = try link.run("DELETE FROM \(bookkeeping("log")) WHERE version <= $1", binds)
        _ = try link.run("DELETE FROM \(bookkeeping("log_routes")) WHERE version <= $1", binds)
        return removed
    }

    func inventory() throws -> (logEntries: Int, replicas: Int) {
        try flushBeforeReading()
        guard
            let row = try link.query(
                """
                SELECT (SELECT count(*) FROM \(bookkeeping("log"))), (SELECT count(DISTINCT replica) FROM \(bookkeeping("applied")))
                """
            ).first
        else { return (0, 0) }
        let (entries, replicas) = try row.decode((Int64, Int64).self)
        return (Int(entries), Int(replicas))
    }

    func applied(replica: String, sequence: Int64) throws -> AppliedRecord? {
        if push.isOpen {
            let entry = PushTransaction.entry(replica, sequence)
            if push.notApplied.contains(entry) { return nil }
            if let record = push.appliedBefore[entry] { return record }
            let record = try appliedInStore(replica: replica, sequence: sequence)
            if record == nil { push.notApplied.insert(entry) }
            return record
        }
        return try appliedInStore(replica: replica, sequence: sequence)
    }

    private func appliedInStore(replica: String, sequence: Int64) throws -> AppliedRecord? {
        guard
            let row = try link.query(
                """
                SELECT conflicts, version, digest FROM \(bookkeeping("applied")) WHERE replica = $1 AND sequence = $2
                """, [replica, sequence]
            ).first
        else { return nil }
        let (conflicts, version, digest) = try row.decode((String, Int64, Int64?).self)
        return AppliedRecord(conflicts: conflicts, version: version, digest: digest)
    }

    func recordApplied(replica: String, sequence: Int64, version: Int64, conflicts: String, digest: Int64) throws {
        let sql = """
            INSERT INTO \(bookkeeping("applied")) (replica, sequence, version, conflicts, digest) VALUES ($1, $2, $3, $4, $5)
            """
        guard push.isOpen else {
            try link.query(sql, [replica, sequence, version, conflicts, digest])
            return
        }
        let entry = PushTransaction.entry(replica, sequence)
        push.notApplied.remove(entry)
        push.appliedBefore[entry] = AppliedRecord(conflicts: conflicts, version: version, digest: digest)
        if let batch = push.batch {
            batch.applied.append((replica, sequence, version, conflicts, digest))
            return
        }
        var binds = PostgresBindings()
        for value: any PostgresThrowingDynamicTypeEncodable in [replica, sequence, version, conflicts, digest] { try binds.append(value) }
        send(sql, binds)
    }

    // MARK: Rows

    func table(_ name: String) throws -> PostgresTable {
        guard let table = space.byName[IdentifierSet.key(name)] else { throw SyncError.refused("no table named \(name)") }
        return table
    }

    /// `WHERE key = $n AND ...` for `key`, its values appended to `binds`.
    func keyCondition(_ table: PostgresTable, _ key: [BindingValue], _ binds: inout PostgresBindings) throws -> String {
        guard key.count == table.keyPositions.count else {
            throw EntryRefusal(
                reason: .damaged, table: table.name, key: key.map { SyncValue($0) },
                message: "a change to \(table.name) carries \(key.count) key values; the table's key has \(table.keyPositions.count)")
        }
        var parts: [String] = []
        for (value, position) in zip(key, table.keyPositions) {
            let column = table.columns[position]
            if case .null = value {
                throw EntryRefusal(
                    reason: .constraint, table: table.name, key: key.map { SyncValue($0) },
                    message: "the key column \(table.name).\(column.name) is NULL, which a PostgreSQL key cannot hold")
            }
            try binds.append(value, for: column, of: table.name)
            parts.append(quotePostgresIdentifier(column.name) + " = " + column.type.placeholder(binds.count))
        }
        return parts.joined(separator: " AND ")
    }

    /// The row of `table` with `key` as SQLite values, or nil.
    func fetch(_ table: PostgresTable, key: [BindingValue], forUpdate: Bool) throws -> [BindingValue]? {
        var binds = PostgresBindings()
        let condition = try keyCondition(table, key, &binds)
        let sql =
            "SELECT " + table.columns.map { $0.type.selectExpression($0.name) }.joined(separator: ", ") + " FROM " + qualified(table)
            + " WHERE " + condition + (forUpdate ? " FOR UPDATE" : "")
        guard let row = try link.query(sql, binds).first else { return nil }
        return try zip(row, table.columns).map { cell, column in try cell.bindingValue(column.type) }
    }

    func row(table name: String, key: [SyncValue]) throws -> SyncRow {
        try flushBeforeReading()
        let table = try table(name)
        let values = try fetch(table, key: key.map(\.binding), forUpdate: false)
        return HubSchema.row(table: table.name, keyColumns: table.keyColumns, key: key, columns: table.columns.map(\.name), values: values)
    }

    // MARK: Applying an entry

    /// A row the entry found absent was inserted by another transaction before the entry's write.
    struct RowAppeared: Error {}

    func applyEntry(
        _ changeset: Data, sequence: Int64, replica: String, tables: [String],
        policies: [String: SyncPolicy]
    ) throws -> AppliedChanges {
        // Each attempt in a savepoint of the write's transaction: an attempt that met a row
        // inserted meanwhile is undone and the entry settled again, now seeing that row (READ
        // COMMITTED reads what has committed at each statement).
        // In a push's transaction the entry's write is a savepoint already, taken just before:
        // the attempt is undone to it (and the write's failure undoes it all).
        if let batch = push.batch {
            return try applyEntryInBatch(batch, changeset, sequence: sequence, replica: replica, tables: tables, policies: policies)
        }
        let inPush = push.isOpen
        let savepoint = inPush ? "strata_write" : "strata_entry"
        for _ in 1...3 {
            if !inPush { try link.query("SAVEPOINT strata_entry") }
            do {
                let applied = try applyEntryOnce(changeset, sequence: sequence, replica: replica, tables: tables, policies: policies)
                if !inPush { try link.query("RELEASE SAVEPOINT strata_entry") }
                return applied
            } catch is RowAppeared {
                try settleUnanswered()
                try link.query("ROLLBACK TO SAVEPOINT " + savepoint)
            } catch {
                if !inPush { _ = try? link.query("ROLLBACK TO SAVEPOINT strata_entry") }
                throw error
            }
        }
        // Not a refusal: the replica keeps the entry and pushes it again.
        throw PostgresHubError.server(
            sqlState: "40001", message: "rows of entry \(sequence) of \(replica) kept being inserted by other transactions; push again")
    }

    private func applyEntryOnce(
        _ changeset: Data, sequence: Int64, replica: String, tables: [String],
        policies: [String: SyncPolicy]
    ) throws -> AppliedChanges {
        let changes = try Self.changes(of: changeset, sequence: sequence, replica: replica)
        let synced = IdentifierSet(tables)
        let scratch = space.definitions
        try scratch.execute("PRAGMA foreign_keys = OFF")
        try scratch.execute("BEGIN")
        defer { try? scratch.execute("ROLLBACK") }
        // The rows the entry touches, as PostgreSQL has them (locked until the commit).
        var before: [String: [String: [BindingValue]]] = [:]
        for change in changes where synced.contains(change.table) {
            let table = try table(change.table)
            let key = change.primaryKey
            let id = Self.identity(key)
            if before[table.name, default: [:]][id] != nil { continue }
            guard let values = try fetch(table, key: key, forUpdate: true) else { continue }
            before[table.name, default: [:]][id] = values
            try scratch.run(
                literal: SQLFragment(
                    sql: "INSERT INTO " + quoteIdentifier(table.name) + " (" + table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
                        + ") VALUES (" + table.columns.map { _ in "?" }.joined(separator: ", ") + ")",
                    arguments: values))
        }
        // The policies settle the entry as on the SQLite store; the session records what it made.
        // The hub's triggers that write synced tables stay off while the entry is applied, as on
        // the SQLite store: the entry already holds what the replica's triggers did.
        let triggers = try SyncTriggers.writingSyncedTables(tables, scratch)
        let applied = try SyncTriggers.withoutTriggers(triggers, scratch) {
            // An entry that meets no conflict is logged as the replica sent it, as on the SQLite
            // store and in a batch (a session would drop an update that changes nothing, and
            // write a patchset's delete with the whole old row).
            try HubApply.apply(changeset, replica: replica, tables: tables, policies: policies, fastPath: true, on: scratch)
        }
        if applied.made.isEmpty { return applied }
        let touched = IdentifierSet(try Changeset(data: applied.made).changes().map(\.table))
        do {
            for table in space.tables where touched.contains(table.name) {
                let after = try scratchRows(table, scratch)
                let old = before[table.name] ?? [:]
                // In the order of the rows' keys, not a dictionary's (which differs per run):
                // with a unique column, the order decides whether a swap of values is refused,
                // and every hub process and every run must decide it alike.
                for id in old.keys.sorted() where after[id] == nil {
                    var binds = PostgresBindings()
                    let key = table.keyPositions.map { old[id]?[$0] ?? .null }
                    let condition = try keyCondition(table, key, &binds)
                    try link.query("DELETE FROM " + qualified(table) + " WHERE " + condition, binds)
                }
                for id in after.keys.sorted() {
                    guard let values = after[id], !Self.same(old[id], values) else { continue }
                    try upsert(table, values, wasAbsent: old[id] == nil)
                }
            }
        } catch PostgresHubError.server(let state, let message) {
            throw refusal(state, message)
        }
        return applied
    }

    /// An entry's changes; damaged bytes refuse the entry by name.
    static func changes(of changeset: Data, sequence: Int64, replica: String) throws -> [Change] {
        do {
            return try Changeset(data: changeset).changes()
        } catch {
            throw EntryRefusal(reason: .damaged, table: nil, key: nil, message: "entry \(sequence) of \(replica) cannot be read: \(error)")
        }
    }

    /// Writes `values` as the row of `table`: updated where the locked row was, inserted where
    /// none was. A row another transaction inserted after the entry's rows were read (which
    /// `FOR UPDATE` cannot see or lock before it commits) is never written over: that throws
    /// ``RowAppeared`` and the entry is settled again against it.
    func upsert(_ table: PostgresTable, _ values: [BindingValue], wasAbsent: Bool) throws {
        var binds = PostgresBindings()
        for (value, column) in zip(values, table.columns) { try binds.append(value, for: column, of: table.name) }
        let others = table.columns.indices.filter { table.columns[$0].keyIndex == 0 }.map { table.columns[$0].name }
        let sql =
            "INSERT INTO " + qualified(table) + " (" + table.columns.map { quotePostgresIdentifier($0.name) }.joined(separator: ", ")
            + ") VALUES (" + table.columns.indices.map { table.columns[$0].type.placeholder($0 + 1) }.joined(separator: ", ")
            + ") ON CONFLICT (" + table.keyColumns.map(quotePostgresIdentifier).joined(separator: ", ") + ") DO "
            + (others.isEmpty || wasAbsent
                ? "NOTHING"
                : "UPDATE SET " + others.map { quotePostgresIdentifier($0) + " = excluded." + quotePostgresIdentifier($0) }.joined(separator: ", "))
        let inserted = try link.query(sql + (wasAbsent ? " RETURNING 1" : ""), binds)
        if wasAbsent && inserted.isEmpty { throw RowAppeared() }
    }

    /// Every row of `table` in the scratch database, by key; text that is not valid UTF-8 is
    /// refused by name (PostgreSQL's text cannot hold it).
    /// With `keys`, only the rows with those keys.
    func scratchRows(_ table: PostgresTable, _ scratch: Connection, keys: [[BindingValue]]? = nil) throws -> [String: [BindingValue]] {
        // Each column, and its text's bytes (a text value read as a string would have its
        // invalid UTF-8 repaired, not refused).
        let columns = table.columns.map { quoteIdentifier($0.name) }
        let sql =
            "SELECT " + columns.map { "\($0), CASE WHEN typeof(\($0)) = 'text' THEN CAST(\($0) AS BLOB) END" }.joined(separator: ", ")
            + " FROM " + quoteIdentifier(table.name)
        var found: [[BindingValue]] = []
        if let keys {
            // The key columns, compared by `IS` as the session's apply matches them.
            let match =
                " WHERE (" + table.keyColumns.map(quoteIdentifier).joined(separator: ", ") + ") IN (VALUES "
            let perStatement = max(1, 900 / max(1, table.keyPositions.count))
            var start = 0
            while start < keys.count {
                let chunk = keys[start..<min(keys.count, start + perStatement)]
                start += chunk.count
                let tuple = "(" + table.keyPositions.map { _ in "?" }.joined(separator: ", ") + ")"
                found += try scratch.valueRows(
                    literal: SQLFragment(
                        sql: sql + match + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + ")",
                        arguments: chunk.flatMap { $0 })
                ).rows
            }
        } else {
            found = try scratch.valueRows(literal: SQLFragment(sql: sql, arguments: [])).rows
        }
        var rows: [String: [BindingValue]] = [:]
        for row in found {
            var values: [BindingValue] = []
            values.reserveCapacity(table.columns.count)
            for (index, column) in table.columns.enumerated() {
                let value = row[index * 2]
                if case .text = value {
                    guard case .blob(let bytes) = row[index * 2 + 1], let text = String(validating: bytes, as: UTF8.self) else {
                        throw doesNotFit(table.name, column, "the text is not valid UTF-8")
                    }
                    values.append(.text(text))
                } else {
                    values.append(value)
                }
            }
            rows[Self.identity(table.keyPositions.map { values[$0] })] = values
        }
        return rows
    }

    /// A key as a dictionary key: ASCII, so no two keys of different bytes compare equal (a
    /// `String` of the text itself would take "é" and "e\u{301}" for one key).
    static func identity(_ key: [BindingValue]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 * key.count)
        let digits = Array("0123456789abcdef".utf8)
        func hex(_ byte: UInt8) {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 15)])
        }
        func hex(_ word: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { hex(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        for (index, value) in key.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "|")) }
            switch value {
            case .null: bytes.append(UInt8(ascii: "n"))
            case .integer(let integer):
                bytes.append(UInt8(ascii: "i"))
                hex(UInt64(bitPattern: integer))
            case .real(let real):
                bytes.append(UInt8(ascii: "r"))
                hex(real.bitPattern)
            case .text(let text):
                bytes.append(UInt8(ascii: "t"))
                for byte in text.utf8 { hex(byte) }
            case .blob(let blob):
                bytes.append(UInt8(ascii: "b"))
                for byte in blob { hex(byte) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether two rows hold the same values: reals by their bits (-0.0 is not 0.0), text by its
    /// bytes (Swift's `==` takes "é" and "e\u{301}" for one text, and a change from one to the
    /// other would never be written).
    static func same(_ old: [BindingValue]?, _ new: [BindingValue]) -> Bool {
        guard let old, old.count == new.count else { return false }
        return zip(old, new).allSatisfy { pair in
            switch pair {
            case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
            case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
            default: return pair.0 == pair.1
            }
        }
    }

    /// A PostgreSQL error writing an entry's rows, as the refusal the replica is told.
    func refusal(_ state: String, _ message: String) -> Error {
        if state == "23503" {
            return EntryRefusal(reason: .foreignKey, table: nil, key: nil, message: "the change would break a foreign key in PostgreSQL: \(message)")
        }
        if state.hasPrefix("23") || state.hasPrefix("22") {
            return EntryRefusal(reason: .constraint, table: nil, key: nil, message: "PostgreSQL refused the change: \(message)")
        }
        return PostgresHubError.server(sqlState: state, message: message)
    }

    // MARK: Snapshots

    func snapshot(tables: [String]) throws -> (version: Int64, database: Data) {
        try read {
            let version = try currentVersion()
            let image = try HubApply.snapshotImage(tables: tables, schema: space.definitions) { copy in
                try copy.transaction {
                    for name in tables {
                        let table = try table(name)
                        let sql = "SELECT " + table.columns.map { $0.type.selectExpression($0.name) }.joined(separator: ", ") + " FROM " + qualified(table)
                        let insert =
                            "INSERT INTO " + quoteIdentifier(table.name) + " (" + table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
                            + ") VALUES (" + table.columns.map { _ in "?" }.joined(separator: ", ") + ")"
                        for row in try link.query(sql) {
                            let values = try zip(row, table.columns).map { cell, column in try cell.bindingValue(column.type) }
                            try copy.run(literal: SQLFragment(sql: insert, arguments: values))
                        }
                    }
                }
            }
            return (version, image)
        }
    }

    // MARK: Rules (partial sync)

    // Rules run on PostgreSQL's own tables. Each value a rule binds travels untyped, as text
    // (blobs as bytea), and takes the type of what it is compared with, as a value meets a
    // column's affinity in SQLite; a row's values stand in a VALUES list cast to their columns'
    // types. PostgreSQL plans every rule when it is set (``checkRules(_:)``), so what its types
    // would refuse (an integer column compared with TRUE, a predicate that is not a boolean) is
    // refused then, by name, never when a replica pulls.

    func rules() throws -> (version: Int64, json: Data?) {
        if push.isOpen, let rules = push.rules { return rules }
        guard let row = try link.query("SELECT version, json FROM \(bookkeeping("rules")) WHERE id = 1").first else { return (0, nil) }
        let (version, json) = try row.decode((Int64, Data?).self)
        return (version, json)
    }

    func setRules(_ json: Data?) throws -> Int64 {
        var binds = PostgresBindings()
        if let json { try binds.append(json) } else { binds.appendNull() }
        let rows = try link.query(
            """
            INSERT INTO \(bookkeeping("rules")) (id, version, json) VALUES (1, 1, $1)
            ON CONFLICT (id) DO UPDATE SET version = \(bookkeeping("rules")).version + 1, json = excluded.json RETURNING version
            """, binds)
        return try rows.first?.first?.decode(Int64.self) ?? 1
    }

    func viewRecord(replica: String, user: String, atOrBefore version: Int64) throws -> SyncViewRecord? {
        guard
            let row = try link.query(
                """
                SELECT version, rules, instances FROM \(bookkeeping("views"))
                WHERE replica = $1 AND "user" = $2 AND version <= $3 ORDER BY version DESC LIMIT 1
                """, [replica, user, version]
            ).first
        else { return nil }
        let (found, rules, instances) = try row.decode((Int64, Int64, Data).self)
        return SyncViewRecord(version: found, rules: rules, instances: instances)
    }

    func recordView(_ record: SyncViewRecord, replica: String, user: String, keepingFrom: Int64) throws {
        try link.query(
            """
            INSERT INTO \(bookkeeping("views")) (replica, "user", version, rules, instances) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (replica, "user", version) DO UPDATE SET rules = excluded.rules, instances = excluded.instances
            """, [replica, user, record.version, record.rules, record.instances])
        // This user's view from now on (as on the SQLite store): another user's are dropped.
        try link.query(
            """
            DELETE FROM \(bookkeeping("views")) WHERE replica = $1 AND ("user" <> $2 OR version < $3)
            """, [replica, user, keepingFrom])
    }

    func forgetViews(replica: String, user: String) throws {
        try link.query("DELETE FROM \(bookkeeping("views")) WHERE replica = $1 AND \"user\" = $2", [replica, user])
    }

    var definitions: Connection { space.definitions }
    var ruleDialect: RuleDialect { .postgres }

    func ruleRows(_ sql: String, _ arguments: [BindingValue]) throws -> [[BindingValue]] {
        try flushBeforeReading()
        try inSpaceSchema()
        return try link.query(sql, try Self.ruleBindings(arguments)).map { row in try row.map { cell in try cell.ruleValue() } }
    }

    func ruleValue(_ index: Int, table name: String, column: String) throws -> String {
        guard let found = try table(name).column(named: column) else { return "$\(index)" }
        return "$\(index)::" + found.type.rawValue
    }

    func ruleTableRows(_ name: String, columns: [String], where condition: String, _ arguments: [BindingValue]) throws -> [[BindingValue]] {
        try flushBeforeReading()
        let table = try table(name)
        let typed = try columns.map { column in
            guard let found = table.column(named: column) else {
                throw SyncError.refused("\(name) has no column \(column) in PostgreSQL")
            }
            return found
        }
        try inSpaceSchema()
        let binds = try Self.ruleBindings(arguments)
        let sql = "SELECT " + typed.map { $0.type.selectExpression($0.name) }.joined(separator: ", ") + " FROM " + qualified(table) + " WHERE " + condition
        return try link.query(sql, binds).map { row in try zip(row, typed).map { cell, column in try cell.bindingValue(column.type) } }
    }

    func checkRules(_ probes: [RuleProbe]) throws {
        try Self.checkRules(probes, schema: schema, on: link)
    }

    /// Plans each probe in the space `schema`'s tables, on `link` inside its transaction.
    static func checkRules(_ probes: [RuleProbe], schema: String, on link: PostgresLink) throws {
        // Names the rules' SQL leaves unqualified resolve in the space's schema, until the
        // transaction ends.
        try link.query("SELECT set_config('search_path', $1, true)", [schema])
        for probe in probes {
            do {
                _ = try link.query(probe.statement, try ruleBindings(probe.arguments))
            } catch PostgresHubError.server(let state, let message) {
                // The transaction is refused with it: nothing of the rules is written.
                throw SyncError.invalidRules("\(probe.place): PostgreSQL reads it otherwise than SQLite (SQLSTATE \(state)): \(message)")
            }
        }
    }

    /// Names the rules' SQL leaves unqualified resolve in the space's schema, until the
    /// transaction ends.
    private func inSpaceSchema() throws {
        try link.query("SELECT set_config('search_path', $1, true)", [schema])
    }

    /// A rule's arguments, each bound by ``bindRuleValue(_:into:)``.
    static func ruleBindings(_ arguments: [BindingValue]) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: arguments.count)
        for value in arguments { try bindRuleValue(value, into: &binds) }
        return binds
    }

    /// Binds a rule's value: text and numbers untyped (PostgreSQL gives each the type of what it
    /// is compared with, as SQLite applies a column's affinity), blobs as bytea.
    static func bindRuleValue(_ value: BindingValue, into binds: inout PostgresBindings) throws {
        switch value {
        case .null: binds.appendNull()
        case .integer(let integer): binds.append(UntypedText(String(integer)))
        case .real(let real):
            guard !real.isNaN else { binds.appendNull(); return }
            binds.append(UntypedText(real.isInfinite ? (real < 0 ? "-Infinity" : "Infinity") : "\(real)"))
        case .text(let text):
            // PostgreSQL's text holds no NUL, so no value there equals one that has it.
            guard !text.unicodeScalars.contains("\u{0}") else {
                throw SyncError.refused("a value the rules compare holds a NUL character, which PostgreSQL's text cannot hold")
            }
            binds.append(UntypedText(text))
        case .blob(let blob): try binds.append(blob)
        }
    }
}

/// A parameter sent as text with no type: PostgreSQL infers its type from where it stands.
struct UntypedText: PostgresDynamicTypeEncodable {
    let text: String
    init(_ text: String) { self.text = text }
    var psqlType: PostgresDataType { .null }
    var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

extension PostgresCell {
    /// Whether the numeric `text` reads into an Int64 or a Double as that number exactly: an
    /// integer Int64 parses, or at most 15 significant digits within a Double's normal range
    /// (every such decimal survives the round trip). Not 100000000000000000.5, whose Double is a
    /// whole number another row may hold, nor 1e-400 (0) or 1e400 (infinity).
    static func holdsExactly(_ text: String) -> Bool {
        if Int64(text) != nil || text == "NaN" || text == "Infinity" || text == "-Infinity" { return true }
        var bytes = Array(text.utf8)
        var exponent = 0
        if let marker = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            guard let written = Int(String(decoding: bytes[(marker + 1)...], as: UTF8.self)) else { return false }
            exponent = written
            bytes = Array(bytes[..<marker])
        }
        let digits = bytes.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "+") }
        let point = digits.firstIndex(of: UInt8(ascii: ".")) ?? digits.count
        let integer = digits[..<point].drop { $0 == 0x30 }
        let fraction = point < digits.count ? Array(digits[(point + 1)...]) : []
        // The decimal exponent of the first significant digit, and the significant digits.
        let magnitude: Int
        var significant: [UInt8]
        if !integer.isEmpty {
            magnitude = integer.count - 1 + exponent
            significant = Array(integer) + fraction
        } else {
            guard let first = fraction.firstIndex(where: { $0 != 0x30 }) else { return true } // zero
            magnitude = -(first + 1) + exponent
            significant = Array(fraction[first...])
        }
        while significant.last == 0x30 { significant.removeLast() }
        return significant.count <= 15 && (-300...300).contains(magnitude)
    }

    /// A rule's result cell as SQLite would hold it, by the type PostgreSQL gave it.
    func ruleValue() throws -> BindingValue {
        guard bytes != nil else { return .null }
        switch dataType {
        case .int2: return .integer(Int64(try decode(Int16.self)))
        case .int4: return .integer(Int64(try decode(Int32.self)))
        case .int8: return .integer(try decode(Int64.self))
        case .bool: return .integer(try decode(Bool.self) ? 1 : 0)
        case .float4, .float8:
            let real = try decode(Double.self)
            return real.isNaN ? .null : .real(real)
        case .numeric:
            // Its exact digits: through Decimal (38 digits) 10^50 + 1 became 10^50, and matched
            // another user's 10^50. A value no Int64 or Double holds exactly keeps its digits,
            // bound back untyped, so PostgreSQL compares it as the numeric it is.
            let text: String
            if format == .binary, let exact = PostgresData(type: .numeric, formatCode: .binary, value: bytes).numeric?.string {
                text = exact
            } else {
                text = try decode(String.self)
            }
            return Self.holdsExactly(text) ? Self.numericValue(text: text) : .text(text)
        case .bytea: return .blob(try decode(Data.self))
        default: return .text(try decode(String.self))
        }
    }
}
#endif
