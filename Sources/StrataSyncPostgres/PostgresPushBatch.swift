// A push applied as a few statements. Where the space has no rules (nothing reads PostgreSQL in
// the middle of an entry) and its synced tables no unique index beside their keys, the push's rows are read once, `FOR UPDATE`, one statement per table;
// every entry is settled in the scratch SQLite as before, each in a savepoint of one scratch
// transaction held for the whole push; and what the entries made reaches PostgreSQL at the end as
// one multi-row statement per table and operation (deletes, inserts, updates), with the log rows
// and applied records as one multi-row statement each.
//
// PostgreSQL checks keys, its types and its own constraints only then, for the whole push, so a
// failure there names no entry. The batch is then abandoned: the push's transaction is rolled
// back and the push runs again entry by entry (``PostgresSpaceStorage/applyingPush``), each
// entry's write a savepoint, where the failing entry is refused alone as before. The same happens
// when a row the push read as absent was inserted by another transaction meanwhile.
#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync

/// The batch could not be written as a whole: the push runs again entry by entry.
struct BatchAbandoned: Error {}

/// When a store batches a push.
package enum PostgresPushBatching: Sendable {
    /// Where it does exactly what the push entry by entry does (the default).
    case whereExact
    /// Never: every push entry by entry, as a space with rules.
    case never
    /// As `whereExact`, and every batch is then abandoned when written, as a failure there
    /// would: the differential test's way through the push's second run.
    case abandonedAtFlush
}

/// Pushes this process applied as a batch, and batches it abandoned (the push then ran entry by
/// entry): what the benchmark and the differential test count.
package struct PostgresPushBatchCounts: Sendable, Equatable {
    package var written = 0
    package var abandoned = 0
    package static let current = Locked(PostgresPushBatchCounts())
}

/// What one push's batch holds between its entries and its flush.
final class PostgresPushBatch {
    let scratch: Connection
    let direct: DirectChangesetApplier?
    /// The rows PostgreSQL had when last read or written, by table name and key identity (nil:
    /// absent); the scratch holds the same rows, as the entries since have left them.
    var loaded: [String: [String: [BindingValue]?]] = [:]
    /// The rows entries changed since the last flush, by table name, then identity (to key).
    var dirty: [String: [String: [BindingValue]]] = [:]
    /// Entries applied since the last flush: every few, what they made is sent to PostgreSQL
    /// without waiting, so PostgreSQL writes while the hub settles the next entries.
    var entriesSinceFlush = 0
    /// The inserts sent without waiting and how many rows each must insert (fewer: a row
    /// another transaction inserted since it was read as absent).
    var insertChecks: [(answer: EventLoopFuture<PostgresQueryResult>, rows: Int)] = []
    var log: [(version: Int64, replica: String, sequence: Int64, changeset: Data, at: Int64, chain: Int64)] = []
    var applied: [(replica: String, sequence: Int64, version: Int64, conflicts: String, digest: Int64)] = []
    var routes: [(version: Int64, route: Data, row: Data)] = []
    /// Whether an entry's write is open (a read of PostgreSQL then cannot flush).
    var entryOpen = false
    /// Set when the batch met what it cannot do; the push then runs again entry by entry.
    var abandoned = false

    /// The rows added to `loaded` and to `dirty` since the last flush, in order: an entry that is
    /// undone takes back what it added (a copy of the maps per entry would cost the push's size).
    var loadedJournal: [(table: String, id: String)] = []
    var dirtyJournal: [(table: String, id: String)] = []
    let synced: IdentifierSet

    init(scratch: Connection, direct: DirectChangesetApplier?, tables: [String]) {
        self.scratch = scratch
        self.direct = direct
        synced = IdentifierSet(tables)
    }

    var hasPending: Bool { !dirty.isEmpty || !log.isEmpty || !applied.isEmpty || !routes.isEmpty }

    typealias Mark = (loaded: Int, dirty: Int, log: Int, applied: Int, routes: Int)
    var mark: Mark { (loadedJournal.count, dirtyJournal.count, log.count, applied.count, routes.count) }

    func load(_ table: String, _ id: String, _ values: [BindingValue]?) {
        if loaded[table, default: [:]].updateValue(values, forKey: id) == nil { loadedJournal.append((table, id)) }
    }

    func markDirty(_ table: String, _ id: String, key: [BindingValue]) {
        if dirty[table, default: [:]].updateValue(key, forKey: id) == nil { dirtyJournal.append((table, id)) }
    }

    /// Forgets what an entry that was undone added.
    func restore(_ mark: Mark) {
        for (table, id) in loadedJournal[mark.loaded...] { loaded[table]?[id] = nil }
        loadedJournal.removeSubrange(mark.loaded...)
        for (table, id) in dirtyJournal[mark.dirty...] {
            dirty[table]?[id] = nil
            if dirty[table]?.isEmpty == true { dirty[table] = nil }
        }
        dirtyJournal.removeSubrange(mark.dirty...)
        log.removeSubrange(mark.log...)
        applied.removeSubrange(mark.applied...)
        routes.removeSubrange(mark.routes...)
    }
}

extension PostgresSpaceStorage {
    /// Most binds one statement of the batch carries (PostgreSQL takes at most 65,535).
    static let bindsPerStatement = 30_000

    /// `items` in runs of as many as fit one statement at `bindsEach` binds an item.
    static func statementChunks<T>(_ items: [T], bindsEach: Int) -> [ArraySlice<T>] {
        let size = max(1, bindsPerStatement / max(1, bindsEach))
        return stride(from: 0, to: items.count, by: size).map { items[$0..<min(items.count, $0 + size)] }
    }

    /// Starts the push's batch for `changesets` (see the file's comment): a no-op outside a push,
    /// on the push's second run, or once started.
    func batchEntries(_ changesets: [Data], tables: [String]) throws {
        guard push.isOpen, push.batching, push.batch == nil else { return }
        let scratch = space.definitions
        // A unique index beside the key makes an entry's apply in the scratch depend on the other
        // rows there: with the whole push's rows (the batch) SQLite would settle a clash that,
        // entry by entry, PostgreSQL refuses. Such tables keep the push entry by entry.
        if space.batchable[tables] == nil {
            var batchable = true
            for name in tables {
                let unique: Int64? = try scratch.query(
                    literal: SQLFragment(
                        sql: "SELECT count(*) FROM pragma_index_list(?) WHERE \"unique\" = 1 AND origin <> 'pk'", arguments: [.text(name)]))
                if (unique ?? 0) > 0 { batchable = false }
            }
            space.batchable[tables] = batchable
        }
        guard space.batchable[tables] == true else { return }
        try scratch.execute("PRAGMA foreign_keys = OFF")
        if scratch.isInTransaction { try scratch.execute("ROLLBACK") }
        try scratch.execute("BEGIN")
        do {
            // The hub's triggers that write synced tables stay off for the push, as for an entry
            // on the SQLite store (the entry holds what the replica's triggers did); the scratch
            // transaction's rollback brings them back.
            let triggers: [SyncTriggers.Trigger]
            if let known = space.triggersWritingSynced[tables] {
                triggers = known
            } else {
                triggers = try SyncTriggers.writingSyncedTables(tables, scratch)
                space.triggersWritingSynced[tables] = triggers
            }
            try SyncTriggers.drop(triggers, scratch)
            let direct = HubApply.usesOwnApplier ? try DirectChangesetApplier(tables: tables, connection: scratch) : nil
            let batch = PostgresPushBatch(scratch: scratch, direct: direct, tables: tables)
            push.batch = batch
            let synced = IdentifierSet(tables)
            var keys: [String: [[BindingValue]]] = [:]
            for changeset in changesets {
                // A damaged entry is refused when it is applied.
                guard let changes = try? Changeset(data: changeset).changes() else { continue }
                for change in changes where synced.contains(change.table) {
                    guard let table = try? table(change.table) else { continue }
                    keys[table.name, default: []].append(change.primaryKey)
                }
            }
            try load(keys, validating: false)
        } catch {
            push.batch = nil
            try? scratch.execute("ROLLBACK")
            throw error
        }
    }

    /// Reads the rows with `keys` not read yet, `FOR UPDATE`, into the batch and its scratch.
    /// Keys that cannot be in PostgreSQL (NULL, of another width) are refused with `validating`,
    /// else skipped (the entry naming them is refused when it is applied).
    func load(_ keys: [String: [[BindingValue]]], validating: Bool) throws {
        guard let batch = push.batch else { return }
        for table in space.tables {
            guard let wanted = keys[table.name] else { continue }
            var missing: [[BindingValue]] = []
            for key in wanted {
                let id = Self.identity(key)
                guard batch.loaded[table.name]?[id] == nil else { continue }
                var probe = PostgresBindings()
                do {
                    _ = try keyCondition(table, key, &probe)
                } catch {
                    if validating { throw error }
                    continue
                }
                batch.load(table.name, id, nil)
                missing.append(key)
            }
            guard !missing.isEmpty else { continue }
            let select =
                "SELECT " + table.columns.map { $0.type.selectExpression($0.name) }.joined(separator: ", ") + " FROM " + qualified(table)
            // A cached statement of the scratch connection, bound anew per row.
            let insert =
                "INSERT INTO " + quoteIdentifier(table.name) + " (" + table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
                + ") VALUES (" + table.columns.map { _ in "?" }.joined(separator: ", ") + ")"
            for chunk in Self.statementChunks(missing, bindsEach: table.keyPositions.count) {
                var binds = PostgresBindings()
                let condition = try keyList(table, Array(chunk), &binds)
                for row in try link.query(select + " WHERE " + condition + " FOR UPDATE", binds) {
                    let values = try zip(row, table.columns).map { cell, column in try cell.bindingValue(column.type) }
                    batch.loaded[table.name, default: [:]][Self.identity(table.keyPositions.map { values[$0] })] = .some(values)
                    try batch.scratch.run(literal: SQLFragment(sql: insert, arguments: values))
                }
            }
        }
    }

    /// `(k1, k2) IN (($1, $2), ...)` for `keys` of `table`, their values appended to `binds`.
    func keyList(_ table: PostgresTable, _ keys: [[BindingValue]], _ binds: inout PostgresBindings) throws -> String {
        var tuples: [String] = []
        tuples.reserveCapacity(keys.count)
        for key in keys {
            var parts: [String] = []
            for (value, position) in zip(key, table.keyPositions) {
                let column = table.columns[position]
                try binds.append(value, for: column, of: table.name)
                parts.append(column.type.placeholder(binds.count))
            }
            tuples.append("(" + parts.joined(separator: ", ") + ")")
        }
        return "(" + table.keyColumns.map(quotePostgresIdentifier).joined(separator: ", ") + ") IN (" + tuples.joined(separator: ", ") + ")"
    }

    /// Settles one entry in the batch's scratch (inside its write's savepoint) and marks the rows
    /// it made as changed.
    func applyEntryInBatch(
        _ batch: PostgresPushBatch, _ changeset: Data, sequence: Int64, replica: String, tables: [String],
        policies: [String: SyncPolicy]
    ) throws -> AppliedChanges {
        let changes = try Self.changes(of: changeset, sequence: sequence, replica: replica)
        let synced = batch.synced
        var keys: [String: [[BindingValue]]] = [:]
        for change in changes where synced.contains(change.table) {
            let table = try table(change.table)
            // A key SQLite would store otherwise than it came (an integer in a REAL column, an
            // integral real in a NUMERIC one, a number in a TEXT one) names its row by another
            // value than the row's own: the batch, which finds rows by their keys' values, is
            // abandoned for the push entry by entry, which reads the scratch whole.
            for (value, position) in zip(change.primaryKey, table.keyPositions) where !Self.isStoredAsIs(value, table.columns[position].type) {
                batch.abandoned = true
                throw BatchAbandoned()
            }
            keys[table.name, default: []].append(change.primaryKey)
        }
        try load(keys, validating: true)
        // Foreign keys are off in the scratch (it holds only the push's rows), and the triggers
        // that write synced tables are dropped: an entry that meets no conflict makes exactly
        // its own changes, so the fast path holds.
        let applied = try HubApply.apply(
            changeset, replica: replica, tables: tables, policies: policies, fastPath: true, direct: batch.direct, on: batch.scratch)
        let made = applied.made == changeset ? changes : try Changeset(data: applied.made).changes()
        var written: [String: [[BindingValue]]] = [:]
        for change in made where synced.contains(change.table) {
            let name = try table(change.table).name
            batch.markDirty(name, Self.identity(change.primaryKey), key: change.primaryKey)
            if change.operation != .delete { written[name, default: []].append(change.primaryKey) }
        }
        // Each row the entry leaves must fit PostgreSQL's types now, as the entry's own write
        // would: a later entry of the push may change it again before it is written, and the
        // entry would then be taken where, entry by entry, it is refused.
        for table in space.tables {
            guard let keys = written[table.name] else { continue }
            for values in try scratchRows(table, batch.scratch, keys: keys).values {
                var probe = PostgresBindings()
                for (value, column) in zip(values, table.columns) { try probe.append(value, for: column, of: table.name) }
            }
        }
        return applied
    }

    /// Whether SQLite stores `value` unchanged in a column of `type`'s affinity.
    static func isStoredAsIs(_ value: BindingValue, _ type: PostgresColumnType) -> Bool {
        switch (value, type) {
        case (.null, _), (_, .bytea), (.integer, .bigint), (.real, .double), (.text, .text): return true
        case (.integer, .numeric): return true
        case (.real(let real), .numeric): return !(real.rounded() == real && abs(real) < 0x1p63)
        default: return false
        }
    }

    /// Sends what the batch holds to PostgreSQL without waiting; with `settling`, waits for
    /// every statement sent and checks the inserts. Any failure abandons the batch (the push runs
    /// again entry by entry), except a connection that closed.
    func flushBatch(settling: Bool) throws {
        guard let batch = push.batch else { return }
        do {
            if batch.hasPending {
                try writeBatchRows(batch)
                try writeBatchBookkeeping(batch)
            }
            if settling && push.abandonsAtFlush { throw RowAppeared() }
            if settling {
                let checks = batch.insertChecks
                batch.insertChecks = []
                var appeared = false
                for check in checks where try link.wait(for: check.answer).metadata.rows != check.rows { appeared = true }
                try settleUnanswered()
                if appeared { throw RowAppeared() }
            }
        } catch let unavailable as SyncHubStoreUnavailable {
            throw unavailable
        } catch {
            batch.abandoned = true
            throw BatchAbandoned()
        }
    }

    /// After an entry's write: every few entries, what they made is sent ahead. A failure here
    /// only marks the batch abandoned (the push then runs again entry by entry).
    func entryWritten(_ batch: PostgresPushBatch) {
        batch.entriesSinceFlush += 1
        guard batch.entriesSinceFlush >= Self.entriesPerSend, !batch.abandoned else { return }
        _ = try? flushBatch(settling: false)
    }

    /// How many entries' rows are sent ahead together.
    static let entriesPerSend = 50

    /// Writes and settles before a read of PostgreSQL that pending writes could change; inside
    /// an entry's write, with writes pending, that cannot be done (the entry's rows would not be
    /// undone alone), so the batch is abandoned.
    func flushBeforeReading() throws {
        guard let batch = push.batch else { return }
        if batch.entryOpen && batch.hasPending {
            batch.abandoned = true
            throw BatchAbandoned()
        }
        try flushBatch(settling: true)
    }

    private func writeBatchRows(_ batch: PostgresPushBatch) throws {
        // Deletes first, children before parents; then inserts and updates, parents first (the
        // order the space's tables were created in): the order foreign keys checked at each
        // statement's end need.
        var finals: [String: [String: [BindingValue]]] = [:]
        for table in space.tables {
            guard let dirty = batch.dirty[table.name] else { continue }
            finals[table.name] = try scratchRows(table, batch.scratch, keys: dirty.keys.sorted().compactMap { dirty[$0] })
        }
        for table in space.tables.reversed() {
            guard let ids = batch.dirty[table.name]?.keys, let final = finals[table.name] else { continue }
            let old = batch.loaded[table.name] ?? [:]
            let gone = ids.sorted().compactMap { id -> [BindingValue]? in
                guard final[id] == nil, let values = old[id] ?? nil else { return nil }
                return table.keyPositions.map { values[$0] }
            }
            for chunk in Self.statementChunks(gone, bindsEach: table.keyPositions.count) {
                var binds = PostgresBindings()
                let condition = try keyList(table, Array(chunk), &binds)
                send("DELETE FROM " + qualified(table) + " WHERE " + condition, binds)
            }
        }
        for table in space.tables {
            guard let ids = batch.dirty[table.name]?.keys, let final = finals[table.name] else { continue }
            let old = batch.loaded[table.name] ?? [:]
            var inserted: [[BindingValue]] = [], updated: [[BindingValue]] = []
            for id in ids.sorted() {
                guard let values = final[id] else { continue }
                switch old[id] ?? nil {
                case nil: inserted.append(values)
                case let before? where !Self.same(before, values): updated.append(values)
                default: break
                }
            }
            try upsertRows(batch, table, inserted, inserting: true)
            try upsertRows(batch, table, updated, inserting: false)
            var known = old
            for id in ids { known[id] = .some(final[id]) }
            batch.loaded[table.name] = known
        }
        batch.dirty = [:]
        batch.dirtyJournal = []
        batch.loadedJournal = []
        batch.entriesSinceFlush = 0
    }

    /// One multi-row `INSERT` per chunk, sent without waiting: new rows (`inserting`; one already
    /// there was inserted by another transaction since it was read, which the settling finds) or
    /// rows whose other columns change.
    private func upsertRows(_ batch: PostgresPushBatch, _ table: PostgresTable, _ rows: [[BindingValue]], inserting: Bool) throws {
        let others = table.columns.filter { $0.keyIndex == 0 }.map(\.name)
        guard !rows.isEmpty, inserting || !others.isEmpty else { return }
        let head =
            "INSERT INTO " + qualified(table) + " (" + table.columns.map { quotePostgresIdentifier($0.name) }.joined(separator: ", ") + ") VALUES "
        let tail =
            " ON CONFLICT (" + table.keyColumns.map(quotePostgresIdentifier).joined(separator: ", ") + ") DO "
            + (inserting
                ? "NOTHING"
                : "UPDATE SET " + others.map { quotePostgresIdentifier($0) + " = excluded." + quotePostgresIdentifier($0) }.joined(separator: ", "))
        for chunk in Self.statementChunks(rows, bindsEach: table.columns.count) {
            var binds = PostgresBindings()
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for values in chunk {
                var parts: [String] = []
                for (value, column) in zip(values, table.columns) {
                    try binds.append(value, for: column, of: table.name)
                    parts.append(column.type.placeholder(binds.count))
                }
                tuples.append("(" + parts.joined(separator: ", ") + ")")
            }
            let sql = head + tuples.joined(separator: ", ") + tail
            if inserting {
                batch.insertChecks.append((link.connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: link.logger), chunk.count))
            } else {
                send(sql, binds)
            }
        }
    }

    /// The log rows, their routes and the applied records, a multi-row statement each, sent
    /// without waiting (settled before the commit).
    private func writeBatchBookkeeping(_ batch: PostgresPushBatch) throws {
        try sendRows(
            "INSERT INTO \(bookkeeping("log")) (version, replica, sequence, changeset, at, chain) VALUES ", width: 6, batch.log
        ) { row, binds in
            binds.append(row.version)
            binds.append(row.replica)
            binds.append(row.sequence)
            try binds.append(row.changeset)
            binds.append(row.at)
            binds.append(row.chain)
        }
        try sendRows("INSERT INTO \(bookkeeping("log_routes")) (version, route, row) VALUES ", width: 3, batch.routes, suffix: " ON CONFLICT DO NOTHING") {
            row, binds in
            binds.append(row.version)
            try binds.append(row.route)
            try binds.append(row.row)
        }
        try sendRows(
            "INSERT INTO \(bookkeeping("applied")) (replica, sequence, version, conflicts, digest) VALUES ", width: 5, batch.applied
        ) { row, binds in
            binds.append(row.replica)
            binds.append(row.sequence)
            binds.append(row.version)
            binds.append(row.conflicts)
            binds.append(row.digest)
        }
        batch.log = []
        batch.routes = []
        batch.applied = []
    }

    private func sendRows<Row>(
        _ head: String, width: Int, _ rows: [Row], suffix: String = "", _ bind: (Row, inout PostgresBindings) throws -> Void
    ) throws {
        for chunk in Self.statementChunks(rows, bindsEach: width) {
            var binds = PostgresBindings()
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for row in chunk {
                let first = binds.count + 1
                try bind(row, &binds)
                tuples.append("(" + (first...binds.count).map { "$\($0)" }.joined(separator: ", ") + ")")
            }
            send(head + tuples.joined(separator: ", ") + suffix, binds)
        }
    }
}
#endif
