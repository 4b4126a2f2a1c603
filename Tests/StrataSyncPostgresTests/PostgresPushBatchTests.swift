#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// A push applied as a batch (a space without rules) does exactly what the same push applied entry
/// by entry does: the same answers (acknowledged, versions, refusals and their reasons,
/// corrections), the same rows, the same log and applied records. The pushes are generated:
/// conflicting writes of several replicas, keys taken twice (UNIQUE, which only PostgreSQL sees
/// and which abandons the batch), children of missing parents and parents with children
/// (foreign keys, PostgreSQL's to check), composite keys, edge values.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresPushBatchTests {
    /// No unique index beside the keys: such a push is batched. (With one it is applied entry by
    /// entry, and there the order in which an entry's rows reach PostgreSQL can decide whether a
    /// swap of unique values is refused: not a property two runs share.)
    static let schema = """
        CREATE TABLE parent(id BIGINT PRIMARY KEY, name TEXT, score REAL, data BLOB, tag INTEGER);
        CREATE TABLE child(a TEXT NOT NULL, b INTEGER NOT NULL, p BIGINT REFERENCES parent(id), note TEXT, PRIMARY KEY (a, b));
        """
    static let tables = ["parent", "child"]

    /// One generated write of a replica: a transaction of one to three statements.
    static func write(_ random: inout SeededRandom) -> [SQLFragment] {
        (0..<random.int(1...3)).map { _ in
            let id = BindingValue.integer(Int64(random.int(1...8)))
            let names = ["x", "it's", "e\u{301}", "é", ""]
            switch random.int(0...6) {
            case 0, 1:
                let tag: BindingValue = random.oneIn(2) ? .null : .integer(Int64(random.int(1...6)))
                let score: BindingValue = random.oneIn(4) ? .null : .real(random.pick([-0.0, 1.5, .infinity, -.infinity, 1e300, 0.1]))
                return SQLFragment(
                    sql: "INSERT OR REPLACE INTO parent VALUES (?, ?, ?, ?, ?)",
                    arguments: [id, .text(Gen.text(&random, maxPieces: 3, nul: false)), score, .blob(Gen.bytes(&random)), tag])
            case 2:
                return SQLFragment(
                    sql: "UPDATE parent SET name = ?, score = ? WHERE id = ?", arguments: [.text(Gen.text(&random, maxPieces: 2, nul: false)), .real(2.5), id])
            case 3: return SQLFragment(sql: "DELETE FROM parent WHERE id = ?", arguments: [id])
            case 4:
                return SQLFragment(
                    sql: "INSERT OR REPLACE INTO child VALUES (?, ?, ?, ?)",
                    arguments: [.text(random.pick(names)), .integer(Int64(random.int(-1...2))), id, .text(random.pick(["n", "", "'\u{301}"]))])
            case 5:
                return SQLFragment(
                    sql: "UPDATE child SET note = ? WHERE b = ?",
                    arguments: [.text(Gen.text(&random, maxPieces: 2, nul: false)), .integer(Int64(random.int(-1...2)))])
            default: return SQLFragment(sql: "DELETE FROM child WHERE a = ?", arguments: [.text(random.pick(names))])
            }
        }
    }

    /// The outbox entries of `writes` by a replica that never syncs (a statement the replica
    /// itself refuses is left out).
    static func entries(_ replica: SyncReplica, _ writes: [[SQLFragment]]) async throws -> [SyncOutboxEntry] {
        for write in writes {
            try await replica.write { db in
                for statement in write { try? db.run(literal: statement) }
            }
        }
        return try await replica.database.read { db in
            let rows: [Row] = try db.query(literal: "SELECT sequence, changeset FROM _strata_sync_outbox ORDER BY sequence")
            return rows.map { SyncOutboxEntry(sequence: $0.value(at: 0) ?? 0, changeset: $0.value(at: 1) ?? Data()) }
        }
    }

    static func fingerprint(_ hub: SyncHub) throws -> String {
        do {
            _ = try hub.pull(SyncPullRequest(space: "team", replicaID: "x", tables: tables, schemaFingerprint: "?", after: 0, limit: 1))
            return "?"
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
    }

    /// What a push's answer says, in a form two stores' answers compare by.
    static func summary(_ response: SyncPushResponse) -> String {
        let refused = (response.refused ?? []).map { "\($0.sequence):\($0.reason)" }
        let corrections = response.corrections.map { "\($0.table)\(String(describing: $0.key))\($0.values.map { "\($0)" } ?? "gone")" }
        return "ack \(response.acknowledged) v \(String(describing: response.versions)) hub \(response.hubVersion) refused \(refused) corrected \(corrections)"
    }

    /// Every row, log entry and applied record of the space, as text.
    static func contents(_ database: PostgresTestDatabase) throws -> [String] {
        try database.texts("SELECT t::text FROM team.parent t ORDER BY id")
            + database.texts("SELECT t::text FROM team.child t ORDER BY a COLLATE \"C\", b")
            // Each logged entry's changes, in an order of their own: an entry applied without a
            // conflict is logged as the replica sent it, one settled by the session as SQLite
            // recorded it (another order, so another chain); the same changes either way.
            + database.query("SELECT version, replica, sequence, changeset FROM team._strata_sync_log ORDER BY version").map { row in
                let (version, replica, sequence, changeset) = try row.decode((Int64, String, Int64, Data).self)
                let changes = try Changeset(data: changeset).changes().map { String(describing: $0) }.sorted()
                return "\(version) \(replica) \(sequence) \(changes)"
            }
            // The settled rows as JSON, whose keys come in no fixed order.
            + database.query("SELECT replica, sequence, version, conflicts, digest FROM team._strata_sync_applied ORDER BY replica, sequence")
            .map { row in
                let (replica, sequence, version, conflicts, digest) = try row.decode((String, Int64, Int64, String, Int64?).self)
                let settled = try JSONSerialization.data(
                    withJSONObject: try JSONSerialization.jsonObject(with: Data(conflicts.utf8), options: [.fragmentsAllowed]),
                    options: [.sortedKeys, .fragmentsAllowed])
                return "\(replica) \(sequence) \(version) \(String(decoding: settled, as: UTF8.self)) \(String(describing: digest))"
            }
    }

    @Test func aBatchedPushDoesWhatThePushEntryByEntryDoes() async throws {
        try await PropertyCheck.runAsync("a batched push against the push entry by entry", cases: 8) { random in
            let batched = try PostgresHubSpace(schema: Self.schema, tables: Self.tables)
            let stepwise = try PostgresHubSpace(schema: Self.schema, tables: Self.tables)
            let stepwiseHub = SyncHub(store: try .postgres(url: stepwise.database.url, batchesPushes: false))
            var queues: [(String, [SyncOutboxEntry])] = []
            for name in ["r1", "r2", "r3"] {
                let writes = (0..<random.int(4...14)).map { _ in Self.write(&random) }
                queues.append((name, try await Self.entries(try batched.replica(name), writes)))
            }
            let fingerprints = (try Self.fingerprint(batched.hub), try Self.fingerprint(stepwiseHub))
            while queues.contains(where: { !$0.1.isEmpty }) {
                let index = random.int(0...(queues.count - 1))
                let (name, pending) = queues[index]
                guard !pending.isEmpty else { continue }
                let count = min(pending.count, random.int(1...6))
                let entries = Array(pending.prefix(count))
                queues[index].1.removeFirst(count)
                func push(_ hub: SyncHub, _ fingerprint: String) throws -> String {
                    do {
                        return Self.summary(
                            try hub.push(
                                SyncPushRequest(space: "team", replicaID: name, tables: Self.tables, schemaFingerprint: fingerprint, entries: entries)))
                    } catch {
                        return "threw \(error)"
                    }
                }
                let (one, other) = (try push(batched.hub, fingerprints.0), try push(stepwiseHub, fingerprints.1))
                try require(one == other, "push of \(entries.map(\.sequence)) by \(name):\n batched  \(one)\n stepwise \(other)")
            }
            let (one, other) = (try Self.contents(batched.database), try Self.contents(stepwise.database))
            let differing = zip(one, other).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(3)
            try require(
                one == other,
                "the spaces differ (\(one.count) and \(other.count) lines): "
                    + differing.map { "line \($0.offset):\n batched  \($0.element.0)\n stepwise \($0.element.1)" }.joined(separator: "\n"))
        }
    }

    /// A row a backend inserted before the push is read by the batch and settled by the policy
    /// like any conflict, never written over blindly.
    @Test func aRowABackendInsertedIsSettledByThePolicy() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: Self.tables)
        let entries = try await Self.entries(try team.replica("r"), [["INSERT INTO parent VALUES (1, 'replica', 1.0, x'00', NULL)"]])
        let connection = try team.database.connect()
        // Inserted by a backend (not the hub) before the push: the push meets it as a conflict.
        _ = try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO team.parent (id, name, score, data, tag) VALUES (1, 'backend', 2.0, '\\x01', 7)"),
            logger: team.database.logger)
        try await connection.close().get()
        let response = try team.hub.push(
            SyncPushRequest(space: "team", replicaID: "r", tables: Self.tables, schemaFingerprint: try Self.fingerprint(team.hub), entries: entries))
        #expect(response.acknowledged == entries.map(\.sequence))
        // Last writer wins: the replica's row, whole.
        #expect(try team.database.texts("SELECT name || ' ' || coalesce(tag::text, 'null') FROM team.parent") == ["replica null"])
    }
}
#endif
