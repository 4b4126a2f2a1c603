import Foundation
import Strata
import Testing

extension FaultSweeps {
    /// Building and updating an IVF index under every fault: the file holds either no index (or
    /// the rows still pending) or the whole result, never half.
    @Suite struct VectorIndexFaultTests {
        static func vectors(_ db: Connection, from start: Int, count: Int) throws {
            try db.transaction {
                for row in start..<start + count {
                    let embedding = try FloatVector((0..<8).map { Float(($0 * 7 + row * 13) % 23) - 11 })
                    try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row)), \(embedding))")
                }
            }
        }

        static func setUp(_ db: Connection) throws {
            try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
            try vectors(db, from: 1, count: 60)
        }

        @Test func buildingAnIVFIndex() throws {
            try Sweep<Connection>(
                name: "IVF index build", faults: Fault.journalModeFaults, setUp: Self.setUp,
                run: { db in try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 4, iterations: 3)) },
                state: allRows
            )()
        }

        @Test func updatingAnIVFIndex() throws {
            try Sweep<Connection>(
                name: "IVF index update", faults: Fault.journalModeFaults,
                setUp: { db in
                    try Self.setUp(db)
                    try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 4, iterations: 3))
                    try Self.vectors(db, from: 100, count: 25)
                    try db.execute("DELETE FROM doc WHERE id % 5 = 0")
                },
                run: { db in try db.updateIVFIndex("doc_ivf") },
                state: allRows
            )()
        }
    }
}
