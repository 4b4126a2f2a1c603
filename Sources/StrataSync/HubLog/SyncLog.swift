// The hub's side of the bookkeeping, per space: the log replicas pull, the record of the entries
// applied (so a retried push is applied once), and the chain, trim horizon and schema version in
// the meta table. Every statement on those tables is here.
import Foundation
import Strata

/// One space's log and applied-entry record, in the space's connection.
struct SyncLog {
    let connection: Connection
    /// The schema that holds the tables (`main`, or an attached copy's name).
    let schema: String

    init(_ connection: Connection, schema: String = "main") {
        self.connection = connection
        self.schema = schema
    }

    private typealias Tables = SyncBookkeeping

    /// The text of the statements the hub runs for every entry, rendered once (rendering them
    /// per call was a tenth of the hub's time per entry).
    private enum Text {
        static let log = quoteIdentifier(Tables.log.name)
        static let applied = quoteIdentifier(Tables.applied.name)
        static let currentVersion =
            "SELECT max(coalesce((SELECT seq FROM \(quoteIdentifier("main")).sqlite_sequence WHERE name = ?), 0), "
            + "coalesce((SELECT max(version) FROM \(quoteIdentifier("main")).\(log)), 0))"
        static let append = "INSERT INTO \(log)(replica, sequence, changeset, at, chain) VALUES (?, ?, ?, ?, ?)"
        static let appliedRecord = "SELECT conflicts, version, digest FROM \(applied) WHERE replica = ? AND sequence = ?"
        static let recordApplied = "INSERT INTO \(applied)(replica, sequence, version, conflicts, digest) VALUES (?, ?, ?, ?, ?)"
        static let routes = quoteIdentifier(Tables.routes.name)
        static let appendRoute = "INSERT OR IGNORE INTO \(routes)(route, version, row) VALUES (?, ?, ?)"
    }

    /// Creates or upgrades the tables; inside the caller's transaction when one is open.
    func prepare() throws { try Tables.hub.migrate(connection) }

    /// Whether the file is a space (it has a log).
    func exists() throws -> Bool { try connection.schemaReader.table(named: Tables.log.name) != nil }

    // MARK: Meta

    func meta(_ key: String) throws -> Int64? { try Tables.meta.value(key, connection) }

    func setMeta(_ key: String, _ value: Int64) throws { try Tables.meta.set(key, .integer(value), connection) }

    // MARK: Versions

    /// The newest version: AUTOINCREMENT's counter, which a trimmed (even empty) log keeps.
    func currentVersion() throws -> Int64 {
        if schema == "main" {
            return try connection.query(literal: SQLFragment(sql: Text.currentVersion, arguments: [.text(Tables.log.name)])) ?? 0
        }
        let database = quoteIdentifier(schema)
        return try connection.query(
            literal: SQLFragment(
                sql: """
                    SELECT max(coalesce((SELECT seq FROM \(database).sqlite_sequence WHERE name = ?), 0),
                               coalesce((SELECT max(version) FROM \(database).\(quoteIdentifier(Tables.log.name))), 0))
                    """, arguments: [.text(Tables.log.name)])) ?? 0
    }

    /// The chain of the logged entry at `version`, if it is still in the log.
    func loggedChain(version: Int64) throws -> Int64? {
        try connection.query(
            literal: """
                SELECT chain FROM \(identifier: Tables.log.name) WHERE version = \(version)
                """)
    }

    /// The log chain after one more entry: FNV-1a over the previous chain and the entry, enough
    /// to tell one history from another (it guards against a restored copy, not an attacker).
    static func chain(after previous: Int64, replica: String, sequence: Int64, changeset: Data) -> Int64 {
        var hash = FNV1a()
        hash.add(previous)
        hash.add(replica.utf8)
        hash.add(CollectionOfOne(UInt8(0)))
        hash.add(sequence)
        hash.add(changeset)
        return Int64(bitPattern: hash.value)
    }

    // MARK: The log

    /// Logs what the hub made of one entry with its chain; returns the entry's version.
    func append(replica: String, sequence: Int64, changeset: Data, at now: Int64, chain: Int64) throws -> Int64 {
        try connection.run(
            literal: SQLFragment(
                sql: Text.append, arguments: [.text(replica), .integer(sequence), .blob(changeset), .integer(now), .integer(chain)]))
        return connection.lastInsertRowID
    }

    /// Up to `limit` entries after `version`, in order.
    func entries(after version: Int64, limit: Int) throws -> [SyncLogEntry] {
        let rows: [Row] = try connection.query(
            literal: """
                SELECT version, replica, sequence, changeset, chain FROM \(identifier: Tables.log.name)
                WHERE version > \(version) ORDER BY version LIMIT \(limit)
                """)
        return rows.map {
            SyncLogEntry(
                version: $0.value(at: 0) ?? 0, replicaID: $0.value(at: 1) ?? "", sequence: $0.value(at: 2) ?? 0,
                changeset: $0.value(at: 3) ?? Data(), chain: $0.value(at: 4))
        }
    }

    /// Files the entry at `version` under `routes`.
    func appendRoutes(version: Int64, _ routes: [LogRoutes.Filed]) throws {
        for filed in routes {
            try connection.run(literal: SQLFragment(sql: Text.appendRoute, arguments: [.blob(filed.route), .integer(version), .blob(filed.row)]))
        }
    }

    /// The `limit` oldest versions after `version` filed under any of `routes`, in order, with
    /// the rows filed under them: each route's own range of the index, 500 routes a statement.
    func versions(after version: Int64, routes: [Data], limit: Int) throws -> LogRoutes.Found {
        try LogRoutes.find(routes: routes, limit: limit) { chunk, most in
            let sql =
                "SELECT version, row FROM \(Text.routes) WHERE route IN (" + chunk.map { _ in "?" }.joined(separator: ", ")
                + ") AND version > ? LIMIT ?"
            let arguments = chunk.map { BindingValue.blob($0) } + [.integer(version), .integer(Int64(most))]
            return try connection.valueRows(literal: SQLFragment(sql: sql, arguments: arguments)).rows.compactMap { row in
                guard row.count == 2, case .integer(let found) = row[0], case .blob(let filed) = row[1] else { return nil }
                return (found, filed)
            }
        }
    }

    /// The logged entries at `versions`, in order.
    func entries(at versions: [Int64]) throws -> [SyncLogEntry] {
        var entries: [SyncLogEntry] = []
        var start = 0
        let ordered = versions.sorted()
        while start < ordered.count {
            let chunk = ordered[start..<min(ordered.count, start + 500)]
            start += chunk.count
            let rows: [Row] = try connection.query(
                literal: SQLFragment(
                    sql: "SELECT version, replica, sequence, changeset, chain FROM \(Text.log) WHERE version IN ("
                        + chunk.map { _ in "?" }.joined(separator: ", ") + ") ORDER BY version",
                    arguments: chunk.map { .integer($0) }))
            entries += rows.map(Self.entry)
        }
        return entries
    }

    private static func entry(_ row: Row) -> SyncLogEntry {
        SyncLogEntry(
            version: row.value(at: 0) ?? 0, replicaID: row.value(at: 1) ?? "", sequence: row.value(at: 2) ?? 0,
            changeset: row.value(at: 3) ?? Data(), chain: row.value(at: 4))
    }

    /// The newest version logged before `seconds` (since 1970), 0 for none.
    func newestVersion(before seconds: Int64) throws -> Int64 {
        try connection.query(
            literal: """
                SELECT coalesce(max(version), 0) FROM \(identifier: Tables.log.name) WHERE at < \(seconds)
                """) ?? 0
    }

    /// Drops the log through `version`; returns how many entries went.
    func deleteLog(through version: Int64) throws -> Int {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.log.name) WHERE version <= \(version)")
        let removed = connection.changes
        try connection.run(literal: "DELETE FROM \(identifier: Tables.routes.name) WHERE version <= \(version)")
        return removed
    }

    /// How many entries the log holds, and how many replicas (incarnations) the hub applied entries of.
    func inventory() throws -> (logEntries: Int, replicas: Int) {
        let row: Row? = try connection.query(
            literal: """
                SELECT (SELECT count(*) FROM \(identifier: Tables.log.name)), (SELECT count(DISTINCT replica) FROM \(identifier: Tables.applied.name))
                """)
        return (row?.value(at: 0) ?? 0, row?.value(at: 1) ?? 0)
    }

    // MARK: Applied entries

    /// What the hub recorded when it applied entry `sequence` of `replica`, if it did.
    func applied(replica: String, sequence: Int64) throws -> (conflicts: String, version: Int64, digest: Int64?)? {
        let row: Row? = try connection.query(literal: SQLFragment(sql: Text.appliedRecord, arguments: [.text(replica), .integer(sequence)]))
        return row.map { ($0.value(at: 0) ?? "[]", $0.value(at: 1) ?? 0, $0.value(at: 2)) }
    }

    func isApplied(replica: String, sequence: Int64) throws -> Bool {
        try connection.query(
            literal: """
                SELECT count(*) FROM \(identifier: Tables.applied.name) WHERE replica = \(replica) AND sequence = \(sequence)
                """) ?? 0 > 0
    }

    func recordApplied(replica: String, sequence: Int64, version: Int64, conflicts: String, digest: Int64) throws {
        try connection.run(
            literal: SQLFragment(
                sql: Text.recordApplied,
                arguments: [.text(replica), .integer(sequence), .integer(version), .text(conflicts), .integer(digest)]))
    }

    // MARK: Rules and views (partial sync)

    /// The rules' version (0 before any) and JSON (nil: none).
    func rules() throws -> (version: Int64, json: Data?) {
        let version: Int64 = try Tables.meta.value("rules_version", connection) ?? 0
        let json: Data? = try Tables.meta.value("rules", connection)
        return (version, json)
    }

    /// Sets or removes the rules; returns their new version.
    func setRules(_ json: Data?) throws -> Int64 {
        let version = (try rules().version) + 1
        try Tables.meta.set("rules", json.map { .blob($0) } ?? .null, connection)
        try Tables.meta.set("rules_version", .integer(version), connection)
        return version
    }

    /// The newest view recorded for `replica` and `user` at or before `version`.
    func viewRecord(replica: String, user: String, atOrBefore version: Int64) throws -> SyncViewRecord? {
        let row: Row? = try connection.query(
            literal: """
                SELECT version, rules, instances FROM \(identifier: Tables.views.name)
                WHERE replica = \(replica) AND user = \(user) AND version <= \(version) ORDER BY version DESC LIMIT 1
                """)
        return row.map { SyncViewRecord(version: $0.value(at: 0) ?? 0, rules: $0.value(at: 1) ?? 0, instances: $0.value(at: 2) ?? Data()) }
    }

    /// Records a view, dropping the replica's views older than `keepingFrom` (its cursor's), and
    /// those under any other user: the replica's rows are this user's view from now on, so a
    /// user signing in on it again (alice, then bob, then alice) must not be answered as if it
    /// still held the view recorded for them before, and starts over from a snapshot.
    func recordView(_ record: SyncViewRecord, replica: String, user: String, keepingFrom: Int64) throws {
        try connection.run(
            literal: """
                INSERT OR REPLACE INTO \(identifier: Tables.views.name)(replica, user, version, rules, instances)
                VALUES (\(replica), \(user), \(record.version), \(record.rules), \(record.instances))
                """)
        try connection.run(
            literal: """
                DELETE FROM \(identifier: Tables.views.name)
                WHERE replica = \(replica) AND (user <> \(user) OR version < \(keepingFrom))
                """)
    }

    func forgetViews(replica: String, user: String) throws {
        try connection.run(
            literal: """
                DELETE FROM \(identifier: Tables.views.name) WHERE replica = \(replica) AND user = \(user)
                """)
    }
}

/// The bucket instances a replica's user had at a hub version, under a rules version.
package struct SyncViewRecord: Sendable, Equatable {
    package var version: Int64
    package var rules: Int64
    /// The instances, as JSON.
    package var instances: Data
    package init(version: Int64, rules: Int64, instances: Data) { self.version = version; self.rules = rules; self.instances = instances }
}
