// The replica's side of the bookkeeping: the outbox of captured writes, the acknowledged ones
// waiting for their pull (`inflight`), the recently sent ones a restored hub may need again
// (`sent`), the hub's refusals, and the replica's state. Every statement on those tables is here.
import Foundation
import Strata

/// The replica's outbox and what goes with it, in one connection's database.
struct SyncOutbox {
    let connection: Connection

    init(_ connection: Connection) { self.connection = connection }

    private typealias Tables = SyncBookkeeping

    /// Creates or upgrades the tables; inside the caller's transaction when one is open.
    func prepare() throws { try Tables.replica.migrate(connection) }

    /// Whether this database was ever a replica.
    func exists() throws -> Bool { try connection.schemaReader.table(named: Tables.outbox.name) != nil }

    // MARK: State

    func state<Value: Extractable>(_ key: String) throws -> Value? where Value.DataType == Value {
        guard try Tables.state.exists(connection) else { return nil }
        return try Tables.state.value(key, connection)
    }

    func setState(_ key: String, _ value: BindingValue) throws { try Tables.state.set(key, value, connection) }

    // MARK: Pending writes

    /// Adds a captured write; its sequence is the next of this database's, never reused: above
    /// every pending one and above the floor every entry raised when it left the outbox. Reads
    /// only (no counter row written), so a captured commit writes one page more than a plain one.
    func append(_ changeset: Changeset) throws {
        // Bound straight onto the cached statement's handle: no SQL hashed and no `Statement` or
        // boxed arguments per captured commit.
        try connection.runCachedStatement(Self.appendKey, arguments: [.text(Tables.sequenceFloorKey), .blob(changeset.data)])
    }

    /// Built once, and filed in the statement cache under a key of its own: every captured commit
    /// runs it, and rendering or hashing its text each time was a fifth of its cost.
    private static let appendKey = StatementCacheKey(reusing: appendSQL)

    private static let appendSQL = """
        INSERT INTO \(quoteIdentifier(Tables.outbox.name))(sequence, changeset) VALUES (
            max(coalesce((SELECT max(sequence) FROM \(quoteIdentifier(Tables.outbox.name))), 0),
                coalesce((SELECT value FROM \(quoteIdentifier(Tables.state.definition.name)) WHERE key = ?1), 0)) + 1,
            ?2)
        """

    /// Raises the floor to `sequence`, which leaves the outbox now, so it is never given again.
    private func leaving(_ sequence: Int64) throws {
        try connection.run(
            literal: SQLFragment(
                sql: """
                    INSERT INTO \(quoteIdentifier(Tables.state.definition.name))(key, value) VALUES (?, ?)
                    ON CONFLICT(key) DO UPDATE SET value = max(coalesce(value, 0), excluded.value)
                    """, arguments: [.text(Tables.sequenceFloorKey), .integer(sequence)]))
    }

    func count() throws -> Int {
        try connection.query(literal: "SELECT count(*) FROM \(identifier: Tables.outbox.name)") ?? 0
    }

    func isPending(_ sequence: Int64) throws -> Bool {
        try connection.query(literal: "SELECT count(*) FROM \(identifier: Tables.outbox.name) WHERE sequence = \(sequence)") ?? 0 == 1
    }

    /// The oldest and newest pending sequences (nil when nothing is pending).
    func pendingRange() throws -> (first: Int64, last: Int64)? {
        let row: Row? = try connection.query(literal: "SELECT min(sequence), max(sequence) FROM \(identifier: Tables.outbox.name) WHERE true")
        guard let row, let first: Int64 = row.value(at: 0), let last: Int64 = row.value(at: 1) else { return nil }
        return (first, last)
    }

    func sequences() throws -> [Int64] {
        try connection.query(literal: "SELECT sequence FROM \(identifier: Tables.outbox.name) ORDER BY sequence")
    }

    /// Up to `limit` pending writes after `sequence`, in order.
    func entries(after sequence: Int64, limit: Int) throws -> [SyncOutboxEntry] {
        let rows: [Row] = try connection.query(
            literal: """
                SELECT sequence, changeset FROM \(identifier: Tables.outbox.name) WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)
                """)
        return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
    }

    /// The pending writes with the hub's refusal of each, as JSON, where it refused one.
    func pendingWithRefusals() throws -> [(sequence: Int64, changeset: Data, refusal: String?)] {
        let rows: [Row] = try connection.query(
            literal: """
                SELECT o.sequence, o.changeset, r.refusal FROM \(identifier: Tables.outbox.name) AS o
                LEFT JOIN \(identifier: Tables.refused.name) AS r ON r.sequence = o.sequence ORDER BY o.sequence
                """)
        return rows.map { ($0.value(at: 0) ?? 0, $0.value(at: 1) ?? Data(), $0.value(at: 2)) }
    }

    /// Keeps the hub's refusal of a write that is still pending, with the rules version it was
    /// made under.
    func recordRefusal(sequence: Int64, json: String, rules: Int64? = nil) throws {
        guard try isPending(sequence) else { return }
        try connection.run(
            literal: """
                INSERT OR REPLACE INTO \(identifier: Tables.refused.name)(sequence, refusal, rules) VALUES (\(sequence), \(json), \(rules))
                """)
    }

    /// The recorded refusals of pending writes, as JSON, by sequence.
    func refusals() throws -> [Int64: String] {
        let rows: [Row] = try connection.query(
            literal: """
                SELECT r.sequence, r.refusal FROM \(identifier: Tables.refused.name) AS r
                JOIN \(identifier: Tables.outbox.name) AS o ON o.sequence = r.sequence
                """)
        var refusals: [Int64: String] = [:]
        for row in rows {
            if let sequence: Int64 = row.value(at: 0), let json: String = row.value(at: 1) { refusals[sequence] = json }
        }
        return refusals
    }

    /// Forgets the refusals made under rules older than `version`: those writes are offered
    /// again. Returns how many.
    @discardableResult
    func releaseRefusals(underRulesBefore version: Int64) throws -> Int {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.refused.name) WHERE rules IS NOT NULL AND rules < \(version)")
        return connection.changes
    }

    /// Forgets the refusal of `sequence` (nil: of every write), so the next push offers it again.
    @discardableResult
    func releaseRefusal(_ sequence: Int64?) throws -> Int {
        if let sequence {
            try connection.run(literal: "DELETE FROM \(identifier: Tables.refused.name) WHERE sequence = \(sequence)")
        } else {
            try connection.run(literal: "DELETE FROM \(identifier: Tables.refused.name) WHERE true")
        }
        return connection.changes
    }

    /// Removes a pending write and its refusal.
    func drop(_ sequence: Int64) throws {
        try leaving(sequence)
        try connection.run(literal: "DELETE FROM \(identifier: Tables.outbox.name) WHERE sequence = \(sequence)")
        try connection.run(literal: "DELETE FROM \(identifier: Tables.refused.name) WHERE sequence = \(sequence)")
    }

    // MARK: Acknowledged writes

    /// Moves an acknowledged write from the outbox to wait for the pull that reaches `version`,
    /// and keeps a copy as sent. Returns false, filing nothing, when the write is no longer in
    /// the outbox (another syncer of this file settled it).
    func acknowledge(_ entry: SyncOutboxEntry, version: Int64, chain: Int64?, at now: Int64) throws -> Bool {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.outbox.name) WHERE sequence = \(entry.sequence)")
        guard connection.changes == 1 else { return false }
        try leaving(entry.sequence)
        try connection.run(
            literal: """
                INSERT OR REPLACE INTO \(identifier: Tables.inflight.name)(sequence, version, changeset, chain)
                VALUES (\(entry.sequence), \(version), \(entry.changeset), \(chain))
                """)
        try connection.run(
            literal: """
                INSERT OR REPLACE INTO \(identifier: Tables.sent.name)(sequence, changeset, at) VALUES (\(entry.sequence), \(entry.changeset), \(now))
                """)
        try connection.run(literal: "DELETE FROM \(identifier: Tables.refused.name) WHERE sequence = \(entry.sequence)")
        return true
    }

    /// Forgets sent copies older than `seconds` (since 1970).
    func forgetSent(before seconds: Int64) throws {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.sent.name) WHERE at < \(seconds)")
    }

    /// Forgets every sent copy: they were sent under another replica ID, whose entries the hub
    /// has; sent again under this one they would be applied as new writes.
    func forgetSent() throws {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.sent.name)")
    }

    /// Forgets everything of the space this database synced before (its cursor, acknowledged
    /// and sent writes, refusals, the rebase record), for one that starts over in another space.
    /// The outbox is empty (checked by the caller); its sequence floor stays, so sequences are
    /// never reused.
    func forgetSpace() throws {
        for table in [Tables.inflight.name, Tables.sent.name, Tables.refused.name] {
            try connection.run(literal: "DELETE FROM \(identifier: table)")
        }
        for key in ["pulled", "pulled_chain", "pulled_view", "rebase", "last_error"] { try setState(key, .null) }
    }

    /// The newest write sent and acknowledged, if one is kept.
    func lastSent() throws -> Int64? {
        try connection.query(literal: "SELECT max(sequence) FROM \(identifier: Tables.sent.name)")
    }

    /// Acknowledged writes the pull has now reached: done.
    func settle(through version: Int64) throws {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.inflight.name) WHERE version <= \(version)")
    }

    /// One acknowledged write the pull reached: done.
    func settle(sequence: Int64) throws {
        try connection.run(literal: "DELETE FROM \(identifier: Tables.inflight.name) WHERE sequence = \(sequence)")
    }

    /// The sent writes go back to the outbox (a hub restored from an older copy may have lost them).
    func resendSent() throws {
        try connection.run(
            literal: """
                INSERT OR IGNORE INTO \(identifier: Tables.outbox.name)(sequence, changeset)
                SELECT sequence, changeset FROM \(identifier: Tables.sent.name) ORDER BY sequence
                """)
        try connection.run(literal: "DELETE FROM \(identifier: Tables.inflight.name)")
    }

    /// This replica's own writes not yet covered by a pulled version: the acknowledged ones (with
    /// the version and chain each got) and the pending ones, in the order they were written.
    func localEntries() throws -> [LocalEntry] {
        let rows: [Row] = try connection.query(
            literal: """
                SELECT sequence, version, chain, changeset FROM \(identifier: Tables.inflight.name)
                UNION ALL SELECT sequence, NULL, NULL, changeset FROM \(identifier: Tables.outbox.name)
                ORDER BY 1
                """)
        return rows.map {
            LocalEntry(
                sequence: $0.value(at: 0) ?? 0, version: $0.value(at: 1), chain: $0.value(at: 2),
                changeset: Changeset(data: $0.value(at: 3) ?? Data()))
        }
    }

    /// Whether this database has synced or captured anything (a new incarnation is made only
    /// for one that has not).
    func hasHistory() throws -> Bool {
        let history: Int =
            try connection.query(
                literal: """
                    SELECT (SELECT count(*) FROM \(identifier: Tables.outbox.name)) + (SELECT count(*) FROM \(identifier: Tables.inflight.name))
                         + (SELECT count(*) FROM \(identifier: Tables.sent.name))
                         + (SELECT count(*) FROM \(identifier: Tables.state.definition.name) WHERE key = 'pulled')
                         + coalesce((SELECT value FROM \(identifier: Tables.state.definition.name) WHERE key = \(Tables.sequenceFloorKey)), 0)
                    """) ?? 0
        return history > 0
    }
}

/// One of the replica's own writes not yet covered by a pulled version.
struct LocalEntry {
    let sequence: Int64
    /// The hub version it was applied at, once acknowledged.
    let version: Int64?
    let chain: Int64?
    let changeset: Changeset
}
