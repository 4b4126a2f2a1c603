import Foundation
import StrataSQift
import Testing
import StrataRecords

/// Writes from `@Sendable` closures (issue 26): the non-mutating forms return the written record.
@Suite struct SendableWriteTests {
    /// A file database in a directory of its own, with the player table.
    func makeDatabase() throws -> OnDiskDatabase {
        let fixture = try onDiskDatabase()
        try fixture.database.executeWrite { try Player.createTable($0) }
        return fixture
    }

    @Test func insertedInAnAsyncWriteReturnsTheNewKey() async throws {
        let fixture = try makeDatabase()
        let database = fixture.database
        let bob = Player(id: nil, name: "Bob", score: 30, team: "red")
        // The form issue 26 asks for, as written: `bob` is a `let` captured by a @Sendable closure.
        let saved = try await database.write { try bob.inserted($0) }
        #expect(saved.id == 1)
        #expect(saved.name == "Bob")
        #expect(bob.id == nil)
        let second = try await database.write { try bob.inserted($0) }
        #expect(second.id == 2)
        #expect(try await database.read { try Player.fetchAll($0) } == [saved, second])
    }

    @Test func savedAndUpsertedReturnTheWrittenRecord() async throws {
        let fixture = try makeDatabase()
        let database = fixture.database
        let ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        let saved = try await database.write { try ann.saved($0) }
        #expect(saved.id == 1)

        var changed = saved
        changed.score = 40
        let resaved = try await database.write { [changed] in try changed.saved($0) }
        #expect(resaved == changed)

        let cy = Player(id: nil, name: "Cy", score: 5, team: "blue")
        let upserted = try await database.write { try cy.upserted($0) }
        #expect(upserted.id == 2)
        var renamed = upserted
        renamed.name = "Cyrus"
        let again = try await database.write { [renamed] in try renamed.upserted($0) }
        #expect(again == renamed)

        let rows = try await database.read { try Player.fetchAll($0) }
        #expect(rows == [changed, renamed])
    }

    @Test func aFailedWriteThrowsAndStoresNothing() async throws {
        let fixture = try makeDatabase()
        let database = fixture.database
        let ann = Player(id: 7, name: "Ann", score: 12, team: nil)
        _ = try await database.write { try ann.inserted($0) }
        await #expect(throws: SQLiteError.self) { try await database.write { try ann.inserted($0) } }
        do {
            _ = try await database.write { try ann.inserted($0) }
        } catch let error as SQLiteError {
            #expect(error.resultCode == .constraintPrimaryKey)
        }
        #expect(try await database.read { try Player.fetchCount($0) } == 1)
    }
}
