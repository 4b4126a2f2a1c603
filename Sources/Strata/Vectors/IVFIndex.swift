import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// An IVF (inverted file) index over a float32 vector column, kept in ordinary SQLite tables so
// it is transactional, crash-safe, dumpable and syncable like the rest:
//   <name>_config     the table, column, metric, dimension and list count (one row)
//   <name>_centroids  one k-means centroid per list
//   <name>_entries    each list in chunks of up to 256 entries: (list, rowids BLOB, codes BLOB),
//                     indexed by list, so a probed list is a few rows read
//   <name>_pending    rows written, moved or deleted since the last update
// Triggers on the table use plain SQL only (no function of ours), so any connection or tool can
// keep writing the table: a write queues its row in `_pending`, a search ranks pending rows
// exactly and skips their filed entries, and `updateIVFIndex` files them into their lists.
// Entries name rows by their INTEGER PRIMARY KEY, or, for a table keyed otherwise, by the ids of
//   <name>_keys       a key map (one id per key), since VACUUM and reloads may renumber rowids.

/// An IVF index over a table's `FloatVector` column (see ``Connection/createIVFIndex(_:on:column:options:)``).
public struct IVFIndex: Sendable, Hashable {
    /// The index's name, the prefix of its tables and triggers.
    public let name: String
    /// The indexed table.
    public let table: String
    /// The indexed column: float32 vector BLOBs in sqlite-vec's layout.
    public let column: String
    /// The distance searches rank by.
    public let metric: VectorMetric
    /// The vectors' dimension; the triggers refuse a vector of another one.
    public let dimensions: Int
    /// How many lists (k-means centroids) the vectors are filed in.
    public let lists: Int
    /// How the filed vectors are stored and first compared; the best candidates are then
    /// ranked again by their float32 vectors in the table.
    public let quantization: VectorQuantization
    /// The table's key column when its rowids are not its own (no `INTEGER PRIMARY KEY`, a
    /// TEXT key as synced tables have): the index then files rows under the ids a key map,
    /// `<name>_keys`, keeps per key, which `VACUUM` and reloads leave alone. nil when the table
    /// has an `INTEGER PRIMARY KEY`, whose values are its rowids.
    public let key: String?
    /// The name that reads the table's rowid: its `INTEGER PRIMARY KEY` column, else the first
    /// of `rowid`, `_rowid_` and `oid` no column of the table takes (a column named `rowid`
    /// hides the rowid from that name).
    let rowIDColumn: String
}

/// How an IVF index stores the vectors it files.
public enum VectorQuantization: String, Sendable, Hashable, CaseIterable {
    /// float32, as in the table: distances are exact within the probed lists.
    case none
    /// One signed byte per dimension and a scale (``Int8Vector``): a quarter of the bytes read;
    /// candidates are rescored against the float32 vectors.
    case int8
    /// One bit per dimension (``BitVector``), compared by Hamming distance: a thirty-second of the
    /// bytes; candidates are rescored against the float32 vectors.
    case bit
}

/// How an IVF index is built.
public struct IVFIndexOptions: Sendable, Hashable {
    /// The distance searches rank by.
    public var metric: VectorMetric
    /// How many lists; nil for √(vectors), at least 1.
    public var lists: Int?
    /// How many vectors k-means trains on; nil for 64 per list (all vectors when there are fewer).
    public var trainingSampleSize: Int?
    /// k-means rounds.
    public var iterations: Int
    /// The seed of the sample and of the first centroids, so a build is reproducible.
    public var seed: UInt64
    /// How filed vectors are stored: `.int8` or `.bit` for quantized search with rescoring
    /// (with `lists: 1`, a flat quantized index).
    public var quantization: VectorQuantization

    /// Options for an IVF index.
    public init(
        metric: VectorMetric = .l2, lists: Int? = nil, trainingSampleSize: Int? = nil, iterations: Int = 10, seed: UInt64 = 0x5EED,
        quantization: VectorQuantization = .none
    ) {
        self.quantization = quantization
        self.metric = metric
        self.lists = lists
        self.trainingSampleSize = trainingSampleSize
        self.iterations = iterations
        self.seed = seed
    }
}

/// Why an IVF index could not be built, found or searched.
public enum VectorIndexError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No IVF index of this name in the main schema.
    case noSuchIndex(String)
    /// An option out of range (named with its value).
    case invalidOption(String)
    /// The column holds no vector to learn lists from.
    case noVectors(table: String, column: String)
    /// An index built by an earlier Strata, which filed one row per vector: drop it and create it
    /// again (its lists are now kept in chunks).
    case outdatedLayout(String)
    /// Nothing in the table names a row for good: it has neither an `INTEGER PRIMARY KEY` nor a
    /// one-column `PRIMARY KEY` to map (`VACUUM` may renumber its rowids, and the lists would
    /// name other rows); or it is a view, a virtual table or a `WITHOUT ROWID` table.
    case unstableRowIDs(table: String)
    /// The indexed column is no longer in the table (renamed or dropped): drop the index and
    /// create it again.
    case missingColumn(index: String, table: String, column: String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .noSuchIndex(let name): return "No IVF index named \(name)"
        case .invalidOption(let detail): return "Invalid IVF index option: \(detail)"
        case .noVectors(let table, let column): return "\(table).\(column) holds no vector to build an IVF index from"
        case .outdatedLayout(let name):
            return "The IVF index \(name) was built by an earlier Strata (one row per vector); drop it with dropIVFIndex and create it again"
        case .unstableRowIDs(let table):
            return
                "An IVF index files rows under their INTEGER PRIMARY KEY or the ids it maps a one-column PRIMARY KEY to, and \(table) has neither (or is a view, a virtual table or a WITHOUT ROWID table): VACUUM may renumber its rows"
        case .missingColumn(let index, let table, let column):
            return "The IVF index \(index) indexes \(table).\(column), which is no longer there; drop it with dropIVFIndex and create it again"
        }
    }
}

extension IVFIndex {
    var configTable: String { name + "_config" }
    var centroidsTable: String { name + "_centroids" }
    var entriesTable: String { name + "_entries" }
    var pendingTable: String { name + "_pending" }
    var keyMapTable: String { name + "_keys" }
    static let triggerSuffixes = ["ai", "au", "ad"]

    /// The key map of a keyed index (see ``key``), its key declared with `collation`.
    func keyMap(collation: String? = nil) -> KeyMapSQL? {
        key.map { KeyMapSQL(map: keyMapTable, idColumn: "id", table: table, key: $0, collation: collation) }
    }

    /// The pending rows joined to the table (and map), pending first: SQLite would otherwise
    /// scan the whole table and look each row up in the (mostly empty) pending table.
    var pendingSource: SQLFragment {
        let pending: SQLFragment = "main.\(identifier: pendingTable) AS p"
        guard let key else { return pending + " CROSS JOIN main.\(identifier: table) AS t ON t.\(identifier: rowIDColumn) = p.\"row\"" }
        return pending
            + " CROSS JOIN main.\(identifier: keyMapTable) AS m ON m.id = p.\"row\" CROSS JOIN main.\(identifier: table) AS t ON m.\"key\" = t.\(identifier: key)"
    }

    /// The table as `t`, joined to its key map as `m` when keyed: what ``rowID`` is read from.
    var rowSource: SQLFragment {
        guard let key else { return "main.\(identifier: table) AS t" }
        return "main.\(identifier: table) AS t JOIN main.\(identifier: keyMapTable) AS m ON m.\"key\" = t.\(identifier: key)"
    }

    /// The id the index files a row of ``rowSource`` under: its rowid, or its key's mapped id.
    var rowID: SQLFragment { key == nil ? tableRowID : "m.id" }

    /// The table's own rowid, as `t`'s column.
    var tableRowID: SQLFragment { "t.\(identifier: rowIDColumn)" }

    /// The tables and triggers, in creation order.
    var createStatements: [String] {
        // Created in main by name: a TEMP table of the same name would otherwise take them (the
        // triggers' bodies are bound to main, their own schema, by SQLite).
        let config = "main." + quoteIdentifier(configTable), centroids = "main." + quoteIdentifier(centroidsTable)
        let entries = "main." + quoteIdentifier(entriesTable), pending = quoteIdentifier(pendingTable)
        let source = quoteIdentifier(table), vector = quoteIdentifier(column)
        let bytes = dimensions * 4
        // A vector of another dimension would be unsearchable: refused at write time, in SQL.
        let refuse =
            "SELECT RAISE(ABORT, \(quoteStringLiteral("\(name): \(table).\(column) takes float32 vectors of \(dimensions) dimensions (\(bytes) bytes)")))"
            + " WHERE new.\(vector) IS NOT NULL AND (typeof(new.\(vector)) != 'blob' OR length(new.\(vector)) != \(bytes));"
        // Guarded inserts, no conflict clause: an outer statement's would override a trigger's.
        // A row queued is ranked from the table itself and its filed entry (if any) skipped until
        // `updateIVFIndex` files it again: entries live in chunks, which a trigger cannot edit.
        func queue(_ row: String) -> String {
            "INSERT INTO \(pending)(\"row\") SELECT \(row) WHERE NOT EXISTS (SELECT 1 FROM \(pending) WHERE \"row\" = \(row));"
        }
        func trigger(_ suffix: String, _ event: String, _ body: String, when: String = "") -> String {
            "CREATE TRIGGER main." + quoteIdentifier(name + "_" + suffix) + " AFTER " + event + " ON " + source + when + " BEGIN " + body + " END"
        }
        let inserted: String, updated: String, deleted: String, changed: String
        if let keyMap = keyMap() {
            // Queued by mapped id; a row whose key is NULL is never mapped, so never indexed.
            func queueMapped(_ row: String) -> String {
                "INSERT INTO \(pending)(\"row\") SELECT m.id FROM \(keyMap.mapTable) AS m WHERE m.\"key\" = \(row).\(keyMap.key)"
                    + " AND NOT EXISTS (SELECT 1 FROM \(pending) WHERE \"row\" = m.id);"
            }
            // A stale entry the re-key drops may have filed entries: queued, they are skipped
            // and, at the next update, removed.
            let queueStale =
                "INSERT INTO \(pending)(\"row\") SELECT s.id FROM (\(keyMap.staleNewKey(thenDelete: false))) AS s"
                + " WHERE NOT EXISTS (SELECT 1 FROM \(pending) WHERE \"row\" = s.id);"
            inserted = keyMap.addNewKey + " " + queueMapped("new")
            updated = queueMapped("old") + " " + queueStale + " " + keyMap.rekey + " " + keyMap.addNewKey + " " + queueMapped("new")
            deleted = queueMapped("old") + " " + keyMap.dropOldKey
            changed = " WHEN new.\(keyMap.key) IS NOT old.\(keyMap.key) COLLATE BINARY OR new.\(vector) IS NOT old.\(vector)"
        } else {
            let rowID = quoteIdentifier(rowIDColumn)
            inserted = queue("new." + rowID)
            updated = queue("old." + rowID) + " " + queue("new." + rowID)
            deleted = queue("old." + rowID)
            changed = " WHEN new.\(rowID) IS NOT old.\(rowID) OR new.\(vector) IS NOT old.\(vector)"
        }
        // Only a change of the vector or the row's id concerns the index: other updates keep its lists.
        return [
            "CREATE TABLE \(config)(id INTEGER PRIMARY KEY CHECK (id = 1), \"table\" TEXT NOT NULL, \"column\" TEXT NOT NULL, metric TEXT NOT NULL, dimensions INTEGER NOT NULL, lists INTEGER NOT NULL, quantization TEXT NOT NULL, \"key\" TEXT, generation INTEGER NOT NULL DEFAULT 0)",
            "CREATE TABLE \(centroids)(list INTEGER PRIMARY KEY, centroid BLOB NOT NULL)",
            // The rowids before the codes: an update reads the rowids without the codes' pages.
            "CREATE TABLE \(entries)(list INTEGER NOT NULL, \"rows\" BLOB NOT NULL, codes BLOB NOT NULL)",
            "CREATE INDEX main.\(quoteIdentifier(entriesTable + "_list")) ON \(quoteIdentifier(entriesTable))(list)",
            "CREATE TABLE main.\(pending)(\"row\" INTEGER PRIMARY KEY)",
            // A REPLACE removes the row it replaces without its delete trigger (unless
            // recursive_triggers is on): queuing the new rowid skips such a row's entry too.
            trigger("ai", "INSERT", refuse + " " + inserted),
            trigger("au", "UPDATE", refuse + " " + updated, when: changed),
            trigger("ad", "DELETE", deleted)
        ]
    }

    /// A keyed index's map, created and filled before the vectors are read under its ids.
    func keyMapStatements(collation: String?) -> [String] {
        keyMap(collation: collation).map { [$0.createTable(schema: "main"), $0.fill(schema: "main")] } ?? []
    }

    /// What removes the index: triggers first, so no write meets half an index. The key map
    /// only when the index has one: a table of that name is otherwise someone else's.
    var dropStatements: [String] {
        Self.triggerSuffixes.map { "DROP TRIGGER IF EXISTS main." + quoteIdentifier(name + "_" + $0) }
            + ([configTable, centroidsTable, entriesTable, pendingTable] + (key == nil ? [] : [keyMapTable]))
            .map { "DROP TABLE IF EXISTS main." + quoteIdentifier($0) }
    }
}

extension Connection {
    /// Builds an IVF index over `table.column`: k-means centroids learned from a sample of the
    /// vectors, every vector filed under its nearest centroid, and triggers that keep the index
    /// in step with later writes (see ``searchIVFIndex(_:nearest:k:nprobe:rescoring:among:)``).
    ///
    /// ```swift
    /// let index = try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(metric: .cosine))
    /// let hits = try db.searchIVFIndex("doc_ivf", nearest: query, k: 10, nprobe: 8)   // [(rowID:, distance:)]
    /// ```
    /// Everything happens in one savepoint: a failure leaves the database as it was.
    /// - Throws: ``VectorIndexError`` (options out of range, no vector), ``VectorError`` (a vector
    ///   of another dimension than the first, a malformed BLOB), `SQLiteError` (a name taken).
    @discardableResult
    public func createIVFIndex(_ name: String, on table: String, column: String, options: IVFIndexOptions = IVFIndexOptions()) throws -> IVFIndex {
        guard options.iterations >= 0, options.iterations <= 1_000 else {
            throw VectorIndexError.invalidOption("iterations \(options.iterations) is not within 0…1000")
        }
        if let lists = options.lists, lists < 1 { throw VectorIndexError.invalidOption("lists \(lists) is below 1") }
        if let sample = options.trainingSampleSize, sample < 1 { throw VectorIndexError.invalidOption("trainingSampleSize \(sample) is below 1") }
        let key = try ivfKey(of: table)
        let rowIDColumn = try ivfRowIDColumn(of: table, keyed: key != nil)
        return try strataSavepoint(named: "strata_ivf") {
            // The map first (when keyed): the vectors are read under its ids.
            let draft = IVFIndex(
                name: name, table: table, column: column, metric: options.metric, dimensions: 0, lists: 0,
                quantization: options.quantization, key: key?.name, rowIDColumn: rowIDColumn)
            for statement in draft.keyMapStatements(collation: key?.collation) { try execute(statement) }
            let vectors = try IVFBuilder.vectors(
                literal: "SELECT \(draft.rowID), t.\(identifier: column) FROM \(draft.rowSource) WHERE t.\(identifier: column) IS NOT NULL ORDER BY 1",
                expecting: nil, self)
            guard let dimensions = vectors.dimensions, vectors.count > 0 else { throw VectorIndexError.noVectors(table: table, column: column) }
            let lists = min(options.lists ?? max(1, Int(Double(vectors.count).squareRoot())), vectors.count)
            let index = IVFIndex(
                name: name, table: table, column: column, metric: options.metric, dimensions: dimensions, lists: lists,
                quantization: options.quantization, key: key?.name, rowIDColumn: rowIDColumn)
            for statement in index.createStatements { try execute(statement) }
            try run(
                literal:
                    "INSERT INTO main.\(identifier: index.configTable)(id, \"table\", \"column\", metric, dimensions, lists, quantization, \"key\") VALUES (1, \(table), \(column), \(options.metric.rawValue), \(Int64(dimensions)), \(Int64(lists)), \(options.quantization.rawValue), \(key?.name))"
            )
            var random = SeededGenerator(state: options.seed)
            let centroids = IVFBuilder.train(
                vectors, lists: lists, metric: options.metric,
                sampleSize: options.trainingSampleSize ?? lists * 64,
                iterations: options.iterations, random: &random)
            for list in 0..<lists {
                let centroid = Data(centroids[list * dimensions..<(list + 1) * dimensions].withUnsafeBytes { Array($0) })
                try run(literal: "INSERT INTO main.\(identifier: index.centroidsTable)(list, centroid) VALUES (\(Int64(list)), \(centroid))")
            }
            try IVFBuilder.file(vectors, into: index, centroids: centroids, self)
            return index
        }
    }

    /// How an index over `table` names its rows: nil for by rowid (an `INTEGER PRIMARY KEY`,
    /// or a table not there, which the first read reports), else the one-column key to map and
    /// its collation (nil for BINARY).
    /// - Throws: ``VectorIndexError/unstableRowIDs(table:)`` for anything else.
    func ivfKey(of table: String) throws -> (name: String, collation: String?)? {
        guard let entry = try schemaReader.table(named: table, includingViews: true),
            try schemaReader.rowIDAliasColumn(ofTable: table) == nil
        else { return nil }
        guard entry.type == "table", !entry.isVirtualTable,
            !tableOptionsAreWithoutRowID(Connection.tableOptions(ofCreateTableSQL: entry.sql ?? ""))
        else {
            throw VectorIndexError.unstableRowIDs(table: table)
        }
        let keys = try schemaReader.columns(ofTable: entry.name).filter { $0.primaryKeyIndex > 0 }
        guard keys.count == 1 else { throw VectorIndexError.unstableRowIDs(table: table) }
        let collation = try schemaReader.keyIndexCollations(ofTable: entry.name, column: keys[0].name).first
        return (keys[0].name, collation.flatMap { sameIdentifier($0, "BINARY") ? nil : $0 })
    }

    /// The name that reads `table`'s rowid (see ``IVFIndex/rowIDColumn``).
    /// - Throws: ``VectorIndexError/unstableRowIDs(table:)`` when columns take all three names.
    func ivfRowIDColumn(of table: String, keyed: Bool) throws -> String {
        if !keyed, let alias = try schemaReader.rowIDAliasColumn(ofTable: table) { return alias.name }
        let names = try schemaReader.columns(ofTable: table).map(\.name)
        guard let free = ["rowid", "_rowid_", "oid"].first(where: { name in !names.contains { sameIdentifier($0, name) } }) else {
            throw VectorIndexError.unstableRowIDs(table: table)
        }
        return free
    }

    /// The IVF index named `name`, as its configuration table records it.
    /// A table renamed since (`ALTER TABLE … RENAME TO`) is followed: SQLite moves the index's
    /// triggers with it.
    /// - Throws: ``VectorIndexError/noSuchIndex(_:)``; ``VectorIndexError/outdatedLayout(_:)`` for
    ///   an index an earlier Strata built (drop it and create it again);
    ///   ``VectorIndexError/missingColumn(index:table:column:)``; `SQLiteError`.
    public func ivfIndex(named name: String) throws -> IVFIndex {
        let index = try ivfIndexConfiguration(named: name)
        guard try schemaReader.columns(ofTable: index.entriesTable).contains(where: { sameIdentifier($0.name, "codes") }) else {
            throw VectorIndexError.outdatedLayout(name)
        }
        let columns = try schemaReader.columns(ofTable: index.table)
        for column in [index.column] + (index.key.map { [$0] } ?? []) where !columns.contains(where: { sameIdentifier($0.name, column) }) {
            throw VectorIndexError.missingColumn(index: name, table: index.table, column: column)
        }
        return index
    }

    /// The index's configuration, whatever the layout of its lists (so an outdated one can be dropped).
    func ivfIndexConfiguration(named name: String) throws -> IVFIndex {
        // Another `<name>_config` (an FTS5 table's shadow table) is no IVF index.
        guard try schemaReader.entry(named: name + "_config", types: ["table"]) != nil,
            try schemaReader.columns(ofTable: name + "_config").contains(where: { sameIdentifier($0.name, "quantization") }),
            let row: Row = try query(
                literal: "SELECT \"table\", \"column\", metric, dimensions, lists, quantization FROM main.\(identifier: name + "_config") WHERE id = 1"),
            let table: String = row.value(at: 0), let column: String = row.value(at: 1),
            let metricName: String = row.value(at: 2), let metric = VectorMetric(rawValue: metricName),
            let dimensions: Int = row.value(at: 3), let lists: Int = row.value(at: 4), dimensions > 0, lists > 0,
            let quantizationName: String = row.value(at: 5), let quantization = VectorQuantization(rawValue: quantizationName)
        else { throw VectorIndexError.noSuchIndex(name) }
        // Indexes built before keyed tables were mapped have no key column: they are by rowid.
        let keyed = try schemaReader.columns(ofTable: name + "_config").contains(where: { sameIdentifier($0.name, "key") })
        let key: String? = keyed ? try query(literal: "SELECT \"key\" FROM main.\(identifier: name + "_config") WHERE id = 1") : nil
        // The insert trigger is on the table under its name now, whatever `_config` recorded.
        let current = try schemaReader.entry(named: name + "_ai", types: ["trigger"])?.tableName ?? table
        return IVFIndex(
            name: name, table: current, column: column, metric: metric, dimensions: dimensions, lists: lists, quantization: quantization,
            key: key, rowIDColumn: try ivfRowIDColumn(of: current, keyed: key != nil))
    }

    /// Files the rows written since the last update under their nearest centroids (the
    /// centroids stay as built; drop and create the index to learn them again). Returns how
    /// many rows were filed. Searches are exact for pending rows, so this only makes them cheaper.
    /// - Throws: ``VectorIndexError/noSuchIndex(_:)``; `SQLiteError`.
    @discardableResult
    public func updateIVFIndex(_ name: String) throws -> Int {
        try strataSavepoint(named: "strata_ivf") {
            let index = try ivfIndex(named: name)
            let centroids = try IVFBuilder.centroids(of: index, self)
            let pendingRows: SQLFragment = "SELECT \(index.rowID), t.\(identifier: index.column) FROM \(index.pendingSource)"
            let vectors = try IVFBuilder.vectors(literal: pendingRows, expecting: index.dimensions, self)
            try IVFBuilder.unfile(try IVFBuilder.pendingRows(of: index, self), from: index, self)
            try IVFBuilder.file(vectors, into: index, centroids: centroids, self)
            try IVFBuilder.compact(index, self)
            try run(literal: "DELETE FROM main.\(identifier: index.pendingTable)")
            // Chunks were rewritten: a parallel search whose reads straddle this commit notices.
            if try !hasIVFGeneration(index) {
                try run(literal: "ALTER TABLE main.\(identifier: index.configTable) ADD COLUMN generation INTEGER NOT NULL DEFAULT 0")
            }
            try run(literal: "UPDATE main.\(identifier: index.configTable) SET generation = generation + 1 WHERE id = 1")
            return vectors.count
        }
    }

    /// Removes an IVF index: its triggers and tables.
    /// - Throws: ``VectorIndexError/noSuchIndex(_:)``; `SQLiteError`.
    public func dropIVFIndex(_ name: String) throws {
        let index = try ivfIndexConfiguration(named: name)
        try strataSavepoint(named: "strata_ivf") {
            for statement in index.dropStatements { try execute(statement) }
        }
    }

    /// The `k` rows nearest `vector` among the `nprobe` lists whose centroids are nearest it,
    /// and every row written since the last ``updateIVFIndex(_:)``: approximate (a near row in
    /// an unprobed list is missed; more lists probed, better recall, slower), nearest first, ties
    /// by rowid (by the key map's ids over a keyed table). `among`, a `SELECT` of rowids, restricts the rows ranked. In a quantized index
    /// the `k × rescoring` best candidates by their codes are ranked again by their float32
    /// vectors, so the distances returned are exact. A stored vector with a NaN or an infinity
    /// has no distance: the index never files it and searches pass over it (the triggers refuse
    /// a vector of another size, but looking inside each one would slow every write; an exact
    /// scan of the table throws ``VectorError/nonFinite(index:)`` for it instead).
    /// - Throws: ``VectorIndexError``; ``VectorError/wrongDimension(expected:actual:)`` for a
    ///   query vector of another dimension; `SQLiteError`.
    public func searchIVFIndex(
        _ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int = 8,
        among rowIDs: SQLFragment? = nil
    ) throws -> [(rowID: Int64, distance: Double)] {
        // Its statements read one snapshot: a write committed between them cannot show a row twice.
        try strataSavepoint(named: "strata_ivf_search") {
            try searchIVFIndexInSnapshot(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring, among: rowIDs)
        }
    }

    /// ``searchIVFIndex(_:nearest:k:nprobe:rescoring:among:)`` for a caller already reading one
    /// snapshot (a table-valued function inside its statement).
    func searchIVFIndexInSnapshot(
        _ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int = 8,
        among rowIDs: SQLFragment? = nil
    ) throws -> [(rowID: Int64, distance: Double)] {
        guard let probe = try ivfProbe(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring) else { return [] }
        // Pending rows are ranked from the table itself, and their filed entries skipped.
        let skipped = try IVFBuilder.pendingRows(of: probe.index, self)
        let allowed = try rowIDs.map { try IVFBuilder.rowIDs(selectedBy: $0, in: probe.index, self) }
        let pendingBest = try rankPendingRows(probe, among: rowIDs)
        // Entries of rows gone without their delete trigger (a REPLACE through another UNIQUE
        // column) are skipped once found, and the lists ranked again: rare, so checked on the
        // winners only.
        var gone = Set<Int64>()
        while true {
            let candidates = try rankFiledEntries(probe, chunks: nil, excluding: skipped, gone, allowed: allowed)
            let settled = try settle(probe, candidates: candidates, pendingBest: pendingBest)
            if settled.missing.isEmpty { return try IVFBuilder.tableRowIDs(settled.ranked, probe.index, self) }
            gone.formUnion(settled.missing)
        }
    }

    /// What a search reads before any list: the index, its probed lists, how many candidates a
    /// scan keeps; nil for `k: 0`.
    func ivfProbe(_ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int) throws -> IVFProbe? {
        guard k >= 0 else { throw VectorIndexError.invalidOption("k \(k) is below 0") }
        guard nprobe >= 1 else { throw VectorIndexError.invalidOption("nprobe \(nprobe) is below 1") }
        guard rescoring >= 1 else { throw VectorIndexError.invalidOption("rescoring \(rescoring) is below 1") }
        let index = try ivfIndex(named: name)
        guard vector.dimensions == index.dimensions else {
            throw VectorError.wrongDimension(expected: index.dimensions, actual: vector.dimensions)
        }
        guard k > 0 else { return nil }
        let centroids = try IVFBuilder.centroids(of: index, self)
        let probed = vector.values.withUnsafeBytes { query in
            IVFBuilder.nearestLists(query.baseAddress!, centroids: centroids, dimensions: index.dimensions, metric: index.metric, count: nprobe)
        }
        let capacity = index.quantization == .none ? k : (k > Int.max / rescoring ? Int.max : k * rescoring)
        return IVFProbe(index: index, vector: vector, lists: probed.map { Int64($0) }, k: k, capacity: capacity)
    }

    /// The best pending rows (written since the last update), ranked exactly from the table.
    func rankPendingRows(_ probe: IVFProbe, among rowIDs: SQLFragment?) throws -> VectorTopK {
        let index = probe.index
        let restriction: SQLFragment = rowIDs.map { " AND \(index.tableRowID) IN (\($0))" } ?? ""
        let pending: SQLFragment =
            "SELECT \(index.rowID), t.\(identifier: index.column) FROM \(index.pendingSource) WHERE t.\(identifier: index.column) IS NOT NULL" + restriction
        var best = VectorTopK(capacity: probe.k)
        try IVFBuilder.scanFloat(pending, probe.vector, index, self) { best.offer(distance: $0, rowID: $1) }
        return best
    }

    /// The best `probe.capacity` filed entries of the probed lists (of the chunks whose rowids
    /// are in `chunks`, when given), by exact distance or, in a quantized index, by their codes;
    /// rows in `excluded` or `gone`, or not `allowed`, are passed over.
    func rankFiledEntries(
        _ probe: IVFProbe, chunks: ClosedRange<Int64>?, excluding excluded: Set<Int64>, _ gone: Set<Int64> = [],
        allowed: Set<Int64>?
    ) throws -> VectorTopK {
        let index = probe.index
        let lists = probe.lists.map { SQLFragment.value($0) }.joined(separator: ", ")
        let span: SQLFragment = chunks.map { " AND rowid BETWEEN \($0.lowerBound) AND \($0.upperBound)" } ?? ""
        let filed: SQLFragment = "SELECT \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE list IN (\(lists))" + span
        var best = VectorTopK(capacity: probe.capacity)
        // Most searches skip nothing: then no row is hashed.
        let filtering = !excluded.isEmpty || !gone.isEmpty || allowed != nil
        func counts(_ row: Int64) -> Bool {
            !filtering || (!excluded.contains(row) && !gone.contains(row) && allowed?.contains(row) != false)
        }
        if index.quantization == .none {
            let prepared = PreparedVectorTarget(probe.vector, metric: index.metric)
            try IVFBuilder.scanChunks(filed, index, self) { row, code in
                if counts(row) { best.offer(distance: try prepared.distance(to: code), rowID: row) }
            }
        } else {
            try IVFBuilder.scanCodes(filed, probe.vector, index, self) { distance, row in
                if counts(row) { best.offer(distance: distance, rowID: row) }
            }
        }
        return best
    }

    /// The `k` winners from the filed candidates and the pending rows' best, with the rows among
    /// them the table no longer has (a REPLACE through another UNIQUE column removes a row
    /// without its delete trigger): the caller ranks again without those. A quantized index's
    /// candidates are ranked again by their float32 vectors, so every distance returned is exact.
    func settle(
        _ probe: IVFProbe, candidates: VectorTopK, pendingBest: VectorTopK
    ) throws
        -> (ranked: [(rowID: Int64, distance: Double)], missing: [Int64])
    {
        let index = probe.index
        var best = pendingBest
        let candidateRows = candidates.nearestFirst.map(\.rowID)
        if index.quantization == .none {
            best.merge(candidates.nearestFirst)
            let winners = best.nearestFirst
            let present = try IVFBuilder.existingRows(winners.map(\.rowID), in: index, self)
            return (winners.map { ($0.rowID, $0.distance) }, winners.map(\.rowID).filter { !present.contains($0) })
        }
        // A gone row has no vector left to read, so it drops out here, and took the place of a
        // candidate that has one.
        var rescoredRows = Set<Int64>()
        for start in stride(from: 0, to: candidateRows.count, by: 500) {
            let slice = candidateRows[start..<min(start + 500, candidateRows.count)].map { SQLFragment.value($0) }.joined(separator: ", ")
            let rescored: SQLFragment =
                "SELECT \(index.rowID), t.\(identifier: index.column) FROM \(index.rowSource) WHERE \(index.rowID) IN (\(slice)) AND t.\(identifier: index.column) IS NOT NULL"
            try IVFBuilder.scanFloat(rescored, probe.vector, index, self) { distance, row in
                best.offer(distance: distance, rowID: row)
                rescoredRows.insert(row)
            }
        }
        return (best.nearestFirst.map { ($0.rowID, $0.distance) }, candidateRows.filter { !rescoredRows.contains($0) })
    }

    /// How many times ``updateIVFIndex(_:)`` has rewritten the index's chunks (0 for an index
    /// built before it counted, until its next update).
    func ivfGeneration(_ index: IVFIndex) throws -> Int64 {
        guard try hasIVFGeneration(index) else { return 0 }
        return try query(literal: "SELECT generation FROM main.\(identifier: index.configTable) WHERE id = 1") ?? 0
    }

    func hasIVFGeneration(_ index: IVFIndex) throws -> Bool {
        try schemaReader.columns(ofTable: index.configTable).contains { sameIdentifier($0.name, "generation") }
    }

    /// The lowest and highest rowid of the index's chunks, or nil when it has none: two seeks.
    func ivfChunkBounds(_ index: IVFIndex) throws -> ClosedRange<Int64>? {
        let entries = SQLFragment.identifier(index.entriesTable)
        let rows: [ClosedRange<Int64>?] = try query(literal: "SELECT (SELECT min(rowid) FROM main.\(entries)), (SELECT max(rowid) FROM main.\(entries))") {
            row in
            let handle = row.statementHandle
            guard sqlite3_column_type(handle, 0) != SQLITE_NULL else { return nil }
            return sqlite3_column_int64(handle, 0)...sqlite3_column_int64(handle, 1)
        }
        return rows.first ?? nil
    }
}

/// A search's plan, read once and handed to the readers of a parallel search.
struct IVFProbe: Sendable {
    let index: IVFIndex
    let vector: FloatVector
    /// The probed lists, best first.
    let lists: [Int64]
    let k: Int
    /// How many candidates a scan of the lists keeps: `k`, or `k × rescoring` for codes.
    let capacity: Int
}

/// k-means, filing and probing, on float32 arrays.
enum IVFBuilder {
    /// Vectors read from a table: their rowids and their components, back to back.
    struct Vectors {
        var rowIDs: [Int64] = []
        var components: [Float] = []
        var dimensions: Int?
        var count: Int { rowIDs.count }
    }

    /// Every row's vector from `literal` (rowid, vector); the first fixes the dimension unless
    /// `expecting` does. A vector with a NaN or an infinity is left out: it is never filed.
    static func vectors(literal: SQLFragment, expecting: Int?, _ db: Connection) throws -> Vectors {
        var result = Vectors(dimensions: expecting)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                guard sqlite3_column_type(handle, 1) != SQLITE_NULL else { continue }
                let bytes = Int(sqlite3_column_bytes(handle, 1))
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB, let pointer = sqlite3_column_blob(handle, 1) else {
                    throw VectorError.malformedBlob(bytes: bytes, layout: .float32)
                }
                let dimensions = try FloatVector.dimensions(ofBlobBytes: bytes)
                if let expected = result.dimensions, expected != dimensions {
                    throw VectorError.wrongDimension(expected: expected, actual: dimensions)
                }
                result.dimensions = dimensions
                // No distance to rank it by, and a trigger cannot afford to look for one per write.
                if VectorKernels.firstNonFinite(pointer, count: dimensions) != nil { continue }
                result.rowIDs.append(sqlite3_column_int64(handle, 0))
                let floats = UnsafeRawBufferPointer(start: pointer, count: bytes)
                result.components.append(contentsOf: floats.bindMemory(to: Float.self))
            }
        }
        return result
    }

    static func centroids(of index: IVFIndex, _ db: Connection) throws -> [Float] {
        var centroids = [Float](repeating: 0, count: index.lists * index.dimensions)
        var seen = 0
        try db.withStatement(literal: "SELECT list, centroid FROM main.\(identifier: index.centroidsTable) ORDER BY list") { statement in
            let handle = statement.handle
            while try statement.step() {
                let list = Int(sqlite3_column_int64(handle, 0))
                let bytes = Int(sqlite3_column_bytes(handle, 1))
                guard list >= 0, list < index.lists, bytes == index.dimensions * 4, let pointer = sqlite3_column_blob(handle, 1) else {
                    throw VectorIndexError.noSuchIndex("\(index.name) (its centroid \(list) is damaged)")
                }
                centroids.withUnsafeMutableBytes { target in
                    target.baseAddress!.advanced(by: list * bytes).copyMemory(from: pointer, byteCount: bytes)
                }
                seen += 1
            }
        }
        guard seen == index.lists else { throw VectorIndexError.noSuchIndex("\(index.name) (\(seen) of \(index.lists) centroids)") }
        return centroids
    }

    /// How well `vector` fits a centroid, smaller better: the squared distance for L2; for
    /// cosine (centroids normalized) and inner product, the negated dot product.
    @inline(__always)
    static func fit(_ vector: UnsafeRawPointer, _ centroid: UnsafeRawPointer, dimensions: Int, metric: VectorMetric) -> Float {
        switch metric {
        case .l2: return VectorKernels.sumOfSquaredDifferences(vector, centroid, count: dimensions)
        case .cosine, .innerProduct: return -VectorKernels.dot(vector, centroid, count: dimensions)
        }
    }

    /// The list whose centroid fits `vector` best (the lowest list on a tie, and for NaN fits).
    static func nearestList(_ vector: UnsafeRawPointer, centroids: UnsafeRawPointer, lists: Int, dimensions: Int, metric: VectorMetric) -> Int {
        var best = 0
        var bestFit = Float.infinity
        for list in 0..<lists {
            let fit = fit(vector, centroids + list * dimensions * 4, dimensions: dimensions, metric: metric)
            if fit < bestFit { bestFit = fit; best = list }
        }
        return best
    }

    /// The `count` lists whose centroids fit `vector` best, best first (ties by list).
    static func nearestLists(_ vector: UnsafeRawPointer, centroids: [Float], dimensions: Int, metric: VectorMetric, count: Int) -> [Int] {
        let lists = centroids.count / dimensions
        let fits = centroids.withUnsafeBytes { base in
            (0..<lists).map { list in fit(vector, base.baseAddress! + list * dimensions * 4, dimensions: dimensions, metric: metric) }
        }
        return (0..<lists).sorted { (fits[$0].isNaN ? .infinity : fits[$0], $0) < (fits[$1].isNaN ? .infinity : fits[$1], $1) }
            .prefix(count).map { $0 }
    }

    /// k-means (Lloyd's rounds) on a seeded sample; for cosine, on unit vectors with unit
    /// centroids (spherical k-means). A list left empty takes a sampled vector.
    static func train(
        _ vectors: Vectors, lists: Int, metric: VectorMetric, sampleSize: Int, iterations: Int,
        random: inout SeededGenerator
    ) -> [Float] {
        let dimensions = vectors.dimensions ?? 1
        var order = Array(0..<vectors.count)
        let size = min(max(sampleSize, lists), vectors.count)
        for position in 0..<size { order.swapAt(position, Int.random(in: position..<vectors.count, using: &random)) }
        var sample = [Float](); sample.reserveCapacity(size * dimensions)
        for position in 0..<size {
            let start = order[position] * dimensions
            var vector = Array(vectors.components[start..<start + dimensions])
            if metric == .cosine { normalize(&vector) }
            sample.append(contentsOf: vector)
        }
        // The first centroids: the first `lists` vectors of the shuffled sample.
        var centroids = Array(sample[0..<lists * dimensions])
        let assignMetric: VectorMetric = metric == .innerProduct ? .l2 : metric
        for _ in 0..<iterations {
            var sums = [Double](repeating: 0, count: lists * dimensions)
            var counts = [Int](repeating: 0, count: lists)
            sample.withUnsafeBytes { samples in
                centroids.withUnsafeBytes { centres in
                    for position in 0..<size {
                        let vector = samples.baseAddress! + position * dimensions * 4
                        let list = nearestList(vector, centroids: centres.baseAddress!, lists: lists, dimensions: dimensions, metric: assignMetric)
                        counts[list] += 1
                        for component in 0..<dimensions { sums[list * dimensions + component] += Double(sample[position * dimensions + component]) }
                    }
                }
            }
            for list in 0..<lists {
                if counts[list] == 0 {
                    let donor = Int.random(in: 0..<size, using: &random) * dimensions
                    for component in 0..<dimensions { centroids[list * dimensions + component] = sample[donor + component] }
                    continue
                }
                var centroid = (0..<dimensions).map { Float(sums[list * dimensions + $0] / Double(counts[list])) }
                if metric == .cosine { normalize(&centroid) }
                for component in 0..<dimensions { centroids[list * dimensions + component] = centroid[component] }
            }
        }
        return centroids
    }

    static func normalize(_ vector: inout [Float]) {
        let norm = vector.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 0, norm.isFinite else { return }
        for index in vector.indices { vector[index] = Float(Double(vector[index]) / norm) }
    }

    /// How many vectors a chunk of a list holds at most. A probe steps one SQLite row per chunk,
    /// not per vector: stepping rows, not computing distances, was most of a probe's time.
    static let chunkCapacity = 256

    /// The bytes of one filed code: float32 as in the table, int8 with its scale, or bits.
    static func codeBytes(_ index: IVFIndex) -> Int {
        switch index.quantization {
        case .none: index.dimensions * 4
        case .int8: index.dimensions + 4
        case .bit: (index.dimensions + 7) / 8
        }
    }

    /// Files each vector under its nearest centroid: appended to its list's last chunk while it
    /// has room, then in new chunks.
    static func file(_ vectors: Vectors, into index: IVFIndex, centroids: [Float], _ db: Connection) throws {
        guard vectors.count > 0 else { return }
        let bytes = index.dimensions * 4
        var byList: [Int: [Int]] = [:]
        vectors.components.withUnsafeBytes { components in
            centroids.withUnsafeBytes { centres in
                guard let first = components.baseAddress, let centre = centres.baseAddress else { return }
                for position in 0..<vectors.count {
                    let list = nearestList(
                        first + position * bytes, centroids: centre, lists: index.lists,
                        dimensions: index.dimensions, metric: index.metric)
                    byList[list, default: []].append(position)
                }
            }
        }
        for (list, positions) in byList.sorted(by: { $0.key < $1.key }) {
            var chunk: (id: Int64?, rows: Data, codes: Data) = (nil, Data(), Data())
            let last = try chunks(
                literal: "SELECT rowid, \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE list = \(Int64(list)) ORDER BY rowid DESC LIMIT 1",
                index, db)
            if let last = last.first, last.rows.count / 8 < chunkCapacity {
                chunk = (last.id, last.rows, last.codes)
            }
            func flush() throws {
                if let id = chunk.id {
                    try db.run(
                        literal: "UPDATE main.\(identifier: index.entriesTable) SET \"rows\" = \(chunk.rows), codes = \(chunk.codes) WHERE rowid = \(id)")
                } else {
                    try db.run(
                        literal:
                            "INSERT INTO main.\(identifier: index.entriesTable)(list, \"rows\", codes) VALUES (\(Int64(list)), \(chunk.rows), \(chunk.codes))")
                }
                chunk = (nil, Data(), Data())
            }
            try vectors.components.withUnsafeBytes { components in
                guard let first = components.baseAddress else { return }
                for position in positions {
                    withUnsafeBytes(of: vectors.rowIDs[position].littleEndian) { chunk.rows.append(contentsOf: $0) }
                    chunk.codes.append(code(first + position * bytes, dimensions: index.dimensions, quantization: index.quantization))
                    if chunk.rows.count / 8 == chunkCapacity { try flush() }
                }
            }
            if !chunk.rows.isEmpty { try flush() }
        }
    }

    /// Removes `rows` from the chunks that hold them (rewritten, or deleted when emptied). Reads
    /// every chunk's rowids, not its codes: an update's cost grows with the index's size.
    static func unfile(_ rows: Set<Int64>, from index: IVFIndex, _ db: Connection) throws {
        guard !rows.isEmpty else { return }
        var touched: [Int64] = []
        let codeBytes = codeBytes(index)
        // typeof and length read no BLOB content.
        try db.withStatement(literal: "SELECT rowid, \"rows\", typeof(codes), length(codes) FROM main.\(identifier: index.entriesTable)") { statement in
            let handle = statement.handle
            while try statement.step() {
                let rowBytes = Int(sqlite3_column_bytes(handle, 1))
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB, String(cString: sqlite3_column_text(handle, 2)) == "blob" else {
                    throw VectorError.malformedBlob(bytes: Int(sqlite3_column_int64(handle, 3)), layout: layout(index))
                }
                try checkChunk(rows: rowBytes, codes: Int(sqlite3_column_int64(handle, 3)), codeBytes: codeBytes, index)
                guard let pointer = sqlite3_column_blob(handle, 1) else { continue }
                if (0..<rowBytes / 8).contains(where: { rows.contains(Int64(littleEndian: pointer.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self))) }) {
                    touched.append(sqlite3_column_int64(handle, 0))
                }
            }
        }
        for id in touched {
            guard
                let chunk = try chunks(literal: "SELECT rowid, \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE rowid = \(id)", index, db)
                    .first
            else { continue }
            var keptRows = Data(), keptCodes = Data()
            for entry in 0..<chunk.rows.count / 8 {
                let row = chunk.rows.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: entry * 8, as: Int64.self)) }
                guard !rows.contains(row) else { continue }
                keptRows.append(chunk.rows[chunk.rows.startIndex + entry * 8..<chunk.rows.startIndex + (entry + 1) * 8])
                keptCodes.append(chunk.codes[chunk.codes.startIndex + entry * codeBytes..<chunk.codes.startIndex + (entry + 1) * codeBytes])
            }
            if keptRows.isEmpty {
                try db.run(literal: "DELETE FROM main.\(identifier: index.entriesTable) WHERE rowid = \(id)")
            } else {
                try db.run(literal: "UPDATE main.\(identifier: index.entriesTable) SET \"rows\" = \(keptRows), codes = \(keptCodes) WHERE rowid = \(id)")
            }
        }
    }

    /// Rewrites each list that has more chunks than its entries need (rows removed from the
    /// middle of chunks leave them part full) as full chunks, so churn never drifts back towards a
    /// row per vector. `length` reads no BLOB content, so finding them reads no codes.
    static func compact(_ index: IVFIndex, _ db: Connection) throws {
        let capacity = Int64(chunkCapacity)
        let lists: [Int64] = try db.query(
            literal:
                "SELECT list FROM main.\(identifier: index.entriesTable) GROUP BY list HAVING count(*) > (sum(length(\"rows\")) / 8 + \(capacity - 1)) / \(capacity)"
        )
        for list in lists {
            let chunks = try chunks(
                literal: "SELECT rowid, \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE list = \(list) ORDER BY rowid", index, db)
            var rows = Data(), codes = Data()
            for chunk in chunks { rows.append(chunk.rows); codes.append(chunk.codes) }
            try db.run(literal: "DELETE FROM main.\(identifier: index.entriesTable) WHERE list = \(list)")
            let codeBytes = codeBytes(index), count = rows.count / 8
            for start in stride(from: 0, to: count, by: chunkCapacity) {
                let end = min(start + chunkCapacity, count)
                let chunkRows = rows[rows.startIndex + start * 8..<rows.startIndex + end * 8]
                let chunkCodes = codes[codes.startIndex + start * codeBytes..<codes.startIndex + end * codeBytes]
                try db.run(
                    literal:
                        "INSERT INTO main.\(identifier: index.entriesTable)(list, \"rows\", codes) VALUES (\(list), \(Data(chunkRows)), \(Data(chunkCodes)))")
            }
        }
    }

    /// The chunks `literal` selects (rowid, rows, codes), copied and checked.
    static func chunks(literal: SQLFragment, _ index: IVFIndex, _ db: Connection) throws -> [(id: Int64, rows: Data, codes: Data)] {
        var result: [(id: Int64, rows: Data, codes: Data)] = []
        let codeBytes = codeBytes(index)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                let chunk = try chunkBlobs(handle, 1, index, codeBytes: codeBytes)
                result.append(
                    (
                        sqlite3_column_int64(handle, 0),
                        chunk.rows.map { Data(bytes: $0, count: chunk.count * 8) } ?? Data(),
                        chunk.codes.map { Data(bytes: $0, count: chunk.count * codeBytes) } ?? Data()
                    ))
            }
        }
        return result
    }

    /// The rowids and codes of the chunk in columns `column` and `column + 1` of the current row,
    /// in place, and how many entries it holds; a chunk that is not two BLOBs of agreeing sizes
    /// is ``VectorError/malformedBlob(bytes:layout:)``.
    @inline(__always)
    static func chunkBlobs(
        _ handle: OpaquePointer, _ column: Int32, _ index: IVFIndex, codeBytes: Int
    ) throws
        -> (rows: UnsafeRawPointer?, codes: UnsafeRawPointer?, count: Int)
    {
        // Each column's pointer stays valid until the next step.
        let rows = sqlite3_column_blob(handle, column), rowBytes = Int(sqlite3_column_bytes(handle, column))
        let codes = sqlite3_column_blob(handle, column + 1), codeCount = Int(sqlite3_column_bytes(handle, column + 1))
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB, sqlite3_column_type(handle, column + 1) == SQLITE_BLOB else {
            throw VectorError.malformedBlob(bytes: codeCount, layout: layout(index))
        }
        try checkChunk(rows: rowBytes, codes: codeCount, codeBytes: codeBytes, index)
        return (rows, codes, rowBytes / 8)
    }

    /// The layout an index's codes are named by in errors.
    static func layout(_ index: IVFIndex) -> VectorLayout {
        switch index.quantization {
        case .none: .float32;
        case .int8: .int8;
        case .bit: .bit
        }
    }

    /// A chunk's two BLOBs must hold the same number of entries.
    static func checkChunk(rows: Int, codes: Int, codeBytes: Int, _ index: IVFIndex) throws {
        guard rows % 8 == 0, codes == rows / 8 * codeBytes else {
            throw VectorError.malformedBlob(bytes: codes, layout: layout(index))
        }
    }

    /// A keyed index's winners under the table's rowids now (the ids are the map's), in the
    /// same order: by distance, ties by the map's ids.
    static func tableRowIDs(
        _ ranked: [(rowID: Int64, distance: Double)], _ index: IVFIndex, _ db: Connection
    ) throws
        -> [(rowID: Int64, distance: Double)]
    {
        guard index.key != nil, !ranked.isEmpty else { return ranked }
        var rowIDs: [Int64: Int64] = [:]
        for start in stride(from: 0, to: ranked.count, by: 500) {
            let ids = ranked[start..<min(start + 500, ranked.count)].map { SQLFragment.value($0.rowID) }.joined(separator: ", ")
            let pairs: [Row] = try db.query(literal: "SELECT m.id, \(index.tableRowID) FROM \(index.rowSource) WHERE m.id IN (\(ids))")
            for pair in pairs { rowIDs[pair[0]] = pair[1] }
        }
        return ranked.compactMap { entry in rowIDs[entry.rowID].map { (rowID: $0, distance: entry.distance) } }
    }

    /// The rows queued since the last update (written, moved or deleted).
    static func pendingRows(of index: IVFIndex, _ db: Connection) throws -> Set<Int64> {
        Set(try db.query(literal: "SELECT \"row\" FROM main.\(identifier: index.pendingTable)") as [Int64])
    }

    /// The rows of the indexed table among the rowids `select` returns, matched by SQLite's own
    /// `IN` (so text, reals and NULLs match as they do in SQL, and as the pending rows are).
    static func rowIDs(selectedBy select: SQLFragment, in index: IVFIndex, _ db: Connection) throws -> Set<Int64> {
        Set(try db.query(literal: "SELECT \(index.rowID) FROM \(index.rowSource) WHERE \(index.tableRowID) IN (" + select + ")") as [Int64])
    }

    /// Calls `body` with each filed entry of the chunks `literal` selects (rows, codes): its
    /// rowid and a pointer to its code, in place.
    static func scanChunks(
        _ literal: SQLFragment, _ index: IVFIndex, _ db: Connection,
        _ body: (Int64, UnsafeRawPointer) throws -> Void
    ) throws {
        let codeBytes = codeBytes(index)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                let chunk = try chunkBlobs(handle, 0, index, codeBytes: codeBytes)
                guard let rows = chunk.rows, let codes = chunk.codes else { continue }
                for entry in 0..<chunk.count {
                    try body(Int64(littleEndian: rows.loadUnaligned(fromByteOffset: entry &* 8, as: Int64.self)), codes + entry &* codeBytes)
                }
            }
        }
    }

    /// Ranks the rows of `literal` (rowid, float32 vector) by their exact distance to `vector`,
    /// passing over a vector with a NaN or an infinity (the query vector has none).
    static func scanFloat(
        _ literal: SQLFragment, _ vector: FloatVector, _ index: IVFIndex, _ db: Connection,
        _ offer: (Double, Int64) -> Void
    ) throws {
        let prepared = PreparedVectorTarget(vector, metric: index.metric)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB,
                    Int(sqlite3_column_bytes(handle, 1)) == index.dimensions * 4,
                    let bytes = sqlite3_column_blob(handle, 1)
                else {
                    throw VectorError.malformedBlob(bytes: Int(sqlite3_column_bytes(handle, 1)), layout: .float32)
                }
                let distance: Double
                do { distance = try prepared.distance(to: bytes) } catch VectorError.nonFinite { continue }
                offer(distance, sqlite3_column_int64(handle, 0))
            }
        }
    }

    /// Which of `rowIDs` the indexed table still has with a vector.
    static func existingRows(_ rowIDs: [Int64], in index: IVFIndex, _ db: Connection) throws -> Set<Int64> {
        var present = Set<Int64>()
        for start in stride(from: 0, to: rowIDs.count, by: 500) {
            let slice = rowIDs[start..<min(start + 500, rowIDs.count)].map { SQLFragment.value($0) }.joined(separator: ", ")
            let rows: [Int64] = try db.query(
                literal: "SELECT \(index.rowID) FROM \(index.rowSource) WHERE \(index.rowID) IN (\(slice)) AND t.\(identifier: index.column) IS NOT NULL")
            present.formUnion(rows)
        }
        return present
    }

    /// Ranks the filed codes of the chunks `literal` selects by their approximate distance to
    /// `vector`.
    static func scanCodes(
        _ literal: SQLFragment, _ vector: FloatVector, _ index: IVFIndex, _ db: Connection,
        _ offer: (Double, Int64) -> Void
    ) throws {
        switch index.quantization {
        case .int8:
            let query = Int8Query(vector)
            try query.widened.withUnsafeBytes { widened in
                guard let widened = widened.baseAddress else { throw VectorError.empty }
                switch index.metric {
                case .l2:
                    try scanChunks(literal, index, db) { row, code in offer(query.l2(widened, code, dimensions: index.dimensions), row) }
                case .cosine:
                    try scanChunks(literal, index, db) { row, code in offer(query.cosine(widened, code, dimensions: index.dimensions), row) }
                case .innerProduct:
                    try scanChunks(literal, index, db) { row, code in offer(query.innerProduct(widened, code, dimensions: index.dimensions), row) }
                }
            }
        case .bit, .none:
            let bits = BitVector(quantizing: vector)
            let byteCount = bits.bytes.count
            try bits.bytes.withUnsafeBytes { queryBits in
                guard let targetBits = queryBits.baseAddress else { throw VectorError.empty }
                try scanChunks(literal, index, db) { row, code in
                    offer(Double(VectorKernels.hamming(targetBits, code, byteCount: byteCount)), row)
                }
            }
        }
    }

    /// A query made ready for int8 codes: quantized to int8 itself, so each code is compared in
    /// integers (sixteen products and sums per step, with no conversion to float), which is most
    /// of a flat quantized search's work. Its own rounding only orders candidates, which are
    /// rescored exactly.
    struct Int8Query {
        /// The query's int8 values widened to Int16, zero-padded to a multiple of 16.
        let widened: [Int16]
        /// The query's scale: its components are about `scale × value`.
        let scale: Double
        /// Σq² and ‖q‖ of the float32 query, in Double: float32 would overflow for components
        /// beyond about 1e19 (and lose a tiny query's norm).
        let squares: Double
        let norm: Double

        init(_ vector: FloatVector) {
            let quantized = Int8Vector(quantizing: vector)
            var widened = quantized.values.map { Int16($0) }
            widened.append(contentsOf: repeatElement(0, count: (16 - widened.count % 16) % 16))
            self.widened = widened
            scale = Double(quantized.scale)
            squares = vector.values.reduce(0.0) { $0 + Double($1) * Double($1) }
            norm = squares.squareRoot()
        }

        // The terms are combined in Double: in float32, s²·Σc² and Σq² overflow to infinity for
        // large finite vectors, and their difference would be NaN for every code.

        /// ‖q − s·c‖² as Σq² − 2·s·t·Σq′c + s²·Σc².
        @inline(__always)
        func l2(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int) -> Double {
            let sums = Self.sums(widened, code, dimensions: dimensions, norm: true)
            let s = Self.codeScale(code, dimensions: dimensions)
            return squares - 2 * s * scale * Double(sums.dot) + s * s * Double(sums.norm)
        }

        @inline(__always)
        func cosine(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int) -> Double {
            let sums = Self.sums(widened, code, dimensions: dimensions, norm: true)
            let denominator = norm * Double(sums.norm).squareRoot()
            return denominator > 0 ? 1 - scale * Double(sums.dot) / denominator : 1
        }

        @inline(__always)
        func innerProduct(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int) -> Double {
            let sums = Self.sums(widened, code, dimensions: dimensions, norm: false)
            return -(Self.codeScale(code, dimensions: dimensions) * scale * Double(sums.dot))
        }

        @inline(__always)
        static func codeScale(_ code: UnsafeRawPointer, dimensions: Int) -> Double {
            Double(Float(bitPattern: UInt32(littleEndian: code.loadUnaligned(fromByteOffset: dimensions, as: UInt32.self))))
        }

        /// How many steps of 16 values the Int32 lanes add before they are moved to Int64: at
        /// most 32,258 a lane a step, 4,096 steps stay below Int32's limit, and so do 8 lanes summed.
        static let stepsPerBlock = 4_096

        /// Σq′ᵢcᵢ and (when `norm`) Σcᵢ² in integers. Each product of values within ±127 is at
        /// most 16,129, so two added stay within Int16 before widening; wrapping arithmetic
        /// keeps a tampered code (a -128) from trapping, only from ranking well.
        @inline(__always)
        static func sums(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int, norm computeNorm: Bool) -> (dot: Int64, norm: Int64) {
            var dot: Int64 = 0, norm: Int64 = 0
            var dots = SIMD8<Int32>(), norms = SIMD8<Int32>()
            @inline(__always) func add(_ q: SIMD16<Int16>, _ c: SIMD16<Int16>) {
                let products = q &* c
                dots &+= SIMD8<Int32>(truncatingIfNeeded: products.evenHalf &+ products.oddHalf)
                if computeNorm {
                    let squares = c &* c
                    norms &+= SIMD8<Int32>(truncatingIfNeeded: squares.evenHalf &+ squares.oddHalf)
                }
            }
            let steps = dimensions / 16
            var step = 0
            while step < steps {
                let end = min(steps, step &+ stepsPerBlock)
                while step < end {
                    add(
                        widened.loadUnaligned(fromByteOffset: step &* 32, as: SIMD16<Int16>.self),
                        SIMD16<Int16>(truncatingIfNeeded: code.loadUnaligned(fromByteOffset: step &* 16, as: SIMD16<Int8>.self)))
                    step &+= 1
                }
                dot &+= Int64(dots.wrappedSum())
                norm &+= Int64(norms.wrappedSum())
                dots = SIMD8<Int32>()
                norms = SIMD8<Int32>()
            }
            // The last values, padded with zeros (the query's padding is zero too); a code is
            // followed by its scale, so it is not read past its end.
            if steps &* 16 < dimensions {
                var c = SIMD16<Int16>()
                for lane in 0..<(dimensions - steps &* 16) { c[lane] = Int16(code.load(fromByteOffset: steps &* 16 &+ lane, as: Int8.self)) }
                add(widened.loadUnaligned(fromByteOffset: steps &* 32, as: SIMD16<Int16>.self), c)
                dot &+= Int64(dots.wrappedSum())
                norm &+= Int64(norms.wrappedSum())
            }
            return (dot, norm)
        }
    }

    /// What a filed vector is stored as.
    static func code(_ vector: UnsafeRawPointer, dimensions: Int, quantization: VectorQuantization) -> Data {
        let bytes = UnsafeRawBufferPointer(start: vector, count: dimensions * 4)
        switch quantization {
        case .none: return Data(bytes)
        case .int8, .bit:
            // Finite by construction: the vectors were checked when read.
            guard let floats = try? FloatVector(Array(bytes.bindMemory(to: Float.self))) else { return Data(bytes) }
            return quantization == .int8 ? Int8Vector(quantizing: floats).blob : BitVector(quantizing: floats).blob
        }
    }
}

extension VectorTopK {
    /// The kept candidates, nearest first, as (rowid, distance) pairs.
    var ranked: [(rowID: Int64, distance: Double)] { nearestFirst.map { (rowID: $0.rowID, distance: $0.distance) } }
}
