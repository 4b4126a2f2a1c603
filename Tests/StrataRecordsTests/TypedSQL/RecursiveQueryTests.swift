import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

private typealias SComment = TypedSQLShelf.Comment

@Suite struct RecursiveQueryTests {
    private func makeThread() throws -> Connection {
        let db = try Connection()
        try SComment.createTable(db)
        // 1 ─┬─ 2 ── 4
        //    └─ 3        5 (another thread), 6 → 6 (its own parent)
        for (parent, body) in [(nil, "root"), (1, "a"), (1, "b"), (2, "a.a"), (nil, "other"), (6, "loop")] as [(Int64?, String)] {
            _ = try SComment(id: nil, parentId: parent, body: body).inserted(db)
        }
        return db
    }

    @Test func issueSpelling() throws {
        let db = try makeThread()
        let rootID: Int64 = 1
        let thread: [SComment] = try SComment.recursive(
            start: SComment.where { $0.id == rootID },
            step: { previous in SComment.join(previous, on: { comment, parent in comment.parentId == parent.id }) }
        ).order(by: \.id).fetchAll(db)
        #expect(thread.map(\.body) == ["root", "a", "b", "a.a"])

        let shallow = try SComment.recursive(
            start: SComment.where { $0.id == rootID },
            step: { previous in SComment.join(previous, on: { comment, parent in comment.parentId == parent.id }) },
            maxDepth: 1
        ).order(by: \.id).fetchAll(db)
        #expect(shallow.map(\.body) == ["root", "a", "b"])
    }

    @Test func theWalkIsAQueryLikeAnyOther() throws {
        let db = try makeThread()
        let walk = SComment.recursive(
            start: SComment.where { $0.parentId == nil },
            step: { previous in SComment.join(previous, on: { $0.parentId == $1.id }) })
        #expect(try walk.fetchCount(db) == 5)
        #expect(try walk.where { $0.body.like("a%") }.order(by: \.id).select(\.id).fetchAll(db) == [2, 4])
        // Nested as a subquery.
        let outside = try SComment.where { !$0.id.in(walk.select(\.id)) }.fetchAll(db)
        #expect(outside.map(\.body) == ["loop"])
        // A step narrowed by its own condition, over both rows.
        let narrowed = SComment.recursive(
            start: SComment.where { $0.id == 1 },
            step: { previous in SComment.join(previous, on: { $0.parentId == $1.id }).where { comment, _ in comment.body != "b" } })
        #expect(try narrowed.order(by: \.id).select(\.id).fetchAll(db) == [1, 2, 4])
        // An ordered, limited start is a subquery of the first arm.
        let firstRoot = SComment.recursive(
            start: SComment.where { $0.parentId == nil }.order(by: \.id, .descending).limit(1),
            step: { previous in SComment.join(previous, on: { $0.parentId == $1.id }) })
        #expect(try firstRoot.select(\.body).fetchAll(db) == ["other"])
    }

    @Test func aWalkInsideAnotherQueryOfTheSameTableGetsItsOwnAlias() throws {
        let db = try makeThread()
        // Comments whose subtree (itself included) holds a comment "a.a": a correlated walk.
        let holders = try SComment.where { outer in
            outer.id.in(
                SComment.recursive(
                    start: SComment.where { $0.body == "a.a" },
                    step: { previous in SComment.join(previous, on: { comment, child in comment.id == child.parentId }) },
                    maxDepth: 10
                ).select(\.id))
        }.order(by: \.id).fetchAll(db)
        #expect(holders.map(\.body) == ["root", "a", "a.a"])
    }

    @Test func cyclesEndWithUnionAndWithTheDepthGuard() throws {
        let db = try makeThread()
        let loop = SComment.recursive(start: SComment.where { $0.id == 6 }, step: { previous in SComment.join(previous, on: { $0.parentId == $1.id }) })
        #expect(try loop.fetchAll(db).map(\.id) == [6])
        let guarded = SComment.recursive(
            start: SComment.where { $0.id == 6 }, step: { previous in SComment.join(previous, on: { $0.parentId == $1.id }) }, maxDepth: 50)
        #expect(try guarded.fetchAll(db).map(\.id) == [6])
    }

    @Test func badInputThrows() throws {
        let db = try makeThread()
        let negative = SComment.recursive(start: SComment.all(), step: { previous in SComment.join(previous, on: { $0.parentId == $1.id }) }, maxDepth: -1)
        #expect(throws: RecordQueryError.self) { try negative.fetchAll(db) }
        #expect(throws: RecordQueryError.self) { try negative.fetchCount(db) }
        #expect(throws: RecordQueryError.self) { try SComment.where { $0.id.in(negative.select(\.id)) }.fetchAll(db) }
        // A step that joins another recursive query's rows, not the previous rows it was given.
        var leaked: RecursiveRows<SComment>?
        _ = SComment.recursive(
            start: SComment.all(),
            step: { previous in
                leaked = previous; return SComment.join(previous, on: { $0.parentId == $1.id })
            })
        let other = try #require(leaked)
        #expect(throws: RecordQueryError.self) {
            try SComment.recursive(start: SComment.all(), step: { _ in SComment.join(other, on: { $0.parentId == $1.id }) }).fetchAll(db)
        }
    }

    /// Generated forests (cycles included, and rows that are their own parent): the typed walk
    /// equals the hand-written recursive statement and a walk computed in Swift, with and
    /// without a depth limit.
    @Test func matchesHandWrittenSQLAndASwiftWalk() throws {
        try PropertyCheck.run("recursive walk = hand-written WITH RECURSIVE = Swift walk", cases: 40) { random in
            let db = try Connection()
            try SComment.createTable(db)
            let count = random.int(1...40)
            var parents: [Int64: Int64?] = [:]
            for id in 1...Int64(count) {
                let parent: Int64? = random.oneIn(4) ? nil : Int64(random.int(1...count))
                parents[id] = parent
                _ = try SComment(id: id, parentId: parent, body: hardText(&random)).inserted(db)
            }
            let root = Int64(random.int(1...count))
            let depth: Int? = random.oneIn(2) ? nil : random.int(0...5)
            // The Swift walk: breadth first, each row once, at most `depth` steps.
            var reached: Set<Int64> = [root]
            var frontier: [Int64] = [root]
            var steps = 0
            while !frontier.isEmpty, depth.map({ steps < $0 }) ?? true {
                frontier = parents.filter { child, parent in parent.map { frontier.contains($0) } ?? false && !reached.contains(child) }.map(\.key)
                reached.formUnion(frontier)
                steps += 1
            }
            let step: (RecursiveRows<SComment>) -> RecursiveStep<SComment> = { previous in
                SComment.join(previous, on: { comment, parent in comment.parentId == parent.id })
            }
            let walk =
                depth.map { SComment.recursive(start: SComment.where { $0.id == root }, step: step, maxDepth: $0) }
                ?? SComment.recursive(start: SComment.where { $0.id == root }, step: step)
            let typed = try walk.order(by: \.id).fetchAll(db)
            let hand: [Int64] =
                try depth.map { depth in
                    try db.query(
                        literal: """
                            WITH RECURSIVE "t"("id", "d") AS (
                                SELECT "id", 0 FROM "comment" WHERE "id" = \(root)
                                UNION SELECT "c"."id", "t"."d" + 1 FROM "comment" AS "c" JOIN "t" ON "c"."parentId" = "t"."id" WHERE "t"."d" < \(depth))
                            SELECT DISTINCT "id" FROM "t" ORDER BY "id"
                            """) as [Int64]
                }
                ?? db.query(
                    literal: """
                        WITH RECURSIVE "t"("id") AS (
                            SELECT "id" FROM "comment" WHERE "id" = \(root)
                            UNION SELECT "c"."id" FROM "comment" AS "c" JOIN "t" ON "c"."parentId" = "t"."id")
                        SELECT "id" FROM "t" ORDER BY "id"
                        """)
            try require(typed.compactMap(\.id) == hand, "typed \(typed.compactMap(\.id)) != hand-written \(hand)")
            try require(Set(hand) == reached, "hand-written \(hand) != Swift walk \(reached.sorted())")
            // Whole rows come back, bodies included.
            let stored = try SComment.where { $0.id.in(Array(reached).map { Optional($0) }) }.order(by: \.id).fetchAll(db)
            try require(typed == stored, "rows differ")
        }
    }
}
