// StrataSync's vocabulary: errors, conflict policies, the values and messages a transport carries.
import Foundation
import Strata

/// Why a sync step was refused. Each case says what to do in its description.
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The table has no primary key that is the same on every replica: none at all, or an
    /// `INTEGER PRIMARY KEY` that SQLite assigns per database (two replicas would both make row 1).
    case tableNeedsGlobalKey(table: String)
    /// Replica and hub disagree on the synced tables' definitions (each side's fingerprint).
    case schemaMismatch(local: String, remote: String)
    /// The hub has no space of that name.
    case unknownSpace(String)
    /// The hub refused the push or pull (a damaged request, a bad name, a limit).
    case refused(String)
    /// The hub refused one pending write (a foreign key, a constraint, its policy, or the write is
    /// larger than a push may carry): the write stays pending and the others sync around it; the
    /// app finds it in ``SyncReplica/pendingChanges`` and drops it with ``SyncReplica/discard(_:)``
    /// or writes a corrected one.
    case entryRefused(SyncRefusal)
    /// The hub already applied this replica's entry `sequence` with other content: another
    /// database pushes under the same replica ID (an old copy of the file, a second process with
    /// its own file under one name). Nothing was applied from the entry.
    case duplicateEntry(replicaID: String, sequence: Int64)
    /// A write put NULL in a key column of a synced table: SQLite allows it where the column is
    /// not declared NOT NULL, but such a row never syncs. Nothing was written.
    case nullKey(table: String, column: String)
    /// The hub did not answer (no connection, a timeout, a name that does not resolve) after
    /// every retry. Nothing is lost: the writes stay in the outbox for the next sync.
    case hubUnreachable(url: String, reason: String)
    /// ``SyncHub/migrateSpace(_:to:_:)`` refused a step: it would drop or rename what replicas
    /// on an earlier version still sync, or the version does not follow the space's. Nothing
    /// changed.
    case schemaChangeRefused(space: String, version: Int, reason: String)

    public var description: String {
        switch self {
        case .tableNeedsGlobalKey(let table):
            return "table \(table) cannot be synced: it needs a primary key that is unique across replicas (UUID text or blob, or a key the app assigns), not none or an INTEGER PRIMARY KEY that SQLite assigns"
        case .schemaMismatch(let local, let remote):
            return "the synced tables differ between this replica (\(local)) and the hub (\(remote)); migrate both to the same schema, then sync again"
        case .unknownSpace(let space):
            return "the hub has no space named \(space); create it with SyncHub.createSpace"
        case .refused(let reason):
            return "the hub refused: \(reason)"
        case .entryRefused(let refusal):
            return "\(refusal); the write stays pending while the others sync: find it in pendingChanges, then discard(_:) it or write a corrected one"
        case .duplicateEntry(let replica, let sequence):
            return "the hub has entry \(sequence) of replica \(replica) with other content: two databases push under one replica ID; give each database its own ID"
        case .schemaChangeRefused(let space, let version, let reason):
            return "migrating \(space) to version \(version) was refused: \(reason); nothing changed (add tables, columns with a default, or indexes; never drop or rename what replicas on earlier versions sync)"
        case .hubUnreachable(let url, let reason):
            return "cannot reach the hub at \(url): \(reason); the writes are kept in the outbox and go with the next sync"
        case .nullKey(let table, let column):
            return "the write puts NULL in \(table).\(column), a key column of a synced table: a row with a NULL key never syncs, so nothing was written (declare the column NOT NULL, or give every row a key)"
        }
    }
}

/// A pending write the hub would not apply, and why.
public struct SyncRefusal: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Why a write was refused.
    public enum Reason: String, Codable, Sendable, Equatable {
        /// It would leave a row referring to one that is not there (another replica deleted it).
        case foreignKey
        /// It breaks a constraint (a UNIQUE value another replica took, a CHECK, NOT NULL).
        case constraint
        /// The table's ``SyncPolicy/custom(_:)`` policy aborted it.
        case policy
        /// Its changeset is damaged.
        case damaged
        /// It is larger than a push may carry (``SyncReplicaSettings/maximumPushBytes``).
        case tooLarge
        /// It changes a row that an earlier refused write made or changed, so it waits for that
        /// write (applied alone it would do nothing, and be lost).
        case dependsOnRefused
    }
    /// The write's place in the replica's order (``SyncPendingChange/sequence``).
    public var sequence: Int64
    /// Why it was refused.
    public var reason: Reason
    /// The table of the refused row, where one row was refused.
    public var table: String?
    /// That row's key, one value per key column.
    public var key: [SyncValue]?
    /// What the hub said.
    public var message: String

    /// A refusal of the write `sequence`.
    public init(sequence: Int64, reason: Reason, table: String?, key: [SyncValue]?, message: String) {
        self.sequence = sequence; self.reason = reason; self.table = table; self.key = key; self.message = message
    }

    /// The refusal in words: which write, which row, why.
    public var description: String {
        var text = "write \(sequence) was refused (\(reason.rawValue))"
        if let table { text += " at \(table)" }
        if let key { text += " key \(key.map(\.description).joined(separator: ", "))" }
        return text + ": " + message
    }
}

/// The limits a hub keeps on what one request may carry.
public struct SyncLimits: Sendable, Equatable {
    /// Entries per push.
    public var maximumEntriesPerPush: Int
    /// Changeset bytes per push.
    public var maximumPushBytes: Int
    /// Entries per pull answer (a request asking for more gets this many).
    public var maximumEntriesPerPull: Int
    /// Changeset bytes per pull answer (at least one entry is always sent).
    public var maximumPullBytes: Int

    /// The defaults: 1,000 entries and 8 MiB both ways.
    public init(maximumEntriesPerPush: Int = 1_000, maximumPushBytes: Int = 8 << 20,
                maximumEntriesPerPull: Int = 1_000, maximumPullBytes: Int = 8 << 20) {
        self.maximumEntriesPerPush = maximumEntriesPerPush
        self.maximumPushBytes = maximumPushBytes
        self.maximumEntriesPerPull = maximumEntriesPerPull
        self.maximumPullBytes = maximumPullBytes
    }
}

/// A conflict the hub met applying a replica's change, for a ``SyncPolicy/custom(_:)`` policy.
public struct SyncConflict: Sendable {
    /// The replica whose change conflicts.
    public let replicaID: String
    /// The table of the row.
    public let table: String
    /// What SQLite found (`.data`: the row changed since the replica saw it; `.notFound`: it was
    /// deleted; `.conflict`: an insert met an existing key; `.constraint`, `.foreignKey`).
    public let kind: ConflictKind
    /// The replica's change (its old and new values, key columns marked).
    public let change: Change
    /// The hub's current row, where there is one.
    public let currentValues: [BindingValue?]?
}

/// How the hub settles a replica's change that conflicts with what it already has, per table.
///
/// Under both built-in policies a delete that arrives after an update of its row deletes it
/// (`.lastWriterWins`) or is dropped (`.hubWins`), and an update that arrives after its row was
/// deleted is dropped: the row stays deleted. Changes to different columns of one row never
/// conflict, since a changeset carries only the columns it changed.
public enum SyncPolicy: Sendable {
    /// The change that reaches the hub last wins.
    case lastWriterWins
    /// The hub's row stays; the replica's conflicting change is dropped and its row corrected.
    case hubWins
    /// A closure on the hub decides (`.replace` applies the replica's change, `.omit` drops it,
    /// `.abort` refuses the whole push).
    case custom(@Sendable (SyncConflict) -> ConflictResolution)
}

/// A value as a transport carries it (JSON for the network), storage class kept.
public enum SyncValue: Codable, Sendable, Equatable {
    /// SQL NULL.
    case null
    /// An INTEGER.
    case integer(Int64)
    /// A REAL (its bits travel exactly).
    case real(Double)
    /// TEXT.
    case text(String)
    /// A BLOB.
    case blob(Data)

    init(_ value: BindingValue?) {
        switch value {
        case .none, .null?: self = .null
        case .integer(let v)?: self = .integer(v)
        case .real(let v)?: self = .real(v)
        case .text(let v)?: self = .text(v)
        case .blob(let v)?: self = .blob(v)
        }
    }

    init(any value: Any?) {
        switch value {
        case let v as Int64: self = .integer(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Double: self = .real(v)
        case let v as String: self = .text(v)
        case let v as Data: self = .blob(v)
        default: self = .null
        }
    }

    var binding: BindingValue {
        switch self {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v.isNaN ? 0 : v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        }
    }

    // JSON has no infinities or -0.0 and loses Int64 precision: reals travel as their bits.
    private enum Key: String, CodingKey { case n, i, r, t, b }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let v = try c.decodeIfPresent(String.self, forKey: .i), let i = Int64(v) { self = .integer(i) }
        else if let v = try c.decodeIfPresent(String.self, forKey: .r), let bits = UInt64(v) { self = .real(Double(bitPattern: bits)) }
        else if let v = try c.decodeIfPresent(String.self, forKey: .t) { self = .text(v) }
        else if let v = try c.decodeIfPresent(Data.self, forKey: .b) { self = .blob(v) }
        else { self = .null }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .null: try c.encode(true, forKey: .n)
        case .integer(let v): try c.encode(String(v), forKey: .i)
        case .real(let v): try c.encode(String(v.bitPattern), forKey: .r)
        case .text(let v): try c.encode(v, forKey: .t)
        case .blob(let v): try c.encode(v, forKey: .b)
        }
    }
}

extension SyncValue: CustomStringConvertible {
    /// The value as SQL would spell it (text quoted, a blob in hex).
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return "'" + v + "'"
        case .blob(let v): return "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

/// One row as the hub has it after a push, sent back to the replica whose change conflicted:
/// `values` nil when the hub has no such row.
public struct SyncRow: Codable, Sendable, Equatable {
    /// The row's table.
    public var table: String
    /// The table's primary-key columns, in key order.
    public var keyColumns: [String]
    /// The row's key, one value per key column.
    public var key: [SyncValue]
    /// The stored columns, in table order.
    public var columns: [String]
    /// The row's values in `columns` order; nil when the hub has no such row.
    public var values: [SyncValue]?
}

/// One captured write transaction of a replica: its changeset and its place in the replica's order.
public struct SyncOutboxEntry: Codable, Sendable, Equatable {
    /// The entry's place in the replica's order (its outbox rowid).
    public var sequence: Int64
    /// The changeset's bytes.
    public var changeset: Data
    /// An outbox entry.
    public init(sequence: Int64, changeset: Data) { self.sequence = sequence; self.changeset = changeset }
}

/// One entry of a space's log: the change the hub made applying a replica's entry.
public struct SyncLogEntry: Codable, Sendable, Equatable {
    /// The hub version this entry made.
    public var version: Int64
    /// The replica whose push it applied.
    public var replicaID: String
    /// That push entry's sequence.
    public var sequence: Int64
    /// The change the hub made, as a changeset.
    public var changeset: Data
    /// The hub's log chain through this entry (a hash of every entry up to it), which the
    /// replica sends back with its cursor so that a hub restored to an older copy is noticed;
    /// nil from a hub that keeps none.
    public var chain: Int64?
    /// A log entry.
    public init(version: Int64, replicaID: String, sequence: Int64, changeset: Data, chain: Int64? = nil) {
        self.version = version; self.replicaID = replicaID; self.sequence = sequence; self.changeset = changeset; self.chain = chain
    }
}

/// A replica's push: its entries in order, for the space and tables whose schema it names.
public struct SyncPushRequest: Codable, Sendable {
    /// The space the entries are for.
    public var space: String
    /// The pushing replica's name.
    public var replicaID: String
    /// The synced tables the entries cover.
    public var tables: [String]
    /// The replica's fingerprint of those tables' definitions, which must match the hub's.
    public var schemaFingerprint: String
    /// The outbox entries, in sequence order.
    public var entries: [SyncOutboxEntry]
    /// A push of `entries` from `replicaID`.
    public init(space: String, replicaID: String, tables: [String], schemaFingerprint: String, entries: [SyncOutboxEntry]) {
        self.space = space; self.replicaID = replicaID; self.tables = tables
        self.schemaFingerprint = schemaFingerprint; self.entries = entries
    }
}

/// What the hub did with a push: every entry is acknowledged (applied now or before), with the
/// hub's rows where a conflict settled differently from the replica's change.
public struct SyncPushResponse: Codable, Sendable {
    /// The sequences the hub has applied (now or before).
    public var acknowledged: [Int64]
    /// Rows where the hub's policy settled a conflict otherwise than the replica's change.
    public var corrections: [SyncRow]
    /// The hub's newest version after the push.
    public var hubVersion: Int64
    /// The hub's log chain at `hubVersion` (nil from a hub that keeps none): a later pull that
    /// finds another chain there knows the hub was restored and may have lost this push.
    public var chain: Int64?
    /// The hub version each acknowledged entry was applied at, in `acknowledged` order (nil from
    /// a hub that sends none: then `hubVersion` stands for all). A pull page that ends between
    /// two of them holds the hub's account of the first and not yet of the second.
    public var versions: [Int64]?
    /// The entries the hub refused (not applied, not acknowledged; the others were).
    public var refused: [SyncRefusal]?
    /// A push's answer.
    public init(acknowledged: [Int64], corrections: [SyncRow], hubVersion: Int64, chain: Int64? = nil,
                versions: [Int64]? = nil, refused: [SyncRefusal]? = nil) {
        self.acknowledged = acknowledged; self.corrections = corrections; self.hubVersion = hubVersion; self.chain = chain
        self.versions = versions; self.refused = refused
    }
}

/// A replica's pull: log entries after `after`, at most `limit`.
public struct SyncPullRequest: Codable, Sendable {
    /// The space to pull from.
    public var space: String
    /// The pulling replica's name.
    public var replicaID: String
    /// The synced tables.
    public var tables: [String]
    /// The replica's fingerprint of those tables' definitions.
    public var schemaFingerprint: String
    /// The version the replica has pulled up to.
    public var after: Int64
    /// At most this many entries in the answer.
    public var limit: Int
    /// The log chain at `after` as this replica pulled it (nil: not checked). A hub whose chain
    /// there differs, or which has no `after` at all, was restored from an older copy.
    public var afterChain: Int64?
    /// The newest of this replica's sequences the hub acknowledged (nil: not checked). A hub that
    /// has no record of applying it was restored from a copy older than that acknowledgement,
    /// whatever its log shows (which may be trimmed).
    public var lastAcknowledged: Int64?
    /// A pull after `after`, at most `limit` entries.
    public init(space: String, replicaID: String, tables: [String], schemaFingerprint: String, after: Int64, limit: Int,
                afterChain: Int64? = nil, lastAcknowledged: Int64? = nil) {
        self.space = space; self.replicaID = replicaID; self.tables = tables
        self.schemaFingerprint = schemaFingerprint; self.after = after; self.limit = limit; self.afterChain = afterChain
        self.lastAcknowledged = lastAcknowledged
    }
}

/// The entries after the cursor, and the hub's newest version.
public struct SyncPullResponse: Codable, Sendable {
    /// The log entries after the cursor, in version order.
    public var entries: [SyncLogEntry]
    /// The hub's newest version.
    public var hubVersion: Int64
    /// The hub has trimmed the log entries after the cursor: the replica catches up from a
    /// ``SyncSnapshot`` instead (``SyncReplica/pull()`` does so by itself).
    public var snapshotNeeded: Bool
    /// The hub does not have the log this replica pulled up to (it was restored from an older
    /// copy, by Litestream say): the replica sends again what it pushed, then starts over from a
    /// snapshot (``SyncReplica/pull()`` does so by itself).
    public var hubRolledBack: Bool
    /// A pull's answer.
    public init(entries: [SyncLogEntry], hubVersion: Int64, snapshotNeeded: Bool = false, hubRolledBack: Bool = false) {
        self.entries = entries; self.hubVersion = hubVersion; self.snapshotNeeded = snapshotNeeded || hubRolledBack
        self.hubRolledBack = hubRolledBack
    }

    private enum CodingKeys: String, CodingKey { case entries, hubVersion, snapshotNeeded, hubRolledBack }

    // A hub from before log trimming sends no `snapshotNeeded`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decode([SyncLogEntry].self, forKey: .entries)
        hubVersion = try container.decode(Int64.self, forKey: .hubVersion)
        snapshotNeeded = try container.decodeIfPresent(Bool.self, forKey: .snapshotNeeded) ?? false
        hubRolledBack = try container.decodeIfPresent(Bool.self, forKey: .hubRolledBack) ?? false
    }
}

/// A replica's request for a snapshot of the synced tables, for the space and tables whose schema
/// it names.
public struct SyncSnapshotRequest: Codable, Sendable {
    /// The space to copy.
    public var space: String
    /// The asking replica's name.
    public var replicaID: String
    /// The synced tables.
    public var tables: [String]
    /// The replica's fingerprint of those tables' definitions.
    public var schemaFingerprint: String
    /// A request for a snapshot of `tables` of `space`.
    public init(space: String, replicaID: String, tables: [String], schemaFingerprint: String) {
        self.space = space; self.replicaID = replicaID; self.tables = tables; self.schemaFingerprint = schemaFingerprint
    }
}

/// A space's synced tables at one hub version: a SQLite database image holding those tables (and
/// none of the hub's log), which a replica copies from and then pulls after ``version``.
public struct SyncSnapshot: Sendable, Equatable {
    /// The hub version the image is at: every log entry up to it is in the image.
    public var version: Int64
    /// The image's bytes (as `Connection.serialize()` writes them).
    public var database: Data
    /// The hub's log chain at ``version`` (nil from a hub that keeps none).
    public var chain: Int64?
    /// A snapshot of the synced tables at `version`.
    public init(version: Int64, database: Data, chain: Int64? = nil) { self.version = version; self.database = database; self.chain = chain }
}

/// Carries pushes and pulls to a hub: in process (``InProcessSyncTransport``) or over a network.
public protocol SyncTransport: Sendable {
    /// Sends a push to the hub and returns its answer.
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse
    /// Asks the hub for log entries after a version.
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse
    /// Downloads the synced tables as they are at the hub's newest version, for a new replica or
    /// one behind the hub's trimmed log.
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot
}

extension SyncTransport {
    /// A transport written before snapshots existed cannot fetch one: such a replica syncs only
    /// while the hub keeps the log after its cursor.
    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
        throw SyncError.refused("this transport (\(type(of: self))) cannot download a snapshot of \(request.space)")
    }
}

/// A transport to a hub in the same process.
public struct InProcessSyncTransport: SyncTransport {
    /// The hub every request goes to.
    public let hub: SyncHub
    /// A transport to `hub`.
    public init(hub: SyncHub) { self.hub = hub }
    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try hub.push(request) }
    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try hub.pull(request) }
    public func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try hub.snapshot(request) }
}

/// The synced tables' definitions as both sides read them (column names, declared types, key
/// positions, NOT NULL, defaults; not the SQL text, whose spacing may differ), as a short hash.
enum SchemaFingerprint {
    static func of(tables: [String], in connection: Connection) throws -> String {
        try hash(tables.map { try signature(of: $0, in: connection) })
    }

    /// One table's part of a fingerprint: its name and each column's definition, one a line.
    static func signature(of table: String, in connection: Connection) throws -> String {
        var text = "T:" + table.lowercased() + "\n"
        for column in try connection.schemaReader.columns(ofTable: table) where column.hidden == 0 {
            text += "\(column.name.lowercased())|\(column.declaredType.uppercased())|\(column.notNull)|\(column.primaryKeyIndex)|\(column.defaultValue ?? "-")\n"
        }
        return text
    }

    /// The fingerprint of tables given by their signatures (in any order).
    static func hash(_ signatures: [String]) throws -> String {
        // Each signature starts with its table's name, so sorting them sorts by name.
        let text = signatures.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined()
        var hash = FNV1a()
        hash.add(text.utf8)
        let hex = String(hash.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The key columns of a synced table, or the error that says why it cannot be synced.
    static func keyColumns(of table: String, in connection: Connection) throws -> [String] {
        let reader = connection.schemaReader
        guard try reader.table(named: table) != nil else { throw SyncError.refused("no table named \(table)") }
        let keys = try reader.columns(ofTable: table).filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        guard !keys.isEmpty, try reader.rowIDAliasColumn(ofTable: table) == nil else { throw SyncError.tableNeedsGlobalKey(table: table) }
        return keys.map(\.name)
    }
}

/// FNV-1a, 64 bits: the schema fingerprint and the hub's log chain (telling one history or schema
/// from another, not resisting an attacker).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }
    mutating func add(_ integer: Int64) { withUnsafeBytes(of: integer.littleEndian) { add($0) } }
}

/// The rows a changeset changes, as table and key: a write that touches one a refused write
/// touched waits for it.
func rowsTouched(by changeset: Data) -> Set<String> {
    var rows = Set<String>()
    // A changeset that does not parse is refused on its own; it holds nothing back.
    try? Changeset(data: changeset).forEachChange { change in
        let key = (try? JSONEncoder().encode(change.primaryKey.map { SyncValue($0) })) ?? Data()
        rows.insert(change.table.lowercased() + "\u{0}" + key.base64EncodedString())
    }
    return rows
}

/// A space name is a file name in the hub's folder: letters, digits, `-`, `_` and `.` only.
func validateSpaceName(_ name: String) throws {
    let allowed = name.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" || $0 == "." }
    guard !name.isEmpty, allowed, !name.hasPrefix(".") else {
        throw SyncError.refused("a space name must be letters, digits, '-', '_' and '.', not \(name.debugDescription)")
    }
}

extension Connection {
    /// The row of `table` whose key is `key`, every stored column, as the hub sends it back.
    func syncRow(table: String, keyColumns: [String], key: [SyncValue]) throws -> SyncRow {
        let columns = try schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)
        var fragment = SQLFragment(sql: "SELECT " + columns.map(quoteIdentifier).joined(separator: ", ") + " FROM " + quoteIdentifier(table) + " WHERE ")
        for (index, column) in keyColumns.enumerated() {
            fragment = fragment + SQLFragment(sql: (index == 0 ? "" : " AND ") + quoteIdentifier(column) + " IS ?", arguments: [key[index].binding])
        }
        let row: Row? = try query(literal: fragment)
        return SyncRow(table: table, keyColumns: keyColumns, key: key, columns: columns,
                       values: row.map { row in (0..<columns.count).map { SyncValue(any: row.value(at: $0)) } })
    }

    /// Makes the row as the hub has it: an upsert (not REPLACE, which would fire ON DELETE
    /// actions of foreign keys), or a delete when the hub has none.
    func applySyncRow(_ row: SyncRow) throws {
        guard let values = row.values else {
            var fragment = SQLFragment(sql: "DELETE FROM " + quoteIdentifier(row.table) + " WHERE ")
            for (index, column) in row.keyColumns.enumerated() {
                fragment = fragment + SQLFragment(sql: (index == 0 ? "" : " AND ") + quoteIdentifier(column) + " IS ?", arguments: [row.key[index].binding])
            }
            try run(literal: fragment)
            return
        }
        let others = row.columns.filter { column in !row.keyColumns.contains { $0.lowercased() == column.lowercased() } }
        var sql = "INSERT INTO " + quoteIdentifier(row.table) + "(" + row.columns.map(quoteIdentifier).joined(separator: ", ") + ") VALUES ("
            + row.columns.map { _ in "?" }.joined(separator: ", ") + ") ON CONFLICT(" + row.keyColumns.map(quoteIdentifier).joined(separator: ", ") + ") DO "
        sql += others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { quoteIdentifier($0) + " = excluded." + quoteIdentifier($0) }.joined(separator: ", ")
        try run(literal: SQLFragment(sql: sql, arguments: values.map(\.binding)))
    }
}
