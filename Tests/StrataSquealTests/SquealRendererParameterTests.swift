// Squeal's helpers render through the core's one statement renderer; what a prepared statement
// binds must not change with the values given (a statement prepared once is paged by rebinding).
import Foundation
import Testing
import StrataSqueal

@Suite struct SquealRendererParameterTests {
    @Test func anOffsetOfZeroIsStillAParameter() throws {
        let db = Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        for value in 1...5 { try db.run("INSERT INTO t VALUES (?)", value) }
        let statement = try db.prepareSelectFrom("t", columns: ["id"], orderBy: "id", limit: 2, offset: 0)
        #expect(statement.parameterCount == 2)
        try statement.bind([2, 2])
        var ids: [Int64] = []
        while try statement.next() { ids.append(statement.int64ValueAtIndex(0) ?? -1) }
        #expect(ids == [3, 4])
        let noLimit = try db.prepareSelectFrom("t", columns: ["id"], orderBy: "id", offset: 0)
        #expect(noLimit.parameterCount == 1)
        #expect(try db.selectFrom("t", columns: ["id"], orderBy: "id", limit: 2, offset: 0) { $0.int64ValueAtIndex(0) } == [1, 2])
    }
}
