import Foundation
import StrataSQift
import Testing
import StrataRecords

/// An observation of a recursive walk learns the table it reads through its named query: a commit
/// to that table refetches it, a commit to another does not.
@Suite struct TypedSQLObservationTests {
    @Test func aRecursiveWalkIsRefetchedAfterACommitToItsTable() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try await database.write { db in
            try TypedSQLShelf.Comment.createTable(db)
            try TypedSQLShelf.User.createTable(db)
            _ = try TypedSQLShelf.Comment(id: nil, parentId: nil, body: "root").inserted(db)
        }
        let fetches = Delivered()
        let delivered = Delivered()
        let token = database.observe(
            { db -> Int in
                fetches.append(fetches.values.count + 1)
                return try TypedSQLShelf.Comment.recursive(
                    start: TypedSQLShelf.Comment.where { $0.id == 1 },
                    step: { previous in TypedSQLShelf.Comment.join(previous, on: { $0.parentId == $1.id }) }
                ).fetchCount(db)
            },
            onChange: { result in
                if case .success(let count) = result { delivered.append(count) }
            })
        defer { token.cancel() }
        await delivered.waitForLast(1)
        _ = try await database.write { try TypedSQLShelf.Comment(id: nil, parentId: 1, body: "reply").inserted($0) }
        await delivered.waitForLast(2)
        let before = fetches.values.count
        _ = try await database.write { try TypedSQLShelf.User(id: nil, email: "e", name: "n", score: 0).inserted($0) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(fetches.values.count == before)
        #expect(delivered.values == [1, 2])
    }
}
