#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// Seeded values of every storage class through a PostgreSQL hub: what a replica writes reaches
/// another replica as it was (pulled and from a snapshot), and a value PostgreSQL cannot hold is
/// refused by name, leaving the store as it was.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresTypeMappingTests {
    static let schema = "CREATE TABLE v(id TEXT PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, n NUMERIC)"

    static func integer(_ random: inout SeededRandom) -> Int64 {
        random.pick([Int64.min, Int64.max, 0, -1, 1, Int64(Int32.max) + 1, Int64(bitPattern: random.next())])
    }

    static func real(_ random: inout SeededRandom) -> Double {
        random.pick([
            -0.0, 0.0, .infinity, -.infinity, .greatestFiniteMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
            0.1, 1e300, -2.5, Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF), 0x1p63
        ])
    }

    static func value(_ column: String, _ random: inout SeededRandom) -> BindingValue {
        if random.oneIn(6) { return .null }
        switch column {
        case "i": return .integer(integer(&random))
        case "r": return .real(real(&random))
        case "t": return .text(Gen.text(&random, nul: false))
        case "b": return .blob(Data((0..<random.int(0...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        default: return random.oneIn(2) ? .integer(integer(&random)) : .real(real(&random))
        }
    }

    /// Every row of `v` as SQLite holds it: storage class and bits, in key order.
    static func rows(_ connection: Connection) throws -> [String] {
        let rows: [Row] = try connection.query(literal: SQLFragment(sql: "SELECT id, i, r, t, b, n FROM v ORDER BY id", arguments: []))
        return rows.map { row in
            (0..<6).map { index -> String in
                switch row.value(at: index) {
                case let integer as Int64: return "i\(integer)"
                case let real as Double: return "r\(real.bitPattern)"
                case let text as String: return "t" + text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ".")
                case let blob as Data: return "b" + blob.base64EncodedString()
                default: return "null"
                }
            }.joined(separator: ",")
        }
    }

    @Test func generatedValuesReachEveryReplicaAsTheyWere() async throws {
        let seed = PropertyCheck.baseSeed
        var random = SeededRandom(seed: seed)
        do {
            let types = try PostgresHubSpace("types", schema: Self.schema, tables: ["v"])
            let writer = try types.replica("writer")
            let reader = try types.replica("reader")
            for round in 0..<4 {
                var statements: [(String, [BindingValue])] = []
                for _ in 0..<25 {
                    let id = "r\(random.int(0...40))"
                    if round > 0, random.oneIn(5) {
                        statements.append(("DELETE FROM v WHERE id = ?", [.text(id)]))
                    } else if round > 0, random.oneIn(3) {
                        let column = random.pick(["i", "r", "t", "b", "n"])
                        statements.append(("UPDATE v SET \(column) = ? WHERE id = ?", [Self.value(column, &random), .text(id)]))
                    } else {
                        let values = ["i", "r", "t", "b", "n"].map { Self.value($0, &random) }
                        statements.append(("INSERT OR REPLACE INTO v(id, i, r, t, b, n) VALUES (?, ?, ?, ?, ?, ?)", [.text(id)] + values))
                    }
                }
                let batch = statements
                try await writer.write { db in
                    for (sql, arguments) in batch { try db.run(literal: SQLFragment(sql: sql, arguments: arguments)) }
                }
                try await writer.sync()
                try await reader.sync()
                #expect(try await writer.pendingChanges.compactMap(\.refusal) == [])
                let written = try await writer.database.read { try Self.rows($0) }
                #expect(try await reader.database.read { try Self.rows($0) } == written, "seed \(seed)")
                let late = try types.replica("late\(round)")
                try await late.bootstrap()
                #expect(try await late.database.read { try Self.rows($0) } == written, "seed \(seed)")
            }
        } catch {
            print("PostgresTypeMappingTests failed with seed \(seed) (STRATA_PROPERTY_SEED=\(seed))")
            throw error
        }
    }

    @Test func theBackendSeesTheValuesAsPostgresTypes() async throws {
        let types = try PostgresHubSpace("types", schema: Self.schema, tables: ["v"])
        let database = types.database
        let writer = try types.replica("writer")
        try await writer.write { db in
            try db.run("INSERT INTO v VALUES ('max', ?, ?, '', x'', ?)", Int64.max, Double.infinity, Int64.min)
            try db.run("INSERT INTO v VALUES ('min', ?, ?, 'é\"', x'00ff', 0.25)", Int64.min, -Double.infinity)
        }
        try await writer.sync()
        let rows = try database.query("SELECT id, i, r, t, b, n::text FROM types.v ORDER BY id")
        let max = try rows[0].decode((String, Int64, Double, String, Data, String).self)
        #expect(max.0 == "max" && max.1 == .max && max.2 == .infinity && max.3 == "" && max.4 == Data() && max.5 == "\(Int64.min)")
        let min = try rows[1].decode((String, Int64, Double, String, Data, String).self)
        #expect(min.1 == .min && min.2 == -.infinity && min.3 == "é\"" && min.4 == Data([0, 255]) && min.5 == "0.25")
    }

    /// One write that a value PostgreSQL cannot hold spoils: refused, naming the column, and
    /// nothing of it applied.
    func refusal(of sql: String) async throws -> (SyncRefusal?, rows: Int64, version: Int64) {
        let types = try PostgresHubSpace("types", schema: Self.schema, tables: ["v"])
        let database = types.database
        let writer = try types.replica("writer")
        try await writer.write { try $0.execute("INSERT INTO v(id, i) VALUES ('before', 1)") }
        try await writer.sync()
        try await writer.write { db in
            try db.execute("INSERT INTO v(id, i) VALUES ('good', 2)")
            try db.execute(sql)
        }
        try await syncKeepingRefusals(writer)
        let refusal = try await writer.pendingChanges.first?.refusal
        let count = try database.query("SELECT count(*) FROM types.v").first?.decode(Int64.self) ?? -1
        return (refusal, count, try types.hub.version(ofSpace: "types"))
    }

    @Test func aValuePostgresCannotHoldIsRefusedByNameAndNothingOfItsWriteStays() async throws {
        let nul = try await refusal(of: "INSERT INTO v(id, t) VALUES ('bad', 'a' || char(0) || 'b')")
        #expect(nul.0?.reason == .constraint)
        #expect(nul.0?.message.contains("v.t") == true && nul.0?.message.contains("NUL") == true)
        #expect(nul.rows == 1 && nul.version == 1)
        let utf8 = try await refusal(of: "INSERT INTO v(id, t) VALUES ('bad', CAST(x'61ff62' AS TEXT))")
        #expect(utf8.0?.message.contains("v.t") == true && utf8.0?.message.contains("UTF-8") == true)
        #expect(utf8.rows == 1 && utf8.version == 1)
        let blobInInteger = try await refusal(of: "INSERT INTO v(id, i) VALUES ('bad', x'01')")
        #expect(blobInInteger.0?.message.contains("v.i") == true && blobInInteger.0?.message.contains("bigint") == true)
        #expect(blobInInteger.rows == 1 && blobInInteger.version == 1)
        let textInReal = try await refusal(of: "INSERT INTO v(id, r) VALUES ('bad', 'abc')")
        #expect(textInReal.0?.message.contains("v.r") == true)
        #expect(textInReal.rows == 1 && textInReal.version == 1)
        let textInNumeric = try await refusal(of: "INSERT INTO v(id, n) VALUES ('bad', 'abc')")
        #expect(textInNumeric.0?.message.contains("v.n") == true)
        let nulKey = try await refusal(of: "INSERT INTO v(id) VALUES ('x' || char(0))")
        #expect(nulKey.0?.message.contains("v.id") == true)
        #expect(nulKey.rows == 1 && nulKey.version == 1)
    }
}
#endif
