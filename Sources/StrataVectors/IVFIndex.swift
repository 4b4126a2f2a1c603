import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

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

/// An IVF index over a table's `FloatVector` column (see `Connection.createIVFIndex(_:on:column:options:)`).
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

extension VectorIndexError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
