#if Hub
import Foundation
import StrataSQift
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// A push applied as a batch (a space without rules) does exactly what the same push applied entry
/// by entry does: the same answers (acknowledged, versions, refusals and their reasons,
/// corrections), the same rows, the same log and applied records. The pushes are generated:
/// conflicting writes of several replicas, values PostgreSQL cannot hold (found only when the batch
/// is written, which abandons it), composite text keys, edge values.
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
                // Now and then what PostgreSQL cannot hold (text with NUL, text in a BIGINT
                // column), which SQLite takes: found only when the batch is written, so the batch
                // is abandoned and the push runs entry by entry, where that entry is refused.
                let tag: BindingValue = random.oneIn(8) ? .text("seven") : .integer(Int64(random.int(1...6)))
                return SQLFragment(
                    sql: "UPDATE parent SET name = ?, score = ?, tag = ? WHERE id = ?",
                    arguments: [.text(Gen.text(&random, maxPieces: 2, nul: random.oneIn(8))), .real(2.5), tag, id])
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

    static func fingerprint(_ hub: SyncHub, tables: [String] = tables) throws -> String {
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
        // Rows as the bytes of their text (Swift's `==` would take "é" and "e\u{301}" for one).
        try database.texts("SELECT encode(convert_to(t::text, 'UTF8'), 'hex') FROM team.parent t ORDER BY id")
            + database.texts("SELECT encode(convert_to(t::text, 'UTF8'), 'hex') FROM team.child t ORDER BY convert_to(t::text, 'UTF8')")
            // Each logged entry's changes, in an order of their own: an entry applied without a
            // conflict is logged as the replica sent it, one settled by the session as SQLite
            // recorded it (another order, so another chain); the same changes either way.
            + database.query("SELECT version, replica, sequence, changeset FROM team._strata_sync_log ORDER BY version").map { row in
                let (version, replica, sequence, changeset) = try row.decode((Int64, String, Int64, Data).self)
                let changes = try Changeset(data: changeset).changes().map { String(reflecting: $0) }
                    .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
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
        let before = PostgresPushBatchCounts.current.withLock { $0 }
        defer {
            // Both ways were taken: batches written whole, and batches abandoned.
            let after = PostgresPushBatchCounts.current.withLock { $0 }
            print("batches written \(after.written - before.written), abandoned \(after.abandoned - before.abandoned)")
            #expect(after.written > before.written)
            #expect(after.abandoned > before.abandoned)
        }
        try await PropertyCheck.runAsync("a batched push against the push entry by entry", cases: 8) { random in
            // Batched where exact; batched and then abandoned at every flush (its second run);
            // entry by entry.
            let spaces = try (0..<3).map { _ in try PostgresHubSpace(schema: Self.schema, tables: Self.tables) }
            let hubs = [
                spaces[0].hub, SyncHub(store: try .postgres(url: spaces[1].database.url, batching: .abandonedAtFlush)),
                SyncHub(store: try .postgres(url: spaces[2].database.url, batching: .never))
            ]
            var queues: [(String, [SyncOutboxEntry])] = []
            for name in ["r1", "r2", "r3"] {
                let writes = (0..<random.int(4...90)).map { _ in Self.write(&random) }
                queues.append((name, try await Self.entries(try spaces[0].replica(name), writes)))
            }
            let fingerprints = try hubs.map { try Self.fingerprint($0) }
            while queues.contains(where: { !$0.1.isEmpty }) {
                let index = random.int(0...(queues.count - 1))
                let (name, pending) = queues[index]
                guard !pending.isEmpty else { continue }
                let count = min(pending.count, random.int(1...64))
                let entries = Array(pending.prefix(count))
                queues[index].1.removeFirst(count)
                let answers = zip(hubs, fingerprints).map { hub, fingerprint in
                    do {
                        return Self.summary(
                            try hub.push(
                                SyncPushRequest(space: "team", replicaID: name, tables: Self.tables, schemaFingerprint: fingerprint, entries: entries)))
                    } catch {
                        return "threw \(error)"
                    }
                }
                try require(
                    Set(answers).count == 1,
                    "push of \(entries.map(\.sequence)) by \(name):\n batched    \(answers[0])\n abandoned  \(answers[1])\n stepwise   \(answers[2])")
            }
            let contents = try spaces.map { try Self.contents($0.database).map { Array($0.utf8) } }
            for (label, other) in [("abandoned", contents[1]), ("stepwise", contents[2])] {
                let differing = zip(contents[0], other).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(3).map { line in
                    (offset: line.offset, element: (String(decoding: line.element.0, as: UTF8.self), String(decoding: line.element.1, as: UTF8.self)))
                }
                try require(
                    contents[0] == other,
                    "the batched space and the \(label) one differ (\(contents[0].count) and \(other.count) lines): "
                        + differing.map { "line \($0.offset):\n batched  \($0.element.0)\n \(label) \($0.element.1)" }.joined(separator: "\n"))
            }
        }
    }

    /// A check PostgreSQL holds beside the space's schema (here a CHECK constraint a DBA added)
    /// meets each entry's own write: such a space's pushes are not batched, and an entry that
    /// breaks it is refused alone, even when a later entry of the push would mend the row.
    @Test func aCheckOfPostgreSQLsOwnKeepsThePushEntryByEntry() async throws {
        let team = try PostgresHubSpace(schema: Self.schema, tables: Self.tables)
        _ = try team.database.query("ALTER TABLE team.parent ADD CONSTRAINT no_boom CHECK (name IS DISTINCT FROM 'boom')")
        let entries = try await Self.entries(
            try team.replica("r"),
            [
                ["INSERT INTO parent VALUES (1, 'ok', 1.0, x'00', NULL)"], ["UPDATE parent SET name = 'boom' WHERE id = 1"],
                ["UPDATE parent SET name = 'mended' WHERE id = 1"]
            ])
        let before = PostgresPushBatchCounts.current.withLock { $0 }
        let response = try team.hub.push(
            SyncPushRequest(space: "team", replicaID: "r", tables: Self.tables, schemaFingerprint: try Self.fingerprint(team.hub), entries: entries))
        #expect(response.acknowledged == [entries[0].sequence])
        #expect(response.refused?.map(\.sequence) == [entries[1].sequence, entries[2].sequence])
        #expect(response.refused?.first?.reason == .constraint)
        #expect(try team.database.texts("SELECT name FROM team.parent") == ["ok"])
        // Not batched at all (nothing written as a batch or abandoned by this push; other
        // suites may batch meanwhile, so only the abandoned count is exact here).
        #expect(PostgresPushBatchCounts.current.withLock { $0 }.abandoned == before.abandoned)
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

    /// A batching hub and one applying entry by entry on spaces of `schema`, and `pushes` sent
    /// to both: the answers and contents compared by their bytes.
    static func compare(schema: String, tables: [String], _ pushes: (PostgresHubSpace) async throws -> [[SyncOutboxEntry]]) async throws {
        let spaces = try (0..<2).map { _ in try PostgresHubSpace(schema: schema, tables: tables) }
        let hubs = [spaces[0].hub, SyncHub(store: try .postgres(url: spaces[1].database.url, batching: .never))]
        let fingerprints = try hubs.map { hub -> String in
            do {
                _ = try hub.pull(SyncPullRequest(space: "team", replicaID: "x", tables: tables, schemaFingerprint: "?", after: 0, limit: 1))
                return "?"
            } catch SyncError.schemaMismatch(_, let remote) { return remote }
        }
        for entries in try await pushes(spaces[0]) {
            let answers = zip(hubs, fingerprints).map { hub, fingerprint in
                do {
                    return summary(
                        try hub.push(SyncPushRequest(space: "team", replicaID: "r", tables: tables, schemaFingerprint: fingerprint, entries: entries)))
                } catch { return "threw \(error)" }
            }
            #expect(answers[0] == answers[1])
        }
        func contents(_ space: PostgresHubSpace) throws -> [String] {
            var lines: [String] = []
            for table in tables {
                lines += try space.database.texts(
                    "SELECT encode(convert_to(t::text, 'UTF8'), 'hex') FROM team.\"\(table)\" t ORDER BY convert_to(t::text, 'UTF8')")
            }
            return try lines
                + space.database.query("SELECT version, sequence, changeset FROM team._strata_sync_log ORDER BY version").map { row in
                    let (version, sequence, changeset) = try row.decode((Int64, Int64, Data).self)
                    return "\(version) \(sequence) " + changeset.map { String(format: "%02x", $0) }.joined()
                }
        }
        #expect(try contents(spaces[0]) == contents(spaces[1]))
    }

    /// A changeset recorded by `statements` after `setup` on a connection of its own.
    static func recorded(_ setup: String, _ statements: String, patchset: Bool = false) throws -> Data {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute(setup)
        let session = try connection.recordChanges()
        defer { session.close() }
        try connection.execute(statements)
        return patchset ? try session.patchset().data : try session.changeset().data
    }

    /// A text changed away and back to a canonically equal one ("é" to "e\u{301}") is written:
    /// rows are compared by their bytes, not by Swift's `==`, in a batch and entry by entry.
    @Test func aTextChangedToACanonicallyEqualOneIsWritten() async throws {
        try await Self.compare(schema: "CREATE TABLE t(id BIGINT PRIMARY KEY, name TEXT)", tables: ["t"]) { space in
            let entries = try await Self.entries(
                try space.replica("r"),
                [
                    [SQLFragment(sql: "INSERT INTO t VALUES (1, ?)", arguments: [.text("\u{e9}")])],
                    [SQLFragment(sql: "UPDATE t SET name = 'x' WHERE id = 1", arguments: [])],
                    [SQLFragment(sql: "UPDATE t SET name = ? WHERE id = 1", arguments: [.text("e\u{301}")])],
                    [SQLFragment(sql: "UPDATE t SET name = ? WHERE id = 1", arguments: [.text("\u{e9}")])]
                ])
            return [Array(entries.prefix(1)), Array(entries.dropFirst(1).prefix(2)), Array(entries.dropFirst(3))]
        }
        let team = try PostgresHubSpace(schema: "CREATE TABLE t(id BIGINT PRIMARY KEY, name TEXT)", tables: ["t"])
        let entries = try await Self.entries(
            try team.replica("r"),
            [
                [SQLFragment(sql: "INSERT INTO t VALUES (1, ?)", arguments: [.text("\u{e9}")])],
                [SQLFragment(sql: "UPDATE t SET name = ? WHERE id = 1", arguments: [.text("e\u{301}")])]
            ])
        let fingerprint = try Self.fingerprint(team.hub, tables: ["t"])
        for entry in entries {
            _ = try team.hub.push(SyncPushRequest(space: "team", replicaID: "r", tables: ["t"], schemaFingerprint: fingerprint, entries: [entry]))
        }
        #expect(try team.database.texts("SELECT encode(convert_to(name, 'UTF8'), 'hex') FROM team.t") == ["65cc81"])
    }

    /// Patchsets (an update that changes nothing, a delete of the key alone) are logged alike
    /// in a batch and entry by entry: as the replica sent them, as on the SQLite store.
    @Test func patchsetsAreLoggedAlikeBatchedOrNot() async throws {
        let schema = "CREATE TABLE t(id BIGINT PRIMARY KEY, name TEXT)"
        try await Self.compare(schema: schema, tables: ["t"]) { space in
            let first = try await Self.entries(try space.replica("r"), [["INSERT INTO t VALUES (1, 'a')"], ["INSERT INTO t VALUES (2, 'b')"]])
            let unchanged = try Self.recorded(schema + "; INSERT INTO t VALUES (1, 'z')", "UPDATE t SET name = 'a' WHERE id = 1", patchset: true)
            let deleted = try Self.recorded(schema + "; INSERT INTO t VALUES (2, 'b')", "DELETE FROM t WHERE id = 2", patchset: true)
            return [first, [SyncOutboxEntry(sequence: 10, changeset: unchanged), SyncOutboxEntry(sequence: 11, changeset: deleted)]]
        }
    }

    /// A key SQLite stores otherwise than it came (an integer in a REAL key column) still finds
    /// its row: such a push is applied entry by entry.
    @Test func anIntegerKeyInARealKeyColumnFindsItsRow() async throws {
        try await Self.compare(schema: "CREATE TABLE m(k REAL PRIMARY KEY, v TEXT)", tables: ["m"]) { space in
            let first = try await Self.entries(try space.replica("r"), [["INSERT INTO m VALUES (1.0, 'a')"], ["INSERT INTO m VALUES (2.0, 'b')"]])
            let untyped = "CREATE TABLE m(k PRIMARY KEY, v TEXT); INSERT INTO m VALUES (1, 'a'), (2, 'b')"
            let updated = try Self.recorded(untyped, "UPDATE m SET v = 'c' WHERE k = 1")
            let deleted = try Self.recorded(untyped, "DELETE FROM m WHERE k = 2")
            return [first, [SyncOutboxEntry(sequence: 10, changeset: updated), SyncOutboxEntry(sequence: 11, changeset: deleted)]]
        }
    }
}
#endif
