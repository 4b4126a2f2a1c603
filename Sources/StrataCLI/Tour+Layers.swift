import Foundation
import Strata
import StrataRecords
import StrataSync

/// A book of the tour: a `@Record` with an embedding, searched by words and by meaning.
@Record(table: "book")
struct TourBook {
    @PrimaryKey var id: Int64?
    var title: String
    var year: Int
    var embedding: FloatVector
}

extension Tour {
    /// Records, typed queries, a recursive walk, full-text search and vector search, on `db`.
    func recordsTour(_ db: Connection) throws {
        section("Records and typed queries (StrataRecords)")
        try TourBook.createTable(db)
        let books: [(String, Int, [Float])] = [
            ("Dune", 1965, [0.9, 0.1, 0.0]), ("Emma", 1815, [0.0, 0.2, 0.9]), ("Neuromancer", 1984, [0.8, 0.3, 0.1])
        ]
        for (title, year, embedding) in books {
            var book = TourBook(id: nil, title: title, year: year, embedding: try FloatVector(embedding))
            try book.insert(db)
        }
        show("@Record struct TourBook; TourBook.createTable(db); book.insert(db) x \(try TourBook.fetchCount(db))")
        let modern = try TourBook.where { $0.year > 1900 }.order(by: \.year).fetchAll(db)
        show("TourBook.where { $0.year > 1900 }.order(by: \\.year): \(modern.map(\.title))")

        try db.execute("CREATE TABLE part(id INTEGER PRIMARY KEY, parentId INTEGER, name TEXT NOT NULL)")
        for (id, parent, name) in [(1, nil, "bicycle"), (2, 1, "wheel"), (3, 2, "spoke"), (4, 1, "frame"), (5, nil, "kettle")] as [(Int, Int?, String)] {
            try db.run("INSERT INTO part VALUES (?, ?, ?)", id, parent, name)
        }
        let bicycle = try TourPart.recursive(
            start: TourPart.where { $0.id == 1 },
            step: { previous in TourPart.join(previous, on: { part, parent in part.parentId == parent.id }) }
        ).order(by: \.id).fetchAll(db)
        show("a recursive walk of a bill of materials: \(bicycle.map(\.name))")

        section("Full-text search (FTS5)")
        try db.createFTS5Table("book_text", columns: ["title", "blurb"], options: FTS5Options(tokenizer: .porter(.unicode61())))
        try db.run("INSERT INTO book_text(title, blurb) VALUES (?, ?)", "Dune", "The spice must flow")
        try db.run("INSERT INTO book_text(title, blurb) VALUES (?, ?)", "Emma", "Matchmaking in Highbury")
        let pattern = FTS5Pattern(matchingAllTokensIn: "flowing \"spice")
        let hits: [String] = try db.query(literal: "SELECT title FROM book_text WHERE book_text MATCH \(pattern) ORDER BY rank")
        show("FTS5Pattern(matchingAllTokensIn: \"flowing \\\"spice\") finds \(hits) (stemmed; the stray quote is harmless)")

        section("Vector search")
        let query = try FloatVector([0.85, 0.2, 0.05])
        let nearest = try TourBook.all().nearest(to: query, by: \.embedding, metric: .cosine, k: 2).fetchAll(db)
        show("nearest(to:by: \\.embedding, metric: .cosine, k: 2): \(nearest.map { "\($0.record.title) \(String(format: "%.3f", $0.distance))" })")
    }

    /// Two replicas converging through an in-process hub, in `directory`.
    func syncTour(in directory: URL) throws {
        section("Local-first sync (StrataSync)")
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)"
        let hub = try SyncHub(directory: directory.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(schema) }
        var replicas: [SyncReplica] = []
        for name in ["phone", "laptop"] {
            let database = try Database(path: directory.appendingPathComponent(name + ".sqlite").path)
            try database.write { try $0.execute(schema) }
            replicas.append(
                try SyncReplica(
                    database: database, replicaID: name, space: "team", tables: ["todo"],
                    transport: InProcessSyncTransport(hub: hub)))
        }
        let (phone, laptop) = (replicas[0], replicas[1])
        let seen: Int = try waitFor {
            try await phone.write { try $0.run("INSERT INTO todo(id, title) VALUES (?, ?)", "t1", "buy milk") }
            try await phone.sync()
            try await laptop.sync()
            let count = try await laptop.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } ?? 0
            try await phone.database.close()
            try await laptop.database.close()
            return count
        }
        show("the phone wrote a todo offline, synced; the laptop pulled it: \(seen) todo")
    }
}

/// A part of the tour's bill of materials.
@Record(table: "part")
struct TourPart {
    @PrimaryKey var id: Int64?
    var parentId: Int64?
    var name: String
}
