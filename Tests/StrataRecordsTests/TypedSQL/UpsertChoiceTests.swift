import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

private typealias SUser = TypedSQLShelf.User

@Suite struct UpsertChoiceTests {
    private func makeDB() throws -> Connection {
        let db = try Connection()
        try SUser.createTable(db)
        return db
    }

    @Test func issueSpellings() throws {
        let db = try makeDB()
        var ann = SUser(id: nil, email: "ann@example.com", name: "Ann", score: 10)
        try ann.insert(db)
        #expect(ann.id == 1)

        var twin = SUser(id: nil, email: "ann@example.com", name: "Ann Two", score: 99)
        let inserted = try twin.insert(db, onConflict: .ignore) // INSERT OR IGNORE
        #expect(!inserted && twin.id == nil)

        var renamed = SUser(id: nil, email: "ann@example.com", name: "Annie", score: 0)
        try renamed.upsert(db, onConflict: \.email, doUpdate: [\.name]) // only name changes
        #expect(renamed.id == 1)
        #expect(try SUser.fetchOne(db, id: 1) == SUser(id: 1, email: "ann@example.com", name: "Annie", score: 10))

        var ignored = SUser(id: nil, email: "ann@example.com", name: "Nobody", score: 5)
        let written = try ignored.upsert(db, onConflict: \.email, doNothing: true)
        #expect(!written && ignored.id == nil)
        #expect(try SUser.fetchOne(db, id: 1)?.name == "Annie")

        var bob = SUser(id: nil, email: "bob@example.com", name: "Bob", score: 1)
        #expect(try bob.upsert(db, onConflict: \.email, doNothing: true))
        #expect(bob.id == 2)

        let users = [SUser(id: 1, email: "ann@example.com", name: "Replaced", score: 7), SUser(id: nil, email: "cy@example.com", name: "Cy", score: 3)]
        let ids = try SUser.insertAll(db, users, onConflict: .replace)
        #expect(ids == [1, 3])
        #expect(try SUser.order(by: \.id).fetchAll(db).map(\.name) == ["Replaced", "Bob", "Cy"])

        // Both collide now: the first on its key, the second on its email.
        let again = try SUser.insertAll(db, users, onConflict: .ignore)
        #expect(again == [nil, nil])
        #expect(try SUser.fetchCount(db) == 3)
    }

    @Test func nonMutatingFormsReturnTheRecordAsWritten() throws {
        let db = try makeDB()
        let ann = SUser(id: nil, email: "a", name: "Ann", score: 1)
        #expect(try ann.inserted(db, onConflict: .ignore).id == 1)
        #expect(try ann.inserted(db, onConflict: .ignore).id == nil)
        #expect(try ann.upserted(db, onConflict: \.email, doUpdate: [\.name]).id == 1)
        #expect(try ann.upserted(db, onConflict: \.email, doNothing: true).id == nil)
    }

    @Test func doNothingFalseUpdatesEveryOtherColumn() throws {
        let db = try makeDB()
        _ = try SUser(id: nil, email: "e", name: "a", score: 1).inserted(db)
        var user = SUser(id: nil, email: "e", name: "b", score: 2)
        #expect(try user.upsert(db, onConflict: \.email, doNothing: false))
        #expect(user.id == 1)
        #expect(try SUser.fetchAll(db) == [SUser(id: 1, email: "e", name: "b", score: 2)])
    }

    @Test func badInputThrows() throws {
        let db = try makeDB()
        var user = SUser(id: nil, email: "e", name: "n", score: 0)
        // A key path that is no column.
        #expect(throws: RecordQueryError.self) { try user.upsert(db, onConflict: \.email, doUpdate: [\.name.name]) }
        // A conflict target that is not unique: SQLite's error, with the SQL.
        #expect(throws: SQLiteError.self) { try user.upsert(db, onConflict: \.name, doUpdate: [\.score]) }
        // A collision under .abort.
        try user.insert(db, onConflict: .abort)
        var twin = SUser(id: nil, email: "e", name: "m", score: 0)
        #expect(throws: SQLiteError.self) { try twin.insert(db, onConflict: .abort) }
        #expect(twin.id == nil)
    }

    /// Each typed choice against the statement written by hand, on generated users (quotes, NUL,
    /// keywords in text; Int64 limits in values), in generated orders.
    @Test func choicesMatchHandWrittenSQL() throws {
        try PropertyCheck.run("upsert choices = hand-written SQL", cases: 30) { random in
            let typed = try makeDB()
            let hand = try makeDB()
            let emails = (0..<4).map { _ in hardText(&random) }
            for _ in 0..<random.int(1...25) {
                var user = SUser(
                    id: random.oneIn(4) ? Int64(random.int(1...6)) : nil, email: random.pick(emails),
                    name: hardText(&random), score: Gen.int64(&random))
                let values: [Bindable?] = [user.id, user.email, user.name, user.score]
                let insert = #"INSERT INTO "user" ("id", "email", "name", "score") VALUES (?, ?, ?, ?)"#
                let choice = random.int(0...6)
                var typedError = false, handError = false
                do {
                    switch choice {
                    case 0: try user.insert(typed, onConflict: .ignore)
                    case 1: try user.insert(typed, onConflict: .replace)
                    case 2: try user.upsert(typed, onConflict: \.email, doUpdate: [\.name])
                    case 3: try user.upsert(typed, onConflict: \.email, doUpdate: [\.name, \.score])
                    case 4: _ = try user.upsert(typed, onConflict: \.email, doNothing: true)
                    case 5: _ = try SUser.insertAll(typed, [user], onConflict: .ignore)
                    default: _ = try user.upsert(typed, onConflict: \.email, doNothing: false)
                    }
                } catch { typedError = true }
                do {
                    switch choice {
                    case 0, 5: try hand.run("INSERT OR IGNORE INTO \"user\" (\"id\", \"email\", \"name\", \"score\") VALUES (?, ?, ?, ?)", values)
                    case 1: try hand.run("REPLACE INTO \"user\" (\"id\", \"email\", \"name\", \"score\") VALUES (?, ?, ?, ?)", values)
                    case 2: try hand.run(insert + #" ON CONFLICT ("email") DO UPDATE SET "name" = excluded."name""#, values)
                    case 3, 6: try hand.run(insert + #" ON CONFLICT ("email") DO UPDATE SET "name" = excluded."name", "score" = excluded."score""#, values)
                    default: try hand.run(insert + #" ON CONFLICT ("email") DO NOTHING"#, values)
                    }
                } catch { handError = true }
                try require(typedError == handError, "choice \(choice): typed threw \(typedError), hand-written threw \(handError)")
                // A nil key written back is the key of the row now holding the email.
                if values[0] == nil, let id = user.id {
                    let stored: Int64? = try hand.query(literal: "SELECT id FROM \(identifier: "user") WHERE email = \(user.email)")
                    try require(stored == id, "choice \(choice): wrote back key \(id), the row has \(String(describing: stored))")
                }
            }
            try require(try tableDump(typed, "user") == tableDump(hand, "user"), "tables differ")
        }
    }
}
