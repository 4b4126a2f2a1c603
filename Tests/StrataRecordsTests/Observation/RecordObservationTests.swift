import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct RecordObservationTests {
    /// Record writes step their statement without a `Statement` object; observers must still hear
    /// of every one of them.
    @Test func observersSeeRecordWrites() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try database.executeWrite { try Player.createTable($0) }
        let delivered = Delivered()
        let token = database.observe(
            { try Player.fetchCount($0) },
            onChange: { result in
                if case .success(let count) = result { delivered.append(count) }
            })
        defer { token.cancel() }
        await delivered.waitForLast(0)
        try await database.write { db in
            var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
            try ann.insert(db)
        }
        await delivered.waitForLast(1)
        try await database.write { db in
            var bob = Player(id: 7, name: "Bob", score: 3, team: nil)
            try bob.upsert(db)
        }
        await delivered.waitForLast(2)
        try await database.write { db in _ = try Player(id: 7, name: "Bob", score: 3, team: nil).delete(db) }
        await delivered.waitForLast(1)
        #expect(delivered.values == [0, 1, 2, 1])
    }
}
