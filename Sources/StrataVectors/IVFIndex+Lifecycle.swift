import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// Creating, updating and dropping an IVF index: its tables, triggers and configuration.
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
            // A damaged or hand-edited row must not size the centroids past what could be built.
            case (let cells, let overflow) = dimensions.multipliedReportingOverflow(by: lists), !overflow, cells <= Int(Int32.max),
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
}
