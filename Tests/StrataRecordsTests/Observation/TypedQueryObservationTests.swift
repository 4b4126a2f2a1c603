import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct TypedQueryObservationTests {
    /// An observation of a join learns both tables: a commit to either refetches it, a commit to a
    /// third table does not.
    @Test func aJoinIsRefetchedAfterACommitToEitherTable() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try await database.write { db in
            try Author.createTable(db)
            try Book.createTable(db)
            try Publisher.createTable(db)
            try Author.insertAll(db, [Author(id: nil, name: "Vian", country: "FR")])
        }
        let fetches = Delivered()
        let delivered = Delivered()
        let token = database.observe(
            { db -> Int in
                fetches.append(fetches.values.count + 1)
                return try Book.join(Author.self, on: { $0.authorId == $1.id }).where { _, author in author.country == "FR" }.fetchCount(db)
            },
            onChange: { result in
                if case .success(let count) = result { delivered.append(count) }
            })
        defer { token.cancel() }
        await delivered.waitForLast(0)
        _ = try await database.write { try Book.insertAll($0, [Book(id: nil, authorId: 1, title: "Vercoquin", year: 1947, price: nil)]) }
        await delivered.waitForLast(1)
        try await database.write { try $0.run(literal: "UPDATE author SET country = \("BE")") }
        await delivered.waitForLast(0)
        let before = fetches.values.count
        _ = try await database.write { try Publisher.insertAll($0, [Publisher(id: nil, name: "Pauvert")]) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(fetches.values.count == before)
        #expect(delivered.values == [0, 1, 0])
    }
}
