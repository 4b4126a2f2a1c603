// The hub: the authoritative copy of each space, an append-only log of the changes it applied,
// and the record of which (replica, sequence) entries it has applied, so a retried push is applied
// once.
import Foundation
import Strata

// Changesets compile where Strata links its SQLite shim (not yet on Apple platforms, whose SDK
// header declares no session functions though the library exports them).
#if !canImport(Darwin)

/// The server side of sync: one SQLite file per space in a folder, each holding the space's
/// tables, a log numbered by hub version, and the entries applied so far.
///
/// ```swift
/// let hub = try SyncHub(directory: hubFolder)
/// try hub.createSpace("team") { db in try db.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
/// hub.setPolicy(.lastWriterWins, forTable: "todo")
/// ```
/// A push is applied entry by entry, each in one transaction under the table's ``SyncPolicy``
/// with foreign keys enforced; a damaged or foreign-key-violating entry refuses the push from
/// there on, and the replica keeps it.
public final class SyncHub: Sendable {
    /// The folder holding one `<space>.sqlite` per space.
    public let directory: URL
    private let spaces = Locked<[String: ConnectionQueue]>([:])
    private let policies = Locked<[String: SyncPolicy]>([:])

    /// Opens the hub in `directory`, creating the folder if needed.
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Opens the hub in the folder at `directory` (a path), creating it if needed.
    public convenience init(directory: String) throws {
        try self.init(directory: URL(fileURLWithPath: directory))
    }

    /// Creates the space `name`: `schema` makes its tables, which replicas must match.
    /// - Throws: ``SyncError/refused(_:)`` for a bad name or an existing space; what `schema`
    ///   throws (then no space is created).
    public func createSpace(_ name: String, schema: (Connection) throws -> Void) throws {
        try validateSpaceName(name)
        let url = fileURL(of: name)
        guard !FileManager.default.fileExists(atPath: url.path) else { throw SyncError.refused("the space \(name) exists already") }
        do {
            let connection = try Connection(storageLocation: .onDisk(url.path))
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.transaction {
                try schema(connection)
                try connection.execute("""
                    CREATE TABLE \(syncTablePrefix)log(version INTEGER PRIMARY KEY AUTOINCREMENT, replica TEXT NOT NULL, sequence INTEGER NOT NULL, changeset BLOB NOT NULL);
                    CREATE TABLE \(syncTablePrefix)applied(replica TEXT NOT NULL, sequence INTEGER NOT NULL, version INTEGER NOT NULL, conflicts TEXT NOT NULL, PRIMARY KEY(replica, sequence)) WITHOUT ROWID;
                    """)
            }
            try connection.execute("PRAGMA foreign_keys = ON")
            spaces.withLock { $0[name] = ConnectionQueue(connection: connection) }
        } catch {
            try? FileManager.default.removeItem(at: url)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            throw error
        }
    }

    /// Settles conflicts on `table` by `policy` from now on (`.lastWriterWins` until set).
    public func setPolicy(_ policy: SyncPolicy, forTable table: String) {
        policies.withLock { $0[table.lowercased()] = policy }
    }

    /// The space's newest version (0 before any change).
    public func version(ofSpace name: String) throws -> Int64 {
        try queue(of: name).execute { try Self.currentVersion($0) }
    }

    /// Runs `body` on the space's connection (to read the hub's state, or migrate it).
    public func withSpace<T>(_ name: String, _ body: (Connection) throws -> T) throws -> T {
        try queue(of: name).execute(closure: body)
    }

    // MARK: - Serving replicas

    /// Applies a replica's entries in order (each once), and acknowledges them.
    public func push(_ request: SyncPushRequest) throws -> SyncPushResponse {
        let queue = try queue(of: request.space)
        let policies = self.policies.current
        return try queue.execute { connection in
            try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            var acknowledged: [Int64] = []
            var corrections: [SyncRow] = []
            for entry in request.entries {
                let conflicts = try Self.apply(entry, from: request.replicaID, tables: request.tables, policies: policies, on: connection)
                acknowledged.append(entry.sequence)
                for (table, key) in conflicts {
                    let keyColumns = try SchemaFingerprint.keyColumns(of: table, in: connection)
                    corrections.append(try connection.syncRow(table: table, keyColumns: keyColumns, key: key))
                }
            }
            return SyncPushResponse(acknowledged: acknowledged, corrections: corrections, hubVersion: try Self.currentVersion(connection))
        }
    }

    /// The log entries after the request's cursor.
    public func pull(_ request: SyncPullRequest) throws -> SyncPullResponse {
        try queue(of: request.space).execute { connection in
            try Self.checkSchema(request.tables, request.schemaFingerprint, connection)
            let rows: [Row] = try connection.query(literal: """
                SELECT version, replica, sequence, changeset FROM \(identifier: syncTablePrefix + "log")
                WHERE version > \(request.after) ORDER BY version LIMIT \(max(1, request.limit))
                """)
            let entries = rows.map { row in
                SyncLogEntry(version: row.value(at: 0) ?? 0, replicaID: row.value(at: 1) ?? "", sequence: row.value(at: 2) ?? 0,
                             changeset: row.value(at: 3) ?? Data())
            }
            return SyncPullResponse(entries: entries, hubVersion: try Self.currentVersion(connection))
        }
    }

    // MARK: - Internals

    private func fileURL(of space: String) -> URL { directory.appendingPathComponent(space + ".sqlite") }

    private func queue(of name: String) throws -> ConnectionQueue {
        try validateSpaceName(name)
        return try spaces.withLock { spaces in
            if let queue = spaces[name] { return queue }
            let url = fileURL(of: name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw SyncError.unknownSpace(name) }
            let connection = try Connection(storageLocation: .onDisk(url.path))
            try connection.execute("PRAGMA foreign_keys = ON")
            guard try connection.schemaReader.table(named: syncTablePrefix + "log") != nil else { throw SyncError.unknownSpace(name) }
            let queue = ConnectionQueue(connection: connection)
            spaces[name] = queue
            return queue
        }
    }

    private static func currentVersion(_ connection: Connection) throws -> Int64 {
        try connection.query(literal: "SELECT coalesce(max(version), 0) FROM \(identifier: syncTablePrefix + "log")") ?? 0
    }

    private static func checkSchema(_ tables: [String], _ fingerprint: String, _ connection: Connection) throws {
        for table in tables {
            guard !table.lowercased().hasPrefix(syncTablePrefix) else { throw SyncError.refused("\(table) is the sync engine's own table") }
            guard try connection.schemaReader.table(named: table) != nil else {
                throw SyncError.schemaMismatch(local: fingerprint, remote: "no table \(table)")
            }
        }
        let ours = try SchemaFingerprint.of(tables: tables, in: connection)
        guard ours == fingerprint else { throw SyncError.schemaMismatch(local: fingerprint, remote: ours) }
    }

    /// Applies one entry in one transaction, unless it was applied before; returns the rows whose
    /// conflicts the policy settled otherwise than by the replica's change.
    private static func apply(_ entry: SyncOutboxEntry, from replica: String, tables: [String], policies: [String: SyncPolicy],
                              on connection: Connection) throws -> [(String, [SyncValue])] {
        let applied: String? = try connection.query(literal: """
            SELECT conflicts FROM \(identifier: syncTablePrefix + "applied") WHERE replica = \(replica) AND sequence = \(entry.sequence)
            """)
        if let applied { return decodeConflicts(applied) }
        var settled: [(String, [SyncValue])] = []
        do {
            try connection.transaction(transactionType: .immediate) {
                let session = try connection.recordChanges(tables: tables)
                defer { session.close() }
                let synced = Set(tables.map { $0.lowercased() })
                try connection.apply(Changeset(data: entry.changeset), filter: { synced.contains($0.lowercased()) }) { conflict in
                    let resolution = try resolve(conflict, replica: replica, policies: policies)
                    if conflict.kind != .foreignKey, conflict.kind != .constraint {
                        settled.append((conflict.change.table, conflict.change.primaryKey.map { SyncValue($0) }))
                    }
                    return resolution
                }
                let made = try session.changeset()
                var version: Int64 = try currentVersion(connection)
                if !made.isEmpty {
                    try connection.run(literal: """
                        INSERT INTO \(identifier: syncTablePrefix + "log")(replica, sequence, changeset) VALUES (\(replica), \(entry.sequence), \(made.data))
                        """)
                    version = connection.lastInsertRowID
                }
                try connection.run(literal: """
                    INSERT INTO \(identifier: syncTablePrefix + "applied")(replica, sequence, version, conflicts)
                    VALUES (\(replica), \(entry.sequence), \(version), \(encodeConflicts(settled)))
                    """)
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.refused("entry \(entry.sequence) of \(replica) was not applied: \(error)")
        }
        return settled
    }

    private static func resolve(_ conflict: Conflict, replica: String, policies: [String: SyncPolicy]) throws -> ConflictResolution {
        switch conflict.kind {
        case .foreignKey:
            throw SyncError.refused("the change would break a foreign key (\(conflict.foreignKeyViolations) violation(s)); the replica keeps it")
        case .constraint:
            throw SyncError.refused("the change to \(conflict.change.table) breaks a constraint")
        default:
            break
        }
        switch policies[conflict.change.table.lowercased()] ?? .lastWriterWins {
        case .lastWriterWins:
            return conflict.kind == .notFound ? .omit : .replace
        case .hubWins:
            return .omit
        case .custom(let decide):
            let resolution = decide(SyncConflict(replicaID: replica, table: conflict.change.table, kind: conflict.kind,
                                                 change: conflict.change, currentValues: conflict.currentValues))
            if resolution == .abort { throw SyncError.refused("the hub's policy for \(conflict.change.table) refused the change") }
            return conflict.kind == .notFound ? .omit : resolution
        }
    }

    private static func encodeConflicts(_ conflicts: [(String, [SyncValue])]) -> String {
        struct Item: Codable { var table: String; var key: [SyncValue] }
        let data = (try? JSONEncoder().encode(conflicts.map { Item(table: $0.0, key: $0.1) })) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func decodeConflicts(_ text: String) -> [(String, [SyncValue])] {
        struct Item: Codable { var table: String; var key: [SyncValue] }
        let items = (try? JSONDecoder().decode([Item].self, from: Data(text.utf8))) ?? []
        return items.map { ($0.table, $0.key) }
    }
}
#endif
