// What a replica with a view receives: the moves from its view at its cursor to its view now,
// as one changeset (so a membership change lands whole, in one pull), and snapshots of its view.
//
// The hub records, per replica and user, the instances it answered each view change with. A pull
// after version c reads the log after c once: each changed row's state at c is rebuilt from the
// entries' old values, and is in the old view by the instances recorded at c; rows of instances
// gained or lost are read from the tables. Cost: the log after the cursor and the rows of changed
// instances, never the whole space.
import Foundation
import Strata

extension SyncView {
    /// A key of one table's row, hashable.
    struct RowKey: Hashable {
        var table: String
        var key: [SyncValue]
    }

    /// The answer to a pull after `after` for this view: one entry at `current` carrying the moves,
    /// none when nothing moved, or a request for a snapshot; and the view to record.
    func pull(
        after: Int64, current: Int64, chain: Int64?, request: SyncPullRequest,
        widths: [String: Int]?, limits: SyncLimits
    ) throws -> (SyncPullResponse, SyncViewRecord?) {
        let now = try instances()
        let previous: Set<CompiledRules.Instance>
        var recorded: SyncViewRecord?
        let found = try storage.viewRecord(replica: request.replicaID, user: identity.user, atOrBefore: after)
        if after == 0, found == nil {
            // A new replica: nothing yet (a pull at version 0 may have recorded its view since).
            previous = []
        } else {
            guard let record = found, record.rules == rules.version, let decoded = try? Self.decodeInstances(record.instances) else {
                // A replica from before these rules (or this user): its rows are not a view the
                // hub can tell, so it starts over from a snapshot of its view.
                return (SyncPullResponse(entries: [], hubVersion: current, snapshotNeeded: true), nil)
            }
            previous = decoded
            recorded = record
        }
        let record = SyncViewRecord(version: current, rules: rules.version, instances: try Self.encodeInstances(now))
        let needsRecord = recorded == nil || previous != now
        if after >= current && previous == now {
            return (SyncPullResponse(entries: [], hubVersion: current), needsRecord ? record : nil)
        }
        // A cursor so far behind that the moves would outweigh its view: a snapshot of the view.
        let cap = max(1, limits.maximumEntriesPerPull) * 100
        let entries = try storage.entries(after: after, limit: cap + 1)
        if entries.count > cap {
            return (SyncPullResponse(entries: [], hubVersion: current, snapshotNeeded: true), nil)
        }
        var upserts: [RowKey: (columns: [String], values: [BindingValue])] = [:]
        var deletes: [RowKey: (columns: [String], values: [BindingValue])] = [:]
        let tables = Dictionary(request.tables.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

        // Each changed row's state at the cursor, rebuilt from the oldest change after it.
        var before: [RowKey: [Int: BindingValue]] = [:]
        var existedBefore: [RowKey: Bool] = [:]
        var resolved: Set<RowKey> = []
        var order: [RowKey] = []
        for entry in entries {
            try Changeset(data: entry.changeset).forEachChange { change in
                guard let table = tables[change.table.lowercased()] else { return }
                let key = RowKey(table: table, key: change.primaryKey.map { SyncValue($0) })
                if existedBefore[key] == nil {
                    existedBefore[key] = change.operation != .insert
                    order.append(key)
                }
                guard existedBefore[key] == true, !resolved.contains(key) else { return }
                var known = before[key] ?? [:]
                for (index, value) in change.oldValues.enumerated() {
                    if let value, known[index] == nil { known[index] = value }
                }
                before[key] = known
                if change.operation == .delete { resolved.insert(key) }
            }
        }
        var changedByTable: [String: [RowKey]] = [:]
        for key in order { changedByTable[key.table, default: []].append(key) }
        for (table, keys) in changedByTable {
            let columns = try storage.definitions.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
            let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
            let keyIndexes = keyColumns.compactMap { key in columns.firstIndex { $0.lowercased() == key.lowercased() } }
            // The changed rows as they are now, 200 keys a statement.
            var current: [RowKey: [BindingValue]] = [:]
            var start = 0
            while start < keys.count {
                let chunk = keys[start..<min(keys.count, start + 200)]
                start += chunk.count
                var arguments: [BindingValue] = []
                let condition = keyCondition(keyColumns, chunk.map { $0.key.map(\.binding) }, into: &arguments)
                for values in try currentRows(table, columns: columns, where: condition, arguments) {
                    current[RowKey(table: table, key: keyIndexes.map { SyncValue(values[$0]) })] = values
                }
            }
            var nowRows: [[BindingValue]] = []
            var nowKeys: [RowKey] = []
            var thenRows: [[BindingValue]] = []
            var thenKeys: [RowKey] = []
            for key in keys {
                let values = current[key]
                if let values {
                    nowRows.append(values)
                    nowKeys.append(key)
                }
                if existedBefore[key] == true {
                    let known = before[key] ?? [:]
                    thenRows.append((0..<columns.count).map { known[$0] ?? values?[$0] ?? .null })
                    thenKeys.append(key)
                }
            }
            let inNow = try matching(table, columns: columns, rows: nowRows) { predicate(table, now, into: &$0) }
            let inThen = try matching(table, columns: columns, rows: thenRows) { predicate(table, previous, into: &$0) }
            var visibleNow: Set<RowKey> = []
            for (index, key) in nowKeys.enumerated() where inNow.contains(index) {
                upserts[key] = (columns, nowRows[index])
                visibleNow.insert(key)
            }
            for (index, key) in thenKeys.enumerated() where inThen.contains(index) && !visibleNow.contains(key) {
                deletes[key] = (columns, thenRows[index])
            }
        }

        // Instances gained bring their rows; instances lost take the rows no other instance keeps.
        let gained = now.subtracting(previous), lost = previous.subtracting(now)
        if !gained.isEmpty || !lost.isEmpty {
            for table in request.tables {
                let columns = try storage.definitions.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
                let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
                let keyIndexes = keyColumns.compactMap { key in columns.firstIndex { $0.lowercased() == key.lowercased() } }
                func rowKey(_ values: [BindingValue]) -> RowKey {
                    RowKey(table: table, key: keyIndexes.map { SyncValue(values[$0]) })
                }
                var arguments: [BindingValue] = []
                if let condition = predicate(table, gained, into: &arguments) {
                    for values in try currentRows(table, columns: columns, where: condition, arguments) {
                        let key = rowKey(values)
                        if existedBefore[key] == nil { upserts[key] = (columns, values) }
                    }
                }
                arguments = []
                if let condition = predicate(table, lost, into: &arguments) {
                    let keep = predicate(table, now, into: &arguments).map { " AND NOT coalesce(" + $0 + ", FALSE)" } ?? ""
                    for values in try currentRows(table, columns: columns, where: "(" + condition + ")" + keep, arguments) {
                        let key = rowKey(values)
                        if existedBefore[key] == nil { deletes[key] = (columns, values) }
                    }
                }
            }
        }
        var changeset = try Self.changeset(tables: request.tables, upserts: upserts, deletes: deletes, definitions: storage.definitions)
        if let widths, !changeset.isEmpty {
            changeset = try Changeset(data: changeset).keepingLeadingColumns { widths[$0.lowercased()] }.data
        }
        let entry = SyncLogEntry(version: current, replicaID: "", sequence: 0, changeset: changeset, chain: chain)
        return (SyncPullResponse(entries: [entry], hubVersion: current), needsRecord ? record : nil)
    }

    /// A changeset that deletes `deletes` (as the replica holds them) and writes `upserts` whole:
    /// recorded by a session on an empty copy of the tables.
    static func changeset(
        tables: [String], upserts: [RowKey: (columns: [String], values: [BindingValue])],
        deletes: [RowKey: (columns: [String], values: [BindingValue])], definitions: Connection
    ) throws -> Data {
        guard !upserts.isEmpty || !deletes.isEmpty else { return Data() }
        let copy = try Connection(storageLocation: .inMemory)
        for table in tables {
            guard let sql = try definitions.schemaReader.table(named: table)?.sql else { throw SyncError.refused("no table \(table)") }
            try copy.execute(sql)
        }
        func insert(_ table: String, _ row: (columns: [String], values: [BindingValue])) throws {
            let sql =
                "INSERT INTO " + quoteIdentifier(table) + "(" + row.columns.map(quoteIdentifier).joined(separator: ", ") + ") VALUES ("
                + row.columns.map { _ in "?" }.joined(separator: ", ") + ")"
            try copy.run(literal: SQLFragment(sql: sql, arguments: row.values))
        }
        let sortedDeletes = deletes.sorted { "\($0.key.table)\($0.key.key)" < "\($1.key.table)\($1.key.key)" }
        for (key, row) in sortedDeletes { try insert(key.table, row) }
        let session = try copy.recordChanges(tables: tables)
        defer { session.close() }
        for (key, _) in sortedDeletes {
            let keyColumns = try SchemaFingerprint.keyColumns(of: key.table, in: copy)
            let condition = keyColumns.map { quoteIdentifier($0) + " IS ?" }.joined(separator: " AND ")
            try copy.run(
                literal: SQLFragment(
                    sql: "DELETE FROM " + quoteIdentifier(key.table) + " WHERE " + condition,
                    arguments: key.key.map(\.binding)))
        }
        for (key, row) in upserts.sorted(by: { "\($0.key.table)\($0.key.key)" < "\($1.key.table)\($1.key.key)" }) {
            try insert(key.table, row)
        }
        return try session.changeset().data
    }

    /// The view's rows of `tables` as a SQLite image, with the version they are at (read
    /// together by the caller's read).
    func snapshot(tables: [String], instances now: Set<CompiledRules.Instance>) throws -> Data {
        try HubApply.snapshotImage(tables: tables, schema: storage.definitions) { copy in
            for table in tables {
                let columns = try storage.definitions.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
                var arguments: [BindingValue] = []
                guard let condition = predicate(table, now, into: &arguments) else { continue }
                let insert =
                    "INSERT INTO " + quoteIdentifier(table) + "(" + columns.map(quoteIdentifier).joined(separator: ", ")
                    + ") VALUES (" + columns.map { _ in "?" }.joined(separator: ", ") + ")"
                for values in try currentRows(table, columns: columns, where: condition, arguments) {
                    try copy.run(literal: SQLFragment(sql: insert, arguments: values))
                }
            }
        }
    }
}
