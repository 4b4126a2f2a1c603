// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The README's examples for `import StrataRecords`. `@Record` types live at file scope (a macro
// that adds conformances cannot expand on a local type); the rest runs in the functions below.
import Foundation
import StrataRecords
import Testing

// README:begin 8
@Record                       // table "player"; @Record(table: "players") overrides it
struct Player: Equatable {
    @PrimaryKey var id: Int64?         // nil on insert: assigned and written back
    var name: String
    @Column("score_total") var score: Int
    var team: String?
}
// README:end

// DOC:begin Examples 11
@Record struct Author: Equatable { @PrimaryKey var id: Int64?; var name: String; var country: String }
@Record struct Book: Equatable {
    @PrimaryKey var id: Int64?; var authorId: Int64; var title: String; var year: Int; var price: Double?
}
extension Author { static let books = hasMany(Book.self, using: \.authorId) }
extension Book { static let author = belongsTo(Author.self, using: \.authorId) }
// DOC:end

extension READMEExamples {
    func recordsExample16() throws {
        // DOC:begin Examples 11
        let db = try Connection(path: ":memory:")
        try Author.createTable(db)
        try Book.createTable(db)
        let ids = try Author.insertAll(db, [Author(id: nil, name: "Vian", country: "FR"),
                                            Author(id: nil, name: "Le Guin", country: "US")])
        try Book.insertAll(db, [Book(id: nil, authorId: ids[0], title: "L'Écume des jours", year: 1947, price: nil),
                                Book(id: nil, authorId: ids[1], title: "Lavinia", year: 2008, price: 14),
                                Book(id: nil, authorId: ids[1], title: "The Lathe of Heaven", year: 1971, price: 9)])

        // A join: rows are tuples of records, columns qualified by table, values bound.
        let recent = try Book.join(Author.self, on: { book, author in book.authorId == author.id })
            .where { book, _ in book.year > 1950 }
            .order { book, _ in book.year.descending }
            .fetchAll(db)
        print(recent.map { "\($0.0.title) by \($0.1.name)" })   // ["Lavinia by Le Guin", "The Lathe of Heaven by Le Guin"]

        // Columns and aggregates read as typed tuples.
        let perCountry: [(String, Int)] = try Book.join(Author.self, on: { $0.authorId == $1.id })
            .group { _, author in author.country }
            .select { book, author in (author.country, book.id.count()) }
            .order { _, author in author.country }
            .fetchAll(db)
        print(perCountry.map { "\($0.0): \($0.1)" })           // ["FR: 1", "US: 2"]

        // A correlated subquery, and each author's books in one more query (never one per author).
        let recentAuthors = try Author.where { author in
            Book.where { $0.authorId == author.id && $0.year > 2000 }.exists()
        }.fetchAll(db)
        let shelves = try Author.including(all: Author.books).order(by: \.name).fetchAll(db)
        print(recentAuthors.map(\.name), shelves.map { "\($0.0.name): \($0.1.count)" })   // ["Le Guin"] ["Le Guin: 2", "Vian: 1"]
        // DOC:end
    }

    func recordsExample14() throws {
        // README:begin 8
        let db = try Connection(path: ":memory:")   // in memory
        try Player.createTable(db)                 // column types, NOT NULL and the key from the declaration
        var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        try ann.insert(db)                         // ann.id == 1; also update, upsert, save, delete
        let top = try Player.where { $0.score > 10 && $0.team == nil }
            .order(by: \.score, .descending)
            .limit(10, offset: 0)
            .fetchAll(db)                          // also fetchOne, fetchCount, deleteAll, update(db, set:)
        let mine: [Player] = try db.query("SELECT * FROM player")   // a Record is an ExpressibleByRow
        print(ann.id ?? 0, top.map(\.name), mine == top)            // 1 ["Ann"] true
        // README:end
    }

    func recordsExample15() async throws -> Database {
        // DOC:begin Examples 10
        let database = try Database(path: "players.sqlite")
        try await database.write { try Player.createTable($0) }
        let bob = Player(id: nil, name: "Bob", score: 7, team: "red")
        let saved = try await database.write { try bob.inserted($0) }   // also saved($0), upserted($0)
        print(saved.id ?? 0)                                            // 1
        // DOC:end
        return database
    }

    func recordsExample17(database: Database) async throws {
        // DOC:begin Examples 12
        // The current count, then a new one after each commit that touches `player`.
        for try await count in database.observe({ try Player.fetchCount($0) }) {
            print("players:", count)               // players: 1, then players: 2
            if count == 2 { break }                // leaving the loop ends the observation
            _ = try await database.write { try Player(id: nil, name: "Cy", score: 15, team: nil).inserted($0) }
        }

        // Not async: keep the token, or the observation ends with it. Also sees other processes' commits.
        var observations = Set<ObservationToken>()
        database.observe(externalChanges: .milliseconds(250), {
            try $0.query("SELECT name FROM player ORDER BY score_total DESC LIMIT 3") as [String]
        }) { result in
            if case .success(let names) = result { print(names) }   // ["Cy", "Bob"]
        }.store(in: &observations)
        // DOC:end
        // What a reader's program would do next: let the observation deliver, then end it.
        #expect(await printed.waitFor(#"["Cy", "Bob"]"#))
        observations.removeAll()
    }
}
