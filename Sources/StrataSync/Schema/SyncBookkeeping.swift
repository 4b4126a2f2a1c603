// The sync engine's own tables, in the replica's database and in each of the hub's space files:
// declared once here as `TableDefinition`s, created and upgraded by numbered steps through the
// kernel's `VersionedMigration`. The version reached is kept in the component's own key-value
// table, never in the app's `user_version` or `schema_migrations`, so the app's migrations and
// the sync engine's never meet.
import Foundation
import Strata

enum SyncBookkeeping {
    /// Every bookkeeping table's name starts with this; a synced table may not.
    static let prefix = "_strata_sync_"

    static func isBookkeeping(_ table: String) -> Bool { table.lowercased().hasPrefix(prefix) }

    // MARK: The replica's tables

    /// Captured writes not yet acknowledged, in the order they were made (version 1's shape).
    static let outbox = TableDefinition(
        prefix + "outbox",
        columns: [
            .init("sequence", type: "INTEGER", [.primaryKey(autoincrement: true)]),
            .init("changeset", type: "BLOB", [.notNull()])
        ], ifNotExists: true)
    /// The replica's cursor, incarnation, rebase record and last error.
    static let state = SyncKeyValues(prefix + "state")
    /// Acknowledged writes waiting for the pull that reaches the version the hub gave them.
    static let inflight = TableDefinition(
        prefix + "inflight",
        columns: [
            .init("sequence", type: "INTEGER", [.primaryKey()]),
            .init("version", type: "INTEGER", [.notNull()]),
            .init("changeset", type: "BLOB", [.notNull()])
        ], ifNotExists: true)
    /// Version 2: the hub's chain at the version, to tell a restored hub.
    static let inflightChain = TableDefinition.Column("chain", type: "INTEGER")
    /// The version of the space's rules a refusal was made under (NULL: none, or a refusal made
    /// on the replica): a held write is offered again once the rules are newer.
    static let refusedRules = TableDefinition.Column("rules", type: "INTEGER")
    /// Acknowledged writes kept for a while, to be sent again to a hub restored from a copy.
    static let sent = TableDefinition(
        prefix + "sent",
        columns: [
            .init("sequence", type: "INTEGER", [.primaryKey()]),
            .init("changeset", type: "BLOB", [.notNull()]),
            .init("at", type: "INTEGER", [.notNull()])
        ], ifNotExists: true)
    /// The hub's refusal of a pending write, as JSON.
    static let refused = TableDefinition(
        prefix + "refused",
        columns: [
            .init("sequence", type: "INTEGER", [.primaryKey()]),
            .init("refusal", type: "TEXT", [.notNull()])
        ], ifNotExists: true)

    /// The replica's tables (the state table's too), as a session records them.
    static var replicaTables: [String] { [outbox.name, state.definition.name, inflight.name, sent.name, refused.name] }

    static let replica = VersionedMigration(
        steps: [
            .init(1) { connection in
                for table in [outbox, state.definition, inflight, sent, refused] { try connection.execute(table.sql) }
            },
            .init(2) { connection in
                try connection.execute(TableDefinition.addColumnSQL(table: inflight.name, column: inflightChain))
            },
            // The outbox without AUTOINCREMENT: its `sqlite_sequence` row was one more page written
            // by every captured commit. Sequences stay never reused through the floor kept in the
            // state table, raised whenever an entry leaves the outbox.
            .init(3) { connection in
                let floor: Int64 =
                    try connection.query(
                        literal: """
                            SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = \(outbox.name)), 0),
                                       coalesce((SELECT max(sequence) FROM \(identifier: outbox.name)), 0),
                                       coalesce((SELECT max(sequence) FROM \(identifier: inflight.name)), 0),
                                       coalesce((SELECT max(sequence) FROM \(identifier: sent.name)), 0))
                            """) ?? 0
                var rebuilt = outboxWithoutAutoincrement
                rebuilt.name = prefix + "outbox_rebuilt"
                try connection.execute(rebuilt.sql)
                try connection.run(
                    literal: """
                        INSERT INTO \(identifier: rebuilt.name)(sequence, changeset) SELECT sequence, changeset FROM \(identifier: outbox.name)
                        """)
                try connection.execute("DROP TABLE " + quoteIdentifier(outbox.name))
                // An app's view or trigger over the outbox names it: SQLite's rename re-parses the
                // schema and would refuse while the table is gone, unless in its legacy mode, in
                // which the view simply names the rebuilt table.
                let legacy: Bool = try connection.query("PRAGMA legacy_alter_table") ?? false
                if !legacy { try connection.execute("PRAGMA legacy_alter_table = ON") }
                defer { if !legacy { try? connection.execute("PRAGMA legacy_alter_table = OFF") } }
                try connection.execute("ALTER TABLE " + quoteIdentifier(rebuilt.name) + " RENAME TO " + quoteIdentifier(outbox.name))
                try state.set(sequenceFloorKey, .integer(floor), connection)
            },
            .init(4) { connection in
                try connection.execute(TableDefinition.addColumnSQL(table: refused.name, column: refusedRules))
            }
        ], store: SyncBookkeepingVersion(table: state, legacyVersion: replicaLegacyVersion),
        // Runs inside the app's transaction; the steps drop only the outbox, which nothing references.
        stepsMayRebuildTables: false)

    /// Version 3's outbox: the sequence is the rowid, given by ``SyncOutbox/append(_:)``.
    static let outboxWithoutAutoincrement = TableDefinition(
        prefix + "outbox",
        columns: [
            .init("sequence", type: "INTEGER", [.primaryKey()]),
            .init("changeset", type: "BLOB", [.notNull()])
        ], ifNotExists: true)

    /// The state key of the highest sequence that ever left the outbox; a new entry's is above it.
    static let sequenceFloorKey = "sequence_floor"

    /// A replica made before versions were recorded, known by its shape (once: then recorded).
    private static func replicaLegacyVersion(_ connection: Connection) throws -> Int64 {
        guard try connection.schemaReader.table(named: outbox.name) != nil else { return 0 }
        return try hasColumn(inflight.name, inflightChain.name, connection) ? 2 : 1
    }

    // MARK: The hub's tables (one set per space file)

    /// What the hub applied, in order: the versions replicas pull.
    static let log = TableDefinition(
        prefix + "log",
        columns: [
            .init("version", type: "INTEGER", [.primaryKey(autoincrement: true)]),
            .init("replica", type: "TEXT", [.notNull()]),
            .init("sequence", type: "INTEGER", [.notNull()]),
            .init("changeset", type: "BLOB", [.notNull()])
        ], ifNotExists: true)
    /// Version 2: when the hub applied the entry (seconds since 1970), for trimming by age.
    static let logAt = TableDefinition.Column("at", type: "INTEGER", [.notNull(), .defaultValue(.integer(0))])
    /// Version 3: the chain over the log up to the entry.
    static let logChain = TableDefinition.Column("chain", type: "INTEGER")
    /// Which (replica, sequence) entries the hub applied, at which version, with the conflicts
    /// its policy settled: a retried push is answered from here.
    static let applied = keyedTable(
        "applied", ["replica": "TEXT", "sequence": "INTEGER", "version": "INTEGER", "conflicts": "TEXT"],
        key: ["replica", "sequence"])
    /// Version 4: the entry's content digest, to tell a retry from another database's entry.
    static let appliedDigest = TableDefinition.Column("digest", type: "INTEGER")
    /// The hub's chain, trim horizon and schema version.
    static let meta = SyncKeyValues(prefix + "meta")
    /// Version 4: each schema version's tables (their width and signature).
    static let schema = keyedTable(
        "schema", ["version": "INTEGER", "name": "TEXT", "columns": "INTEGER", "signature": "TEXT"],
        key: ["version", "name"])

    /// Version 5: the bucket instances (JSON) each replica's user had at the versions the hub
    /// answered it at, under a rules version: a pull after one of them sends the moves between
    /// that view and the current one.
    static let views = keyedTable(
        "views", ["replica": "TEXT", "user": "TEXT", "version": "INTEGER", "rules": "INTEGER", "instances": "BLOB"],
        key: ["replica", "user", "version"])

    /// Version 6: the routes each logged entry is filed under (``LogRoutes``), so a pull with a
    /// view reads only the entries of its buckets' instances.
    static let routes = keyedTable("log_routes", ["route": "BLOB", "version": "INTEGER", "row": "BLOB"], key: ["route", "version", "row"])

    /// A hub table of NOT NULL columns (name and type, in order), WITHOUT ROWID and keyed by `key`.
    private static func keyedTable(_ name: String, _ columns: KeyValuePairs<String, String>, key: [String]) -> TableDefinition {
        TableDefinition(
            prefix + name, columns: columns.map { .init($0.key, type: $0.value, [.notNull()]) },
            constraints: [.primaryKey(key)], options: .withoutRowID, ifNotExists: true)
    }

    static let hub = VersionedMigration(
        steps: [
            .init(1) { connection in
                for table in [log, applied, meta.definition] { try connection.execute(table.sql) }
            },
            .init(2) { connection in try connection.execute(TableDefinition.addColumnSQL(table: log.name, column: logAt)) },
            .init(3) { connection in try connection.execute(TableDefinition.addColumnSQL(table: log.name, column: logChain)) },
            .init(4) { connection in
                try connection.execute(TableDefinition.addColumnSQL(table: applied.name, column: appliedDigest))
                try connection.execute(schema.sql)
                // What the space holds now is its schema version 1.
                try SpaceSchemaHistory.record(version: 1, connection)
            },
            .init(5) { connection in try connection.execute(views.sql) },
            .init(6) { connection in try connection.execute(routes.sql) }
        ], store: SyncBookkeepingVersion(table: meta, legacyVersion: hubLegacyVersion), stepsMayRebuildTables: false)

    /// A space made before versions were recorded, known by its shape (once: then recorded).
    private static func hubLegacyVersion(_ connection: Connection) throws -> Int64 {
        guard try connection.schemaReader.table(named: log.name) != nil else { return 0 }
        guard try hasColumn(log.name, logAt.name, connection) else { return 1 }
        guard try hasColumn(log.name, logChain.name, connection) else { return 2 }
        guard try hasColumn(applied.name, appliedDigest.name, connection),
            try connection.schemaReader.table(named: schema.name) != nil
        else { return 3 }
        return 4
    }

    private static func hasColumn(_ table: String, _ column: String, _ connection: Connection) throws -> Bool {
        try connection.schemaReader.columns(ofTable: table).contains { $0.name.lowercased() == column }
    }
}

/// A bookkeeping table of keys and values (`key TEXT PRIMARY KEY, value`, WITHOUT ROWID).
struct SyncKeyValues: Sendable {
    let definition: TableDefinition
    /// The statements' text, rendered once: the hub reads and writes its chain for every entry.
    private let selectSQL: String
    private let upsertSQL: String

    init(_ name: String) {
        definition = TableDefinition(
            name, columns: [.init("key", type: "TEXT", [.primaryKey()]), .init("value")],
            options: .withoutRowID, ifNotExists: true)
        selectSQL = "SELECT value FROM \(quoteIdentifier(name)) WHERE key = ?"
        upsertSQL = StatementClauses.insert(into: name, columns: ["key", "value"], onConflict: .updateAll(conflictTarget: ["key"])).sql
    }

    func exists(_ connection: Connection) throws -> Bool {
        try connection.schemaReader.table(named: definition.name) != nil
    }

    func value<Value: Extractable>(_ key: String, _ connection: Connection) throws -> Value? where Value.DataType == Value {
        try connection.query(literal: SQLFragment(sql: selectSQL, arguments: [.text(key)]))
    }

    func set(_ key: String, _ value: BindingValue, _ connection: Connection) throws {
        try connection.run(literal: SQLFragment(sql: upsertSQL, arguments: [.text(key), value]))
    }
}

/// The bookkeeping's version, under the key `bookkeeping_version` of its own key-value table;
/// a database from before versions were kept is recognized by its shape.
struct SyncBookkeepingVersion: MigrationVersionStore {
    let table: SyncKeyValues
    let legacyVersion: @Sendable (Connection) throws -> Int64
    private static let key = "bookkeeping_version"

    func currentVersion(_ connection: Connection) throws -> Int64 {
        if try table.exists(connection), let version: Int64 = try table.value(Self.key, connection) { return version }
        return try legacyVersion(connection)
    }

    func record(_ version: Int64, _ connection: Connection) throws {
        try connection.execute(table.definition.sql)
        try table.set(Self.key, .integer(version), connection)
    }
}
