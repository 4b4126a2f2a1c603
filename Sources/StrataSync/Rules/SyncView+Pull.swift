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

    /// A pull past what one answer may carry: the replica takes a snapshot of its view instead.
    struct TooLarge: Error {}

    /// The answer to a pull after `after` for this view: one entry at `current` carrying the moves,
    /// none when nothing moved, or a request for a snapshot; and the view to record.
    func pull(
        after: Int64, current: Int64, chain: Int64?, request: SyncPullRequest,
        widths: [String: Int]?, limits: SyncLimits
    ) throws -> (SyncPullResponse, SyncViewRecord?) {
        let snapshotNeeded = (SyncPullResponse(entries: [], hubVersion: current, snapshotNeeded: true), SyncViewRecord?.none)
        var now = try instances()
        let claims = dataClaimValues()
        let previous: Set<CompiledRules.Instance>
        // The identity the view at the cursor was computed for: its claims then.
        var then = identity
        var thenClaims = claims
        var recorded: SyncViewRecord?
        let found = try storage.viewRecord(replica: request.replicaID, user: identity.user, atOrBefore: after)
        if after == 0, found == nil {
            // A new replica: nothing yet (a pull at version 0 may have recorded its view since).
            previous = []
        } else {
            guard let record = found, record.rules == rules.version, let decoded = try? Self.decodeInstances(record.instances) else {
                // A replica from before these rules (or this user): its rows are not a view the
                // hub can tell, so it starts over from a snapshot of its view.
                return snapshotNeeded
            }
            guard let claimsThen = decoded.claims ?? (rules.dataClaims.isEmpty ? ClaimValues() : nil) else {
                // Recorded before views kept their claims, under rules that read claims.
                return snapshotNeeded
            }
            // The replica applied another view than the one recorded at its cursor (an answer
            // that moved its view was lost, or dropped as stale after the hub recorded it): moves
            // from the record would leave it rows its rules no longer give it.
            if let applied = request.appliedView, applied != Self.viewToken(rules: record.rules, user: identity.user, record: record.instances) {
                return snapshotNeeded
            }
            previous = decoded.instances
            then = SyncIdentity(user: identity.user, claims: claimsThen.strings, listClaims: claimsThen.lists)
            thenClaims = claimsThen
            recorded = record
        }
        if let level = minimumPriority {
            // A phase by priority: the prioritized instances brought up to date, the others kept
            // as the replica holds them (those the view still has), for a later phase.
            now = instances(now, ofPriorityAtLeast: level).union(previous.intersection(now))
        }
        let claimsChanged = thenClaims != claims && !(recorded == nil && previous.isEmpty)
        let record = SyncViewRecord(version: current, rules: rules.version, instances: try Self.encodeInstances(now, claims: claims))
        let needsRecord = recorded == nil || previous != now || claimsChanged
        // The token of the record the hub holds after this answer: the new one, or the one found.
        let token = Self.viewToken(rules: rules.version, user: identity.user, record: (needsRecord ? record : recorded ?? record).instances)
        if after >= current && previous == now && !claimsChanged {
            return (SyncPullResponse(entries: [], hubVersion: current, view: token), needsRecord ? record : nil)
        }
        // A cursor so far behind that the moves would outweigh its view: a snapshot of the view.
        let cap = max(1, limits.maximumEntriesPerPull) * 100
        let (entries, rowsFound) = try entriesToRead(after: after, limit: cap + 1, tables: request.tables, instances: now.union(previous), then: then)
        if entries.count > cap { return snapshotNeeded }
        do {
            guard
                let changeset = try moves(
                    entries, rowsFound: rowsFound, request: request, now: now, previous: previous, then: then, claimsChanged: claimsChanged,
                    limits: limits)
            else { return snapshotNeeded }
            var data = changeset
            if let widths, !data.isEmpty {
                data = try Changeset(data: data).keepingLeadingColumns { widths[$0.lowercased()] }.data
            }
            let entry = SyncLogEntry(version: current, replicaID: "", sequence: 0, changeset: data, chain: chain)
            return (SyncPullResponse(entries: [entry], hubVersion: current, view: token), needsRecord ? record : nil)
        } catch is TooLarge {
            return snapshotNeeded
        }
    }

    /// Up to `limit` entries after `after` that can move a row of the view of `instances` (now
    /// and at the cursor, the claims of `then` and now) in `tables`: those filed under their
    /// routes, then every entry touching a row those touch (its whole history since the cursor).
    /// The whole log after `after` where the routes cannot tell: entries filed before these
    /// rules, a rule reading another table.
    func entriesToRead(
        after: Int64, limit: Int, tables: [String], instances: Set<CompiledRules.Instance>, then: SyncIdentity
    ) throws -> (entries: [SyncLogEntry], rows: RowsFound?) {
        let wholeLog = { (try storage.entries(after: after, limit: limit), RowsFound?.none) }
        guard readsLogRoutes, try HubSpace(storage: storage).readsRoutes(after: after, rules: rules.version) else { return try wholeLog() }
        var routes: Set<Data> = []
        var requested: Set<String> = []
        var wholeTables: Set<String> = []
        for table in tables {
            let lowered = table.lowercased()
            requested.insert(lowered)
            if !(rules.dataDependencies[lowered] ?? []).isEmpty { return try wholeLog() }
            for bucket in rules.buckets where bucket.data[lowered] != nil {
                guard let route = bucket.routes[lowered] else {
                    routes.insert(LogRoutes.table(lowered))
                    wholeTables.insert(lowered)
                    continue
                }
                routes.insert(LogRoutes.anyValue(lowered))
                switch route.reference {
                case .bucket(let index):
                    for instance in instances where instance.bucket == bucket.name && index < instance.values.count {
                        routes.formUnion(LogRoutes.column(lowered, route.column, value: instance.values[index].binding))
                    }
                case .claim(let name):
                    for reader in [identity, then] { routes.formUnion(LogRoutes.column(lowered, route.column, value: reader.value(of: name))) }
                }
            }
        }
        guard !routes.isEmpty else { return ([], nil) }
        let found = try storage.loggedVersions(after: after, routes: routes.sorted { $0.lexicographicallyPrecedes($1) }, limit: limit)
        guard found.complete else { return try wholeLog() }
        // Each row found under the view's values: every entry after the cursor that changes it.
        let histories = try storage.loggedVersions(after: after, routes: found.rows.sorted { $0.lexicographicallyPrecedes($1) }, limit: limit)
        guard histories.complete else { return try wholeLog() }
        let versions = Array(Set(found.versions).union(histories.versions).sorted().prefix(limit))
        return (try storage.entries(at: versions), RowsFound(rows: found.rows, wholeTables: wholeTables))
    }

    /// The moves from the view at the cursor (`previous` instances, `then`'s claims) to the view
    /// now, as a changeset; nil when the hub cannot tell them from the log (a table a data rule's
    /// subquery reads has changed since the cursor), so the replica takes a snapshot.
    /// - Throws: `TooLarge` past ``SyncLimits/maximumRowsPerPull`` rows.
    /// The rows a routed read found under a view's values (``LogRoutes/row(_:key:)``), and the
    /// tables it read whole (every row of theirs counts).
    struct RowsFound {
        var rows: Set<Data>
        var wholeTables: Set<String>

        func holds(_ table: String, key: [BindingValue]) -> Bool {
            wholeTables.contains(table) || rows.contains(LogRoutes.row(table, key: key))
        }
    }

    private func moves(
        _ entries: [SyncLogEntry], rowsFound: RowsFound?, request: SyncPullRequest, now: Set<CompiledRules.Instance>,
        previous: Set<CompiledRules.Instance>, then: SyncIdentity, claimsChanged: Bool, limits: SyncLimits
    ) throws -> Data? {
        var upserts: [RowKey: (columns: [String], values: [BindingValue])] = [:]
        var deletes: [RowKey: (columns: [String], values: [BindingValue])] = [:]
        let rowLimit = max(1, limits.maximumRowsPerPull)
        func checkSize() throws { if upserts.count + deletes.count > rowLimit { throw TooLarge() } }
        let tables = Dictionary(request.tables.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

        // Each changed row's state at the cursor, rebuilt from the oldest change after it.
        var before: [RowKey: [Int: BindingValue]] = [:]
        var existedBefore: [RowKey: Bool] = [:]
        var resolved: Set<RowKey> = []
        var order: [RowKey] = []
        var changedTables: Set<String> = []
        for entry in entries {
            try Changeset(data: entry.changeset).forEachChange { change in
                changedTables.insert(change.table.lowercased())
                guard let table = tables[change.table.lowercased()] else { return }
                if let rowsFound, !rowsFound.holds(change.table.lowercased(), key: change.primaryKey) { return }
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
            if existedBefore.count > rowLimit { throw TooLarge() }
        }
        // A data rule that reads another table (or its own in a subquery): its rows at the cursor
        // were in the view by that table's rows then, which the tables no longer hold.
        for table in tables.keys where !(rules.dataDependencies[table] ?? []).isDisjoint(with: changedTables) {
            return nil
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
            let inNow = try matchingInTable(table, keyColumns: keyColumns, keyIndexes: keyIndexes, rows: nowRows, conditions: conditions(table, now))
            let inThen = try matching(table, columns: columns, rows: thenRows, conditions: conditions(table, previous, identity: then))
            var visibleNow: Set<RowKey> = []
            for (index, key) in nowKeys.enumerated() where inNow.contains(index) {
                upserts[key] = (columns, nowRows[index])
                visibleNow.insert(key)
            }
            for (index, key) in thenKeys.enumerated() where inThen.contains(index) && !visibleNow.contains(key) {
                deletes[key] = (columns, thenRows[index])
            }
            try checkSize()
        }

        // The rows no change touched: those of the instances gained arrive and those of the
        // instances lost leave, unless another instance keeps them. When the claims the data rules
        // read changed, every instance's predicate may have: the view then and now are compared
        // whole (each row unchanged since the cursor, so the table holds it as it was then).
        let gained = claimsChanged ? now : now.subtracting(previous)
        let lost = claimsChanged ? previous : previous.subtracting(now)
        guard !gained.isEmpty || !lost.isEmpty else {
            return try Self.changeset(tables: request.tables, upserts: upserts, deletes: deletes, definitions: storage.definitions)
        }
        for table in request.tables {
            let columns = try storage.definitions.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
            let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
            let keyIndexes = keyColumns.compactMap { key in columns.firstIndex { $0.lowercased() == key.lowercased() } }
            func rowKey(_ values: [BindingValue]) -> RowKey {
                RowKey(table: table, key: keyIndexes.map { SyncValue(values[$0]) })
            }
            /// `candidates` (rows as the table holds them now) less those in the view of `instances`
            /// as `reader` reads it.
            func outside(_ candidates: [[BindingValue]], _ instances: Set<CompiledRules.Instance>, _ reader: SyncIdentity) throws -> [[BindingValue]] {
                let inside = try matchingInTable(
                    table, keyColumns: keyColumns, keyIndexes: keyIndexes, rows: candidates, conditions: conditions(table, instances, identity: reader))
                return candidates.enumerated().filter { !inside.contains($0.offset) }.map(\.element)
            }
            let arriving = try currentRows(table, columns: columns, keyIndexes: keyIndexes, conditions: conditions(table, gained))
                .filter { existedBefore[rowKey($0)] == nil }
            if upserts.count + arriving.count > rowLimit * 2 { throw TooLarge() }
            // Rows the replica holds already (another instance had them) are sent again only when
            // the view was compared whole; a write of the same values changes nothing there.
            for values in claimsChanged ? try outside(arriving, previous, then) : arriving {
                upserts[rowKey(values)] = (columns, values)
            }
            try checkSize()
            let leaving = try currentRows(table, columns: columns, keyIndexes: keyIndexes, conditions: conditions(table, lost, identity: then))
                .filter { existedBefore[rowKey($0)] == nil }
            if deletes.count + leaving.count > rowLimit * 2 { throw TooLarge() }
            for values in try outside(leaving, now, identity) {
                deletes[rowKey(values)] = (columns, values)
            }
            try checkSize()
        }
        return try Self.changeset(tables: request.tables, upserts: upserts, deletes: deletes, definitions: storage.definitions)
    }

    /// Which of `rows`, each as `table` holds it now, satisfy any of `conditions`: asked of the
    /// table itself by the rows' keys, so each value is compared as the store holds it (a
    /// PostgreSQL NUMERIC with all its digits, not as SQLite would round it).
    func matchingInTable(
        _ table: String, keyColumns: [String], keyIndexes: [Int], rows: [[BindingValue]], conditions: [RuleCondition]
    ) throws -> Set<Int> {
        guard !rows.isEmpty, !conditions.isEmpty else { return [] }
        var found: Set<[SyncValue]> = []
        for condition in conditions {
            // Each group's condition rendered once, the keys bound after its values.
            var values: [BindingValue] = []
            guard let sql = condition(&values) else { continue }
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(rows.count, start + 500)]
                start += chunk.count
                var arguments = values
                let keys = keyCondition(keyColumns, chunk.map { row in keyIndexes.map { row[$0] } }, into: &arguments)
                for key in try storage.ruleTableRows(table, columns: keyColumns, where: "(" + sql + ") AND (" + keys + ")", arguments) {
                    found.insert(key.map { SyncValue($0) })
                }
            }
        }
        var matched: Set<Int> = []
        for (index, row) in rows.enumerated() where found.contains(keyIndexes.map { SyncValue(row[$0]) }) { matched.insert(index) }
        return matched
    }

    /// A changeset that deletes `deletes` (as the replica holds them) and writes `upserts` whole:
    /// recorded by a session on an empty copy of the tables.
    static func changeset(
        tables: [String], upserts: [RowKey: (columns: [String], values: [BindingValue])],
        deletes: [RowKey: (columns: [String], values: [BindingValue])], definitions: Connection
    ) throws -> Data {
        guard !upserts.isEmpty || !deletes.isEmpty else { return Data() }
        let copy = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
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
    /// How many rows of `tables` the instances `now` give (each row once, whichever instances
    /// hold it): what a replica's progress counts towards.
    func countRows(tables: [String], instances now: Set<CompiledRules.Instance>) throws -> Int {
        var count = 0
        for table in tables {
            let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
            count += try currentRows(table, columns: keyColumns, keyIndexes: Array(keyColumns.indices), conditions: conditions(table, now)).count
        }
        return count
    }

    func snapshot(tables: [String], instances now: Set<CompiledRules.Instance>) throws -> Data {
        try HubApply.snapshotImage(tables: tables, schema: storage.definitions) { copy in
            for table in tables {
                let columns = try storage.definitions.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
                let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: storage.definitions)
                let keyIndexes = keyColumns.compactMap { key in columns.firstIndex { $0.lowercased() == key.lowercased() } }
                let insert =
                    "INSERT INTO " + quoteIdentifier(table) + "(" + columns.map(quoteIdentifier).joined(separator: ", ")
                    + ") VALUES (" + columns.map { _ in "?" }.joined(separator: ", ") + ")"
                for values in try currentRows(table, columns: columns, keyIndexes: keyIndexes, conditions: conditions(table, now)) {
                    try copy.run(literal: SQLFragment(sql: insert, arguments: values))
                }
            }
        }
    }
}
