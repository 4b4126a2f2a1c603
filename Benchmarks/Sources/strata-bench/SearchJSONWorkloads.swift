import Foundation
import StrataSQift
import GRDB
import SQLite3
import Strata
import StrataRecords

// Issue 29's rows: an FTS5 search read into records, and records with a JSON column, each against
// raw C and GRDB 7.10 on the same rows.

@Record(table: "docs")
struct BenchDoc {
    @PrimaryKey @Column("rowid") var id: Int64?
    var title: String
    var body: String
    var checksum: Int64 { (id ?? 0) &* 3 &+ Int64(title.utf8.count) &* 5 &+ Int64(body.utf8.count) }
}

/// `fts-lookup`'s rows: a todo and the FTS5 index over its titles (external content), as in
/// Examples/TodoService.
@Record(table: "todo")
struct BenchTodo {
    @PrimaryKey var id: Int64?
    var title: String
    var completed: Bool
}

@Record(table: "todo_search")
struct BenchTodoTitle {
    @PrimaryKey @Column("rowid") var id: Int64?
    var title: String
}

@Record(table: "article")
struct BenchArticle {
    @PrimaryKey var id: Int64?
    var title: String
    @JSON var tags: [String]
    var checksum: Int64 { (id ?? 0) &* 3 &+ Int64(title.utf8.count) &+ tags.reduce(0) { $0 &* 31 &+ Int64($1.utf8.count) } }
}

/// GRDB's Codable record of the same row: GRDB stores the array as JSON text.
struct GRDBArticle: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "article"
    var id: Int64?
    var title: String
    var tags: [String]
    var checksum: Int64 { (id ?? 0) &* 3 &+ Int64(title.utf8.count) &+ tags.reduce(0) { $0 &* 31 &+ Int64($1.utf8.count) } }
}

enum SearchJSONWorkloads {
    enum Kind: String, CaseIterable {
        case ftsMatch = "fts-match"
        case jsonRecord = "json-record"
        /// Many small searches (one match each, joined to its row), as TodoService's search route
        /// runs one per request: the per-query cost, not the per-row one. `rows` is the searches.
        case ftsLookup = "fts-lookup"
        /// Many reads of one record by its key, as TodoService's `GET /todos/:id`: `rows` is the reads.
        case recordLookup = "record-lookup"
        var defaultRows: Int {
            switch self {
            case .ftsMatch: return 100_000
            case .jsonRecord: return 200_000
            case .ftsLookup: return 20_000
            case .recordLookup: return 200_000
            }
        }
    }

    static let words = ["spice", "desert", "water", "sand", "worm", "house", "emperor", "guild", "planet", "storm"]
    static let matchSQL = #"SELECT "docs"."rowid", "docs"."title", "docs"."body" FROM "docs" WHERE "docs" MATCH ? ORDER BY "docs"."rank" ASC"#
    static let lookupSQL =
        #"SELECT "todo"."id", "todo"."title", "todo"."completed" FROM "todo_search" JOIN "todo" ON "todo"."id" = "todo_search"."rowid" WHERE "todo_search" MATCH ? ORDER BY rank LIMIT ?"#
    /// The searches: "seed K" for K cycling through the 1,000 titles.
    static func lookupText(_ index: Int) -> String { "seed \(index % 1_000 + 1)" }
    static let articleSQL = #"SELECT "article"."id", "article"."title", "article"."tags" FROM "article""#

    static func populate(_ kind: Kind, path: String, rows: Int) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        switch kind {
        case .ftsMatch:
            try Raw.exec(db, "CREATE VIRTUAL TABLE docs USING fts5(title, body); BEGIN")
            let insert = try Raw.prepare(db, "INSERT INTO docs(rowid, title, body) VALUES (?, ?, ?)")
            defer { sqlite3_finalize(insert) }
            for row in 0..<rows {
                // "spice" is in one document in ten, more often in some than others (for rank).
                let body = (0..<(8 + row % 5)).map { words[(row &* 7 &+ $0 &* 3) % words.count] }.joined(separator: " ")
                let title = "Chapter \(row) \(row % 10 == 0 ? "spice" : words[row % words.count])"
                sqlite3_bind_int64(insert, 1, Int64(row + 1))
                sqlite3_bind_text(insert, 2, title, -1, Raw.transient)
                sqlite3_bind_text(insert, 3, row % 10 == 0 ? body + " spice" : body.replacingOccurrences(of: "spice", with: "melange"), -1, Raw.transient)
                guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite("insert doc") }
                sqlite3_reset(insert)
            }
        case .ftsLookup, .recordLookup:
            try Raw.exec(
                db,
                """
                CREATE TABLE todo(id INTEGER PRIMARY KEY, title TEXT NOT NULL, completed INTEGER NOT NULL);
                CREATE VIRTUAL TABLE todo_search USING fts5(title, content='todo', content_rowid='id');
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000)
                INSERT INTO todo(title, completed) SELECT 'seed ' || x, x % 2 FROM c;
                INSERT INTO todo_search(todo_search) VALUES ('rebuild');
                BEGIN
                """)
        case .jsonRecord:
            try Raw.exec(db, "CREATE TABLE article(id INTEGER PRIMARY KEY, title TEXT NOT NULL, tags TEXT NOT NULL); BEGIN")
            let insert = try Raw.prepare(db, "INSERT INTO article VALUES (?, ?, ?)")
            defer { sqlite3_finalize(insert) }
            for row in 0..<rows {
                let tags = (0..<(row % 4)).map { "\"\(words[(row + $0) % words.count])\"" }.joined(separator: ",")
                sqlite3_bind_int64(insert, 1, Int64(row + 1))
                sqlite3_bind_text(insert, 2, "Article \(row)", -1, Raw.transient)
                sqlite3_bind_text(insert, 3, "[\(tags)]", -1, Raw.transient)
                guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite("insert article") }
                sqlite3_reset(insert)
            }
        }
        try Raw.exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @MainActor static func measureAll() throws -> [Result] {
        var results: [Result] = []
        for kind in Kind.allCases where options.filter == nil || kind.rawValue.contains(options.filter!) {
            if !options.json { FileHandle.standardError.write(Data("running \(kind.rawValue)...\n".utf8)) }
            let rows = options.rows ?? kind.defaultRows
            let path = directory.appendingPathComponent("\(kind.rawValue).sqlite").path
            try? FileManager.default.removeItem(atPath: path)
            try populate(kind, path: path, rows: rows)
            var measurements = Array(repeating: Measurement(), count: 3)
            var expected: Int64?
            for round in 0...options.runs {
                for index in 0..<3 {
                    let start: UInt64
                    var result: Int64
                    switch index {
                    case 0:
                        let db = try Raw.open(path)
                        defer { sqlite3_close_v2(db) }
                        start = DispatchTime.now().uptimeNanoseconds
                        switch kind {
                        case .ftsMatch: result = try rawFTSMatch(db)
                        case .jsonRecord: result = try rawJSONRecord(db)
                        case .ftsLookup: result = try rawFTSLookup(db, searches: rows)
                        case .recordLookup: result = try rawRecordLookup(db, reads: rows)
                        }
                    case 1:
                        let db = try Connection(storageLocation: .onDisk(path))
                        try db.execute(Workloads.pragmas)
                        start = DispatchTime.now().uptimeNanoseconds
                        switch kind {
                        case .ftsMatch: result = try strataFTSMatch(db)
                        case .jsonRecord: result = try strataJSONRecord(db)
                        case .ftsLookup: result = try strataFTSLookup(db, searches: rows)
                        case .recordLookup: result = try strataRecordLookup(db, reads: rows)
                        }
                    default:
                        let queue = try RecordWorkloads.grdbQueue(path)
                        start = DispatchTime.now().uptimeNanoseconds
                        switch kind {
                        case .ftsMatch: result = try queue.read { try grdbFTSMatch($0) }
                        case .jsonRecord: result = try queue.read { try grdbJSONRecord($0) }
                        // Outside `read`, so each search runs on its own, as a request's would.
                        case .ftsLookup: result = try grdbFTSLookup(queue, searches: rows)
                        case .recordLookup: result = try grdbRecordLookup(queue, reads: rows)
                        }
                    }
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                    if let expected, expected != result {
                        throw BenchError.mismatch("\(kind.rawValue): contestant \(index) computed \(result), expected \(expected)")
                    }
                    expected = result
                    if round > 0 { measurements[index].times.append(elapsed) }
                }
            }
            results.append(Result(workload: kind.rawValue, rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[2]))
        }
        return results
    }

    // MARK: - Contenders (each function's name is what callgrind-records.sh counts)

    // Each contender reads in one read transaction, as GRDB's `read` does: FTS5 runs an internal
    // statement per matched row, and in autocommit mode each one's end goes through SQLite's
    // commit path (about 150 instructions a matched row, 4% of this query).
    @inline(never) static func rawFTSMatch(_ db: OpaquePointer) throws -> Int64 {
        try Raw.exec(db, "BEGIN")
        defer { try? Raw.exec(db, "COMMIT") }
        let statement = try Raw.prepare(db, matchSQL)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, "\"spice\"", -1, Raw.transient)
        var docs: [BenchDoc] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            docs.append(BenchDoc(id: sqlite3_column_int64(statement, 0), title: QueryWorkloads.text(statement, 1), body: QueryWorkloads.text(statement, 2)))
        }
        return docs.enumerated().reduce(0) { $0 &+ $1.element.checksum &* Int64($1.offset + 1) }
    }

    @inline(never) static func strataFTSMatch(_ db: Connection) throws -> Int64 {
        let docs = try db.transaction { try BenchDoc.matching(FTS5Pattern(matchingAllTokensIn: "spice")).orderByRank().fetchAll(db) }
        return docs.enumerated().reduce(0) { $0 &+ $1.element.checksum &* Int64($1.offset + 1) }
    }

    @inline(never) static func grdbFTSMatch(_ db: GRDB.Database) throws -> Int64 {
        let pattern = FTS5Pattern(matchingAllTokensIn: "spice").map { "\($0)" } ?? ""
        let rows = try GRDB.Row.fetchCursor(db, sql: matchSQL, arguments: [pattern])
        var docs: [BenchDoc] = []
        while let row = try rows.next() { docs.append(BenchDoc(id: row[0], title: row[1], body: row[2])) }
        return docs.enumerated().reduce(0) { $0 &+ $1.element.checksum &* Int64($1.offset + 1) }
    }

    // Each search on its own (autocommit), as one request's; the statement prepared once, as a
    // statement cache keeps it.
    @inline(never) static func rawFTSLookup(_ db: OpaquePointer, searches: Int) throws -> Int64 {
        let statement = try Raw.prepare(db, lookupSQL)
        defer { sqlite3_finalize(statement) }
        var sum: Int64 = 0
        for index in 0..<searches {
            let words = lookupText(index).split(separator: " ").map { "\"\($0)\"" }.joined(separator: " ")
            sqlite3_bind_text(statement, 1, words, -1, Raw.transient)
            sqlite3_bind_int64(statement, 2, 20)
            var todos: [BenchTodo] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                todos.append(
                    BenchTodo(
                        id: sqlite3_column_int64(statement, 0), title: QueryWorkloads.text(statement, 1),
                        completed: sqlite3_column_int64(statement, 2) != 0))
            }
            sqlite3_reset(statement)
            for todo in todos { sum = sum &+ (todo.id ?? 0) &* 3 &+ Int64(todo.title.utf8.count) &+ (todo.completed ? 1 : 0) }
        }
        return sum
    }

    /// As TodoService's Strata store searches: a typed join of the matches to their todos.
    @inline(never) static func strataFTSLookup(_ db: Connection, searches: Int) throws -> Int64 {
        var sum: Int64 = 0
        for index in 0..<searches {
            guard let pattern = Strata.FTS5Pattern(matchingAllTokensIn: lookupText(index)) else { continue }
            let todos = try BenchTodoTitle.matching(pattern).orderByRank()
                .join(BenchTodo.self, on: { $0.id == $1.id })
                .limit(20)
                .fetchAll(db)
                .map(\.1)
            for todo in todos { sum = sum &+ (todo.id ?? 0) &* 3 &+ Int64(todo.title.utf8.count) &+ (todo.completed ? 1 : 0) }
        }
        return sum
    }

    @inline(never) static func grdbFTSLookup(_ queue: DatabaseQueue, searches: Int) throws -> Int64 {
        var sum: Int64 = 0
        for index in 0..<searches {
            let pattern: String = Strata.FTS5Pattern(matchingAllTokensIn: lookupText(index)).map { "\($0)" } ?? ""
            let rows = try queue.read { db in try GRDB.Row.fetchAll(db.cachedStatement(sql: lookupSQL), arguments: [pattern, 20]) }
            for row in rows {
                let id: Int64 = row[0]
                let title: String = row[1]
                let completed: Bool = row[2]
                sum = sum &+ id &* 3 &+ Int64(title.utf8.count) &+ (completed ? 1 : 0)
            }
        }
        return sum
    }

    static let lookupByIDSQL = #"SELECT "todo"."id", "todo"."title", "todo"."completed" FROM "todo" WHERE "todo"."id" = ?"#

    @inline(never) static func rawRecordLookup(_ db: OpaquePointer, reads: Int) throws -> Int64 {
        let statement = try Raw.prepare(db, lookupByIDSQL)
        defer { sqlite3_finalize(statement) }
        var sum: Int64 = 0
        for index in 0..<reads {
            sqlite3_bind_int64(statement, 1, Int64(index % 1_000 + 1))
            if sqlite3_step(statement) == SQLITE_ROW {
                let todo = BenchTodo(
                    id: sqlite3_column_int64(statement, 0), title: QueryWorkloads.text(statement, 1),
                    completed: sqlite3_column_int64(statement, 2) != 0)
                sum = sum &+ (todo.id ?? 0) &* 3 &+ Int64(todo.title.utf8.count) &+ (todo.completed ? 1 : 0)
            }
            sqlite3_reset(statement)
        }
        return sum
    }

    /// As TodoService's Strata store reads a todo: `fetchOne(_:id:)`.
    @inline(never) static func strataRecordLookup(_ db: Connection, reads: Int) throws -> Int64 {
        var sum: Int64 = 0
        for index in 0..<reads {
            if let todo = try BenchTodo.fetchOne(db, id: Int64(index % 1_000 + 1)) {
                sum = sum &+ (todo.id ?? 0) &* 3 &+ Int64(todo.title.utf8.count) &+ (todo.completed ? 1 : 0)
            }
        }
        return sum
    }

    /// Each read on its own, as a request's (a `read` per lookup, its statement cached).
    @inline(never) static func grdbRecordLookup(_ queue: DatabaseQueue, reads: Int) throws -> Int64 {
        var sum: Int64 = 0
        for index in 0..<reads {
            let row = try queue.read { db in try GRDB.Row.fetchOne(db.cachedStatement(sql: lookupByIDSQL), arguments: [Int64(index % 1_000 + 1)]) }
            if let row {
                let id: Int64 = row[0]
                let title: String = row[1]
                let completed: Bool = row[2]
                sum = sum &+ id &* 3 &+ Int64(title.utf8.count) &+ (completed ? 1 : 0)
            }
        }
        return sum
    }

    @inline(never) static func rawJSONRecord(_ db: OpaquePointer) throws -> Int64 {
        let statement = try Raw.prepare(db, articleSQL)
        defer { sqlite3_finalize(statement) }
        let decoder = JSONDecoder()
        var articles: [BenchArticle] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let json = Data(bytes: sqlite3_column_blob(statement, 2), count: Int(sqlite3_column_bytes(statement, 2)))
            articles.append(
                BenchArticle(
                    id: sqlite3_column_int64(statement, 0), title: QueryWorkloads.text(statement, 1),
                    tags: try decoder.decode([String].self, from: json)))
        }
        return articles.reduce(0) { $0 &+ $1.checksum }
    }

    @inline(never) static func strataJSONRecord(_ db: Connection) throws -> Int64 {
        try BenchArticle.fetchAll(db).reduce(0) { $0 &+ $1.checksum }
    }

    @inline(never) static func grdbJSONRecord(_ db: GRDB.Database) throws -> Int64 {
        try GRDBArticle.fetchAll(db).reduce(0) { $0 &+ $1.checksum }
    }
}
