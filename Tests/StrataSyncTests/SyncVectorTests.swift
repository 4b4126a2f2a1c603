import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Vector columns through sync: a `FloatVector` is a BLOB like any other, so what one replica
/// writes reaches another bit for bit, and a nearest-neighbour ranking is the same on both.
@Suite struct SyncVectorTests {
    @Test func vectorsReachAnotherReplicaBitForBitAndRankTheSame() async throws {
        var seeds: [UInt64] = []
        try PropertyCheck.run("vectors sync bit for bit", cases: 6) { random in seeds.append(random.next()) }
        for seed in seeds {
            do {
                try await Self.syncVectors(seed: seed)
            } catch {
                Issue.record("vectors through sync failed; seed 0x\(String(seed, radix: 16, uppercase: true)) — \(error)")
                throw error
            }
        }
    }

    /// A hub with the space `vectors` (a TEXT-keyed `doc` with an embedding) and two replicas of
    /// it; the folder holds their files.
    static func phoneAndLaptop() throws -> (folder: SyncFolder, phone: SyncReplica, laptop: SyncReplica) {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let schema = "CREATE TABLE doc(id TEXT PRIMARY KEY, body TEXT, embedding BLOB)"
        try hub.createSpace("vectors") { try $0.execute(schema) }
        hub.setPolicy(.lastWriterWins, forTable: "doc")
        func replica(_ name: String) throws -> SyncReplica {
            let database = try Database(path: folder.path(name + ".sqlite"))
            try database.executeWrite { try $0.execute(schema) }
            try database.addVectorFunctions()
            return try SyncReplica(
                database: database, replicaID: name, space: "vectors", tables: ["doc"],
                transport: InProcessSyncTransport(hub: hub))
        }
        return (folder, try replica("phone"), try replica("laptop"))
    }

    static func syncVectors(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let (folder, phone, laptop) = try Self.phoneAndLaptop()
        defer { withExtendedLifetime(folder) {} } // its files outlive the replicas' use
        let dimensions = random.pick([1, 3, 16, 384])
        // Components that test a float32 round trip: -0.0, subnormals, the largest finite values.
        let special: [Float] = [-0.0, 0, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, -Float.leastNormalMagnitude / 4, 1]
        func vector(_ random: inout SeededRandom) throws -> FloatVector {
            try FloatVector(
                (0..<dimensions).map { _ in
                    random.oneIn(4) ? random.pick(special) : Float(random.int(-1000...1000)) / 7
                })
        }
        var ids: [String] = []
        for step in 0..<random.int(5...40) {
            let writer = random.oneIn(2) ? phone : laptop
            if ids.isEmpty || random.oneIn(3) {
                let id = "doc-\(step)"
                ids.append(id)
                let embedding = try vector(&random)
                try await writer.write { try $0.run(literal: "INSERT INTO doc(id, body, embedding) VALUES (\(id), \("step \(step)"), \(embedding))") }
            } else if random.oneIn(5) {
                let id = random.pick(ids)
                try await writer.write { try $0.run(literal: "UPDATE doc SET embedding = NULL WHERE id = \(id)") }
            } else {
                let id = random.pick(ids)
                let embedding = try vector(&random)
                try await writer.write { try $0.run(literal: "UPDATE doc SET embedding = \(embedding) WHERE id = \(id)") }
            }
            if random.oneIn(4) { try await writer.sync() }
        }
        for _ in 0..<2 { try await phone.sync(); try await laptop.sync() }

        let blobs = "SELECT id, hex(embedding) FROM doc ORDER BY id"
        let onPhone: [[String: String]] = try await phone.database.read { db in try db.query(blobs) { [$0[0] as String: ($0[1] as String?) ?? "NULL"] } }
        let onLaptop: [[String: String]] = try await laptop.database.read { db in try db.query(blobs) { [$0[0] as String: ($0[1] as String?) ?? "NULL"] } }
        try require(onPhone == onLaptop, "the replicas' vector BLOBs differ")
        try require(onPhone.count == ids.count, "\(onPhone.count) rows, \(ids.count) written")
        let target = try vector(&random)
        let ranking: SQLFragment = "SELECT id FROM doc WHERE embedding IS NOT NULL ORDER BY strata_vec_distance_l2(embedding, \(target)), id LIMIT 5"
        let nearPhone: [String] = try await phone.database.read { try $0.query(literal: ranking) }
        let nearLaptop: [String] = try await laptop.database.read { try $0.query(literal: ranking) }
        try require(nearPhone == nearLaptop, "rankings differ: \(nearPhone) vs \(nearLaptop)")
        // Every stored BLOB still reads as a vector of the dimension written.
        let stored: [Data] = try await laptop.database.read { try $0.query("SELECT embedding FROM doc WHERE embedding IS NOT NULL") }
        for blob in stored { _ = try FloatVector(blob: blob, dimensions: dimensions) }
    }

    /// An IVF index over a synced table (TEXT key, so filed under its key map): rows a pull
    /// writes, moves and deletes are queued by the index's triggers like local writes, and a
    /// flat index's search equals the exact ranking on the pulling replica.
    @Test func anIVFIndexKeepsStepWithPulledRows() async throws {
        let (folder, phone, laptop) = try Self.phoneAndLaptop()
        defer { withExtendedLifetime(folder) {} } // its files outlive the replicas' use
        var random = SeededRandom(seed: PropertyCheck.baseSeed)
        func vector() throws -> FloatVector { try FloatVector((0..<4).map { _ in Float(random.int(-1000...1000)) / 7 }) }
        let first = try vector()
        try await laptop.write { db in
            try db.run(literal: "INSERT INTO doc(id, body, embedding) VALUES ('local', 'x', \(first))")
            try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1))
        }
        for round in 0..<3 {
            for step in 0..<20 {
                let embedding = try vector()
                let key = "p\(random.int(0...30))", removed: String? = random.oneIn(6) ? "p\(random.int(0...30))" : nil
                try await phone.write { db in
                    try db.run(literal: "INSERT OR REPLACE INTO doc(id, body, embedding) VALUES (\(key), \("r\(round)s\(step)"), \(embedding))")
                    if let removed { try db.run(literal: "DELETE FROM doc WHERE id = \(removed)") }
                }
            }
            try await syncInTurn(phone, laptop)
            if round == 1 { try await laptop.write { try $0.updateIVFIndex("doc_ivf") } }
            let target = try vector()
            let exact: SQLFragment = "SELECT rowid FROM doc WHERE embedding IS NOT NULL ORDER BY strata_vec_distance_l2(embedding, \(target)), rowid LIMIT 8"
            let expected: [Int64] = try await laptop.database.read { try $0.query(literal: exact) }
            let found = try await laptop.database.read { try $0.searchIVFIndex("doc_ivf", nearest: target, k: 8, nprobe: 1) }
            try require(found.map(\.rowID) == expected, "round \(round): \(found.map(\.rowID)) vs \(expected)")
            let pulled: Int = try await laptop.database.read { try $0.query("SELECT count(*) FROM doc WHERE id LIKE 'p%'") ?? 0 }
            try require(pulled > 0, "nothing pulled")
        }
    }
}
