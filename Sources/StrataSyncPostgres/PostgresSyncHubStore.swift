// The hub's store on PostgreSQL (behind the package trait `Hub`): each space a schema holding
// its tables as PostgreSQL tables a backend can query, beside the log, the applied entries, the
// meta values and the space's SQLite definitions. A space's writes are serialized across hub
// processes by an advisory lock per space; commits are announced with NOTIFY.
#if Hub
import Foundation
import Logging
import PostgresNIO
import Strata
import StrataSync

extension SyncHubStore {
    /// PostgreSQL at `url` (`postgres://user[:password]@host[:port]/database`): each space a
    /// schema of that name, its tables PostgreSQL tables with the same names, keys and columns
    /// (see <doc:ChoosingAHubStore> for the type mapping), its log and applied entries beside
    /// them. Several hub processes may share the database.
    ///
    /// ```swift
    /// let hub = try SyncHub(store: .postgres(url: "postgres://hub@127.0.0.1:5432/sync"))
    /// ```
    /// - Throws: ``PostgresHubError/invalidURL(_:)``; the server's error when it refuses the
    ///   login. A server that cannot be reached yet is not an error here: the hub's calls throw
    ///   `SyncHubStoreUnavailable` until it answers.
    public static func postgres(url: String) throws -> SyncHubStore {
        SyncHubStore(storage: try PostgresHubStorage(url: url))
    }

    /// A store whose pushes batch as `batching` says: what the differential test compares.
    package static func postgres(url: String, batching: PostgresPushBatching) throws -> SyncHubStore {
        SyncHubStore(storage: try PostgresHubStorage(url: url, batching: batching))
    }
}

/// The channel a commit is announced on (payload: `<version> <space>`).
let notifyChannel = "strata_sync"

/// The store: one connection for the hub's work (one call at a time), one that listens.
final class PostgresHubStorage: SyncHubStorage {
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    let url: String
    /// The working connection and the spaces opened so far (their SQLite definitions).
    // Locked holds a non-Sendable `Connection` per space: every use is under its lock.
    let state = Locked<State>(State())
    let listener = Locked<PostgresConnection?>(nil)

    struct State {
        var connection: PostgresConnection?
        var spaces: [String: PostgresSpace] = [:]
    }

    /// Whether a push of a space without rules is applied as a batch (PostgresPushBatch.swift).
    let batching: PostgresPushBatching

    init(url: String, batching: PostgresPushBatching = .whereExact) throws {
        self.url = url
        self.batching = batching
        configuration = try Self.configuration(url: url)
        var logger = Logger(label: "strata.sync.postgres")
        logger.logLevel = .critical
        self.logger = logger
        // A server that cannot be reached yet (starting, restarting, a deploy that brings the hub
        // up first) does not stop the hub: its calls fail with SyncHubStoreUnavailable (HTTP 503,
        // which replicas retry) and the next call connects again. A login the server refuses is
        // a mistake to report at once.
        do {
            try state.withLock { state in _ = try self.connection(&state) }
        } catch let unavailable as SyncHubStoreUnavailable {
            logger.warning("strata-sync: \(unavailable.reason); the hub starts and connects when PostgreSQL answers")
        }
    }

    deinit {
        let connections = [state.withLock { $0.connection }, listener.withLock { $0 }]
        for connection in connections.compactMap({ $0 }) {
            // Kept until closed: a connection released while it closes stops a debug build.
            let closed: EventLoopFuture<Void> = connection.close()
            closed.whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    var description: String {
        "PostgreSQL \(configuration.host ?? "?"):\(configuration.port ?? 5432)/\(configuration.database ?? "")"
    }

    static func configuration(url: String) throws -> PostgresConnection.Configuration {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else {
            throw PostgresHubError.invalidURL(url)
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        return PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password, database: database.isEmpty ? user : database,
            tls: .disable)
    }

    /// The working connection, opened again when it was closed.
    func connection(_ state: inout State) throws -> PostgresLink {
        if let connection = state.connection, !connection.isClosed { return PostgresLink(connection: connection, logger: logger) }
        let connection = try connect(id: 1)
        state.connection = connection
        // The spaces' definitions are read again (another process may have changed them).
        state.spaces = [:]
        return PostgresLink(connection: connection, logger: logger)
    }

    /// A new connection; a server that cannot be reached (down, restarting) is
    /// `SyncHubStoreUnavailable`, one that refuses the login its own error.
    func connect(id: Int) throws -> PostgresConnection {
        do {
            return try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
                id: id, logger: logger
            ).wait()
        } catch {
            let converted = PostgresHubError.from(error)
            if converted is PostgresHubError || converted is SyncHubStoreUnavailable { throw converted }
            throw SyncHubStoreUnavailable(reason: "cannot connect to \(description): \(String(reflecting: error))")
        }
    }

    /// Runs `body` on the working connection; after a failure that passes, the connection is
    /// closed (its session may be mid-transaction or gone) and the next call opens another.
    func withLink<T>(_ body: (inout State, PostgresLink) throws -> T) throws -> T {
        try state.withLock { state in
            let link = try connection(&state)
            do {
                return try body(&state, link)
            } catch let error as SyncHubStoreUnavailable {
                if let connection = state.connection {
                    state.connection = nil
                    let closed: EventLoopFuture<Void> = connection.close()
                    closed.whenComplete { _ in withExtendedLifetime(connection) {} }
                }
                throw error
            }
        }
    }

    /// Thrown inside ``verifyRules(_:schema:)``'s transaction to roll it back.
    private struct ScratchRolledBack: Error {}

    func verifyRules(_ rules: InitialSpaceRules, schema: (Connection) throws -> Void) throws {
        // A scratch space made and planned in one transaction, always rolled back.
        let name = "strata_rules_check_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        do {
            try createSpace(name, schema: schema, rules: rules, keep: false)
        } catch is ScratchRolledBack {
        }
    }

    func createSpace(_ name: String, schema: (Connection) throws -> Void, rules: InitialSpaceRules?) throws {
        try createSpace(name, schema: schema, rules: rules, keep: true)
    }

    /// Creates the space, or (`keep` false) does all of it in a transaction it rolls back.
    private func createSpace(_ name: String, schema: (Connection) throws -> Void, rules: InitialSpaceRules?, keep: Bool) throws {
        try checkSpaceName(name)
        // The space's SQLite definitions, and the hub's bookkeeping (its schema history), in a
        // database of their own: kept as an image in PostgreSQL, read when the space opens.
        let definitions = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
        try definitions.transaction {
            try schema(definitions)
            try HubSchema.prepareSpace(definitions)
        }
        let tables = try Self.tables(of: definitions)
        let image = try definitions.serialize()
        try withLink { state, link in
            let space = quotePostgresIdentifier(name)
            try link.transaction {
                try link.query("SELECT pg_advisory_xact_lock($1)", [spaceLockKey(name)])
                let exists = try link.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [name])
                guard exists.isEmpty else { throw SyncError.refused("the space \(name) exists already") }
                try link.query("CREATE SCHEMA " + space)
                for table in tables {
                    for statement in Self.createStatements(space: name, table: table) { try link.query(statement) }
                }
                try link.query(
                    """
                    CREATE TABLE \(space)."_strata_sync_log" (version bigint PRIMARY KEY, replica text NOT NULL,
                        sequence bigint NOT NULL, changeset bytea NOT NULL, at bigint NOT NULL, chain bigint NOT NULL)
                    """)
                try link.query(
                    """
                    CREATE TABLE \(space)."_strata_sync_applied" (replica text NOT NULL, sequence bigint NOT NULL,
                        version bigint NOT NULL, conflicts text NOT NULL, digest bigint, PRIMARY KEY (replica, sequence))
                    """)
                try link.query("CREATE TABLE \(space).\"_strata_sync_meta\" (key text PRIMARY KEY, value bigint NOT NULL)")
                try link.query(
                    """
                    CREATE TABLE \(space)."_strata_sync_definitions" (id integer PRIMARY KEY CHECK (id = 1), image bytea NOT NULL)
                    """)
                try link.query("INSERT INTO \(space).\"_strata_sync_definitions\" (id, image) VALUES (1, $1)", [image])
                for statement in Self.ruleTableStatements(space: name) { try link.query(statement) }
                for statement in Self.captureStatements(space: name, tables: tables) { try link.query(statement) }
                if let rules {
                    // Planned on the tables just made, in this transaction: rules PostgreSQL reads
                    // otherwise roll the whole space back.
                    try PostgresSpaceStorage.checkRules(rules.probes(.postgres), schema: name, on: link)
                    try link.query("INSERT INTO \(space).\"_strata_sync_rules\" (id, version, json) VALUES (1, 1, $1)", [rules.json])
                }
                if !keep { throw ScratchRolledBack() }
            }
            state.spaces[name] = PostgresSpace(name: name, definitions: definitions, tables: tables, schemaVersion: 1)
        }
    }

    /// The tables partial sync keeps per space: its rules (one row, with their version) and the
    /// bucket instances each replica's user was answered with, by hub version.
    static func ruleTableStatements(space: String) -> [String] {
        let schema = quotePostgresIdentifier(space)
        return [
            "CREATE TABLE IF NOT EXISTS \(schema).\"_strata_sync_rules\" (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL, json bytea)",
            "CREATE TABLE IF NOT EXISTS \(schema).\"_strata_sync_views\" (replica text NOT NULL, \"user\" text NOT NULL, version bigint NOT NULL, "
                + "rules bigint NOT NULL, instances bytea NOT NULL, PRIMARY KEY (replica, \"user\", version))",
            // The routes each logged entry is filed under (a log per bucket instance).
            "CREATE TABLE IF NOT EXISTS \(schema).\"_strata_sync_log_routes\" (route bytea NOT NULL, version bigint NOT NULL, "
                + "row bytea NOT NULL, PRIMARY KEY (route, version, row))"
        ]
    }

    /// The statements that make `table` in the space's schema, with its UNIQUE indexes.
    static func createStatements(space: String, table: PostgresTable) -> [String] {
        var parts = table.columns.map(columnDefinition)
        parts.append("PRIMARY KEY (" + table.keyColumns.map(quotePostgresIdentifier).joined(separator: ", ") + ")")
        return ["CREATE TABLE " + quotePostgresIdentifier(space) + "." + quotePostgresIdentifier(table.name) + " (" + parts.joined(separator: ", ") + ")"]
            + table.uniqueColumns.map { uniqueIndexStatement(space: space, table: table, columns: $0) }
    }

    static func columnDefinition(_ column: PostgresColumn) -> String {
        quotePostgresIdentifier(column.name) + " " + column.type.rawValue + (column.notNull ? " NOT NULL" : "")
            + (column.defaultLiteral.map { " DEFAULT " + $0 } ?? "")
    }

    /// UNIQUE as in the definitions: a clash with a row the entry does not touch is refused by
    /// PostgreSQL, as SQLite refuses it.
    static func uniqueIndexStatement(space: String, table: PostgresTable, columns: [String]) -> String {
        "CREATE UNIQUE INDEX ON " + quotePostgresIdentifier(space) + "." + quotePostgresIdentifier(table.name)
            + " (" + columns.map(quotePostgresIdentifier).joined(separator: ", ") + ")"
    }

    /// Refuses a space name PostgreSQL cannot hold as a schema of its own.
    func checkSpaceName(_ name: String) throws {
        try checkPostgresIdentifier(name)
        let lowered = name.lowercased()
        if lowered.hasPrefix("pg_") || lowered == "public" || lowered == "information_schema" {
            throw PostgresHubError.invalidIdentifier(name, reason: "PostgreSQL reserves it (pg_*, public, information_schema)")
        }
    }

    /// The user tables of a space's SQLite definitions, as PostgreSQL tables.
    static func tables(of definitions: Connection) throws -> [PostgresTable] {
        var tables: [PostgresTable] = []
        for name in try definitions.schemaReader.userTableNames() where !HubSchema.isBookkeeping(name) {
            try checkPostgresIdentifier(name)
            let columns = try definitions.schemaReader.columns(ofTable: name).filter { $0.hidden == 0 }.map { column in
                try checkPostgresIdentifier(column.name)
                let type = PostgresColumnType(declaredType: column.declaredType)
                return PostgresColumn(
                    name: column.name, type: type, notNull: column.notNull || column.primaryKeyIndex > 0,
                    keyIndex: column.primaryKeyIndex,
                    defaultLiteral: PostgresColumn.defaultLiteral(column.defaultValue, type: type))
            }
            let keys = columns.indices.filter { columns[$0].keyIndex > 0 }.sorted { columns[$0].keyIndex < columns[$1].keyIndex }
            guard !keys.isEmpty else { throw PostgresHubError.tableWithoutPrimaryKey(name) }
            // Unique indexes on plain columns (not the primary key's, not partial ones).
            var unique: [[String]] = []
            let indexes: [Row] = try definitions.query(
                literal: SQLFragment(
                    sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND origin <> 'pk' AND partial = 0", arguments: [.text(name)]))
            for index in indexes {
                guard let indexName: String = index.value(at: 0) else { continue }
                let names: [Row] = try definitions.query(
                    literal: SQLFragment(
                        sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [.text(indexName)]))
                let columns = names.map { $0.value(at: 0) as String? }
                guard !columns.isEmpty, columns.allSatisfy({ $0 != nil }) else { continue }
                unique.append(columns.compactMap { $0 })
            }
            tables.append(PostgresTable(name: name, columns: columns, keyPositions: keys, uniqueColumns: unique))
        }
        return tables
    }

    func spaceNames() throws -> [String] {
        try withLink { _, link in
            try link.query("SELECT schemaname FROM pg_tables WHERE tablename = '_strata_sync_definitions' ORDER BY schemaname COLLATE \"C\"")
                .map { try $0.decode(String.self) }
        }
    }

    func withSpace<T>(_ name: String, _ body: (any SyncSpaceStorage) throws -> T) throws -> T {
        try withLink { state, link in
            var attempts = 0
            while true {
                var space: PostgresSpace
                if let known = state.spaces[name] {
                    space = known
                } else {
                    space = try open(name, link)
                    state.spaces[name] = space
                }
                var storage = PostgresSpaceStorage(space: space, link: link, batching: batching)
                let (noted, schemaVersion) = try storage.look()
                if schemaVersion != space.schemaVersion {
                    // Migrated since it was read (here or by another hub process): read again, so
                    // every request runs on the space's current definitions.
                    space = try open(name, link)
                    state.spaces[name] = space
                    storage = PostgresSpaceStorage(space: space, link: link, batching: batching)
                }
                do {
                    // What a backend wrote since is logged first: every read and push sees it.
                    if noted { try storage.logBackendWrites() }
                    return try body(storage)
                } catch let error as SyncHubStoreUnavailable {
                    // A write found the space migrated by another process after the look above
                    // (its transaction rolled back): run the request again on the new definitions.
                    // When the look fails too (the connection is gone), the first failure is the one to report.
                    guard attempts < 2, let now = try? storage.look().schemaVersion, now != space.schemaVersion else { throw error }
                    attempts += 1
                    state.spaces[name] = nil
                }
            }
        }
    }

    /// Reads the space's definitions; ``SyncError/unknownSpace(_:)`` when there is no such space.
    func open(_ name: String, _ link: PostgresLink) throws -> PostgresSpace {
        let found = try link.query(
            """
            SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = '_strata_sync_definitions'
            """, [name])
        guard !found.isEmpty else { throw SyncError.unknownSpace(name) }
        // A space made before partial sync came to this store gets its rule tables, once, under
        // the space's lock (another process may be adding them too).
        let ruleTables = try link.query(
            "SELECT count(*) FROM pg_tables WHERE schemaname = $1 "
                + "AND tablename IN ('_strata_sync_rules', '_strata_sync_views', '_strata_sync_log_routes')", [name])
        if try ruleTables.first?.first?.decode(Int64.self) != 3 {
            try link.transaction {
                try link.query("SELECT pg_advisory_xact_lock($1)", [spaceLockKey(name)])
                for statement in Self.ruleTableStatements(space: name) { try link.query(statement) }
            }
        }
        let rows = try link.query("SELECT image FROM \(quotePostgresIdentifier(name)).\"_strata_sync_definitions\" WHERE id = 1")
        guard let cell = rows.first?.first else { throw SyncError.unknownSpace(name) }
        let definitions = try Connection(storageLocation: .inMemory, flags: OpenFlags.make())
        try definitions.deserialize(try cell.decode(Data.self))
        return PostgresSpace(
            name: name, definitions: definitions, tables: try Self.tables(of: definitions),
            schemaVersion: try HubSchema.version(definitions))
    }

    func withConnection<T>(_ name: String, _ body: (Connection) throws -> T) throws -> T {
        throw PostgresHubError.unsupported("SyncHub.withSpace (a SQLite connection on the space): query the space's schema in PostgreSQL")
    }

    func observeCommits(_ onCommit: @escaping @Sendable (String?, Int64) -> Void) {
        let listening = listen(onCommit, announce: false)
        let done = DispatchSemaphore(value: 0)
        listening.whenComplete { _ in done.signal() }
        // Not for ever: a LISTEN sent as the connection closed is never answered (that close
        // listens again anyway).
        guard done.wait(timeout: .now() + .seconds(15)) == .success else { return }
        do {
            try listening.wait()
        } catch {
            // Tried again in the background; meanwhile a long poll still ends at its timeout.
            logger.error("strata-sync: cannot listen for commits yet: \(error)")
        }
    }

    /// A listening connection, kept: when it closes (the server restarted, the session was
    /// ended) or cannot be opened, another listens in its place a moment later. `announce`: every
    /// space's long polls look again once it listens, since commits while nobody listened were
    /// not announced to this process.
    func listen(_ onCommit: @escaping @Sendable (String?, Int64) -> Void, announce: Bool) -> EventLoopFuture<Void> {
        let logger = self.logger
        let connecting = PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
            id: 2, logger: logger)
        connecting.whenFailure { [weak self] _ in self?.listenAgain(onCommit, after: .seconds(1)) }
        return connecting.flatMap { connection in
            connection.addListener(channel: notifyChannel) { _, notification in
                let parts = notification.payload.unicodeScalars.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let version = Int64(String(parts[0])) else { return }
                // -1: a backend wrote the space's tables; its entry is logged at the next look.
                onCommit(String(parts[1]), version < 0 ? .max : version)
            }
            self.listener.withLock { $0 = connection }
            // Watched before LISTEN is sent: a connection that closes at any point is replaced.
            connection.closeFuture.whenComplete { [weak self] _ in self?.listenAgain(onCommit, after: .milliseconds(200)) }
            let listened = connection.query(PostgresQuery(unsafeSQL: "LISTEN " + quotePostgresIdentifier(notifyChannel)), logger: logger)
            return listened.flatMapError { error in
                // Closed, so its close listens again.
                connection.close().flatMapThrowing { throw error }
            }.map { _ in
                if announce { onCommit(nil, .max) }
            }
        }
    }

    func listenAgain(_ onCommit: @escaping @Sendable (String?, Int64) -> Void, after delay: TimeAmount) {
        PostgresConnection.defaultEventLoopGroup.any().scheduleTask(in: delay) { [weak self] in
            _ = self?.listen(onCommit, announce: true)
        }
    }
}

/// The advisory lock key of a space, the same in every hub process: FNV-1a of its name.
func spaceLockKey(_ space: String) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in ("strata_sync:" + space).utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x100_0000_01b3
    }
    return Int64(bitPattern: hash)
}

/// A space as the store knows it: its SQLite definitions (also the scratch database the policies
/// run in) and its tables.
final class PostgresSpace {
    let name: String
    let definitions: Connection
    let tables: [PostgresTable]
    /// The schema version of `definitions`, compared with the one PostgreSQL records to see a
    /// migration made since they were read.
    let schemaVersion: Int
    /// The tables by name as SQLite compares names (ASCII letters folded, nothing else: `"Ä"`
    /// and `"ä"` are two tables, in SQLite and in PostgreSQL).
    let byName: [[UInt8]: PostgresTable]
    /// The definitions' triggers that write synced tables, by the list of synced tables (the
    /// definitions never change under this value: a migration makes a new one). Used, like
    /// `definitions`, only under the store's lock.
    var triggersWritingSynced: [[String]: [SyncTriggers.Trigger]] = [:]
    /// Whether a push of these synced tables may be batched (none has a unique index beside its
    /// primary key), by the list of synced tables; read like `triggersWritingSynced`.
    var batchable: [[String]: Bool] = [:]

    init(name: String, definitions: Connection, tables: [PostgresTable], schemaVersion: Int) {
        self.name = name
        self.definitions = definitions
        self.tables = tables
        self.schemaVersion = schemaVersion
        byName = Dictionary(tables.map { (IdentifierSet.key($0.name), $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// The working connection, answering one query at a time (the caller waits).
struct PostgresLink {
    let connection: PostgresConnection
    let logger: Logger

    @discardableResult
    func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        try answer(to: sql, binds).rows
    }

    /// The statement's result, or a failure once the connection is closed: postgres-nio never
    /// answers a statement sent on a connection that has closed (the server ended the session,
    /// e.g. in a fast shutdown, and a ROLLBACK followed), so a plain `wait()` would block the
    /// request, and the lock every request of the process takes, for ever.
    func answer(to sql: String, _ binds: PostgresBindings) throws -> PostgresQueryResult {
        try wait(for: connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger))
    }

    /// The answer `future` brings, or a failure once the connection is closed (see ``answer(to:_:)``).
    func wait(for future: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { _ in done.signal() }
        // A statement may wait long for a lock: only a closed connection ends the wait.
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if connection.isClosed, done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                throw SyncHubStoreUnavailable(reason: "the PostgreSQL connection closed while a statement ran")
            }
        }
        do {
            return try future.wait()
        } catch {
            throw PostgresHubError.from(error)
        }
    }

    @discardableResult
    func query(_ sql: String, _ values: [any PostgresThrowingDynamicTypeEncodable]) throws -> [PostgresRow] {
        var binds = PostgresBindings()
        for value in values { try binds.append(value) }
        return try query(sql, binds)
    }

    /// How many rows the statement changed.
    func run(_ sql: String, _ binds: PostgresBindings) throws -> Int {
        try answer(to: sql, binds).metadata.rows ?? 0
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try query(begin)
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
        try query("COMMIT")
        return result
    }
}
#endif
