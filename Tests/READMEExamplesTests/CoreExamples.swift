// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The examples for `import Strata` of the README (between `README:` markers) and of the Strata
// catalog's Examples article (between `DOC:begin Examples N` markers), word for word (the sync test
// holds them to the documents), each followed by what it must have printed.
import Foundation
import Strata
import Testing

@Suite(.serialized) struct READMEExamples {
    /// The README's examples and the Examples article's that continue them, in the order they were
    /// once all in the README, in one new folder, as a reader would run them.
    @Test func everyExampleRunsAsPrintedInOrder() async throws {
        try await inNewFolder {
            let db = try example1()
            #expect(printed.take() == [#"2 ["Audi", "Mercedes"] 52642"#, "Audi 52642"])
            try example2(db: db)
            #expect(printed.take() == [#"["Audi", "Mercedes"]"#])
            try example3(db: db)
            #expect(printed.take() == ["[30, 70]"])
            try example4(db: db)
            #expect(printed.take() == ["constraintPrimaryKey constraint", "UNIQUE constraint failed: cars.id", "misuse"])
            try example5(db: db)
            #expect(printed.take() == ["UPDATE cars SET name = strip_accents('Škoda') WHERE id = 2", "update row 2 on cars", "true"])
            #expect(try db.query("SELECT name FROM cars WHERE id = 2") as String? == "Skoda")
            try await example6()
            #expect(printed.take() == ["2", #"["Audi"]"#, "52642", "1"])
            #expect(((try? FileManager.default.attributesOfItem(atPath: "app.sqlite-wal"))?[.size] as? NSNumber)?.intValue ?? 0 == 0)
            try swiftlyExample7()
            #expect(printed.take() == ["id: 1", "name: Alice"])
            try example8()
            #expect(printed.take() == [#"["v1", "v2"]"#])
            try example9()
            #expect(printed.take() == ["[2] [20]"])
            try example10()
            #expect(printed.take() == [#"["Audi", "Volvo"]"#])
            try squealExample11()
            #expect(printed.take() == [#"["amelia@gastrobot.xyz"] 1"#, "1"])
            let squealDB = try squealExample12()
            #expect(printed.take() == ["2", #"["id", "name", "email", "url"]"#])
            try squealExample13(db: squealDB)
            #expect(printed.take() == [#"["id", "email"]"#])
            try recordsExample14()
            #expect(printed.take() == [#"1 ["Ann"] true"#])
            let database = try await recordsExample15()
            #expect(printed.take() == ["1"])
            try recordsExample16()
            #expect(printed.take() == [#"["Lavinia by Le Guin", "The Lathe of Heaven by Le Guin"]"#, #"["FR: 1", "US: 2"]"#,
                                       #"["Le Guin"] ["Le Guin: 2", "Vian: 1"]"#])
            try await recordsExample17(database: database)
            #expect(await printed.waitFor(#"["Cy", "Bob"]"#))
            #expect(Array(printed.take().prefix(2)) == ["players: 1", "players: 2"])
            try example17()
            #expect(printed.take() == ["wal"])
            try example18()
            #expect(printed.take() == [])
            try example19()
            #expect(printed.take() == ["100 200"])
            try ormExample20()
            #expect(printed.take() == [#"["users": new table created]"#, "John 1 1"])
            try example21()
            #expect(printed.take() == [#"SELECT count(*) FROM "book" WHERE year > ? AND title IS NOT NULL"#, "1"])
            try example22()
            #expect(printed.take() == [#"["Dune"]"#, "sci-fi"])
            try await syncExample24()
            #expect(printed.take() == ["0 1"])
            try await cAPIExample()
            #expect(printed.take().count == 1)   // two counters whose values vary
        }
    }

    /// The README's short examples of `Database`, observation, Squeal's helpers and the ORM, in a folder of
    /// their own (their files and tables would meet the examples above).
    @Test func shortReadmeExamplesRunAsPrinted() async throws {
        try await inNewFolder {
            let database = try await databaseExample3()
            #expect(printed.take() == [#"["Audi"]"#])
            try await observationExample4(database: database)
            #expect(printed.take() == [#"["Audi"]"#, #"["Audi", "Fiat"]"#])
            try await database.close()
            try squealExample7()
            #expect(printed.take() == [#"["amelia@gastrobot.xyz"] 1"#])
            try ormExample11()
            #expect(printed.take() == [#"["users": new table created]"#, "1 O'Brien"])
        }
    }

    func databaseExample3() async throws -> Database {
        // README:begin 1
        let database = try Database(path: "app.sqlite")   // WAL, foreign keys on, a 5 s busy timeout
        try await database.write { db in                    // one IMMEDIATE transaction: rolled back if the closure throws
            try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT)")
            try db.run("INSERT INTO cars(name) VALUES(?)", "Audi")
        }
        let names = try await database.read { try $0.query("SELECT name FROM cars ORDER BY id") as [String] }   // one snapshot
        print(names)   // ["Audi"]
        // README:end
        return database
    }

    func observationExample4(database: Database) async throws {
        // README:begin 4
        for try await names in database.observe({ try $0.query("SELECT name FROM cars ORDER BY id") as [String] }) {
            print(names)                    // ["Audi"], then ["Audi", "Fiat"]
            if names.count == 2 { break }   // leaving the loop ends the observation
            try await database.write { try $0.run("INSERT INTO cars(name) VALUES(?)", "Fiat") }
        }
        // README:end
    }

    /// The Examples article's tour of the rest of SQLite's C API, with what it assumes.
    func cAPIExample() async throws {
        let connection = try Connection(path: "capi.sqlite")
        let database = try Database(path: "capi-pool.sqlite")
        let input = URL(fileURLWithPath: "video.mp4")
        let content = Data((0..<200_000).map { UInt8($0 % 251) })
        try content.write(to: input)
        _ = FileManager.default.createFile(atPath: "video-copy.mp4", contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: "video-copy.mp4"))
        // DOC:begin Examples 14
        // Stream a file into a row and back out, one 64 KiB chunk in memory at a time.
        try connection.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT, body BLOB)")
        let size = try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int ?? 0
        try connection.run("INSERT INTO files(name, body) VALUES(?, ?)", "video.mp4", ZeroBlob(count: size))
        let blob = try connection.openBlob(table: "files", column: "body", rowID: connection.lastInsertRowID, writable: true)
        try blob.copy(from: input)                      // or: try await blob.write(from: someAsyncSequenceOfData)
        for try await chunk in blob.chunks(ofSize: 64 * 1024) { try output.write(contentsOf: chunk) }
        blob.close()                                    // an open blob keeps a transaction from committing

        // A table-valued function: rows from Swift, on every connection of a Database.
        let series = TableValuedFunction(name: "series", columns: ["value"], parameters: ["start", "stop", "step"]) { arguments in
            let start = arguments[0].integerValue ?? 0, stop = arguments[1].integerValue ?? start
            return stride(from: start, through: stop, by: Int(arguments[2].integerValue ?? 1)).map { [$0] }
        }
        try database.createTableValuedFunction(series)
        let total: Int? = try await database.read { try $0.query("SELECT sum(value) FROM series(1, 100)") }   // 5050

        // A database as bytes and back; a dump as SQL text and back.
        let bytes = try connection.serialize()
        let copy = try Connection(deserializing: bytes, sizeLimit: 16 << 20)   // writes past 16 MB: SQLITE_FULL
        try connection.dump(to: URL(fileURLWithPath: "backup.sql"))
        try Connection(path: "restored.db").restore(fromDumpAt: URL(fileURLWithPath: "backup.sql"))

        // Limits and status; a named in-memory database that a Database's writer and readers share.
        connection.limits[.length] = 1_000_000           // no string or blob over 1 MB on this connection
        print(connection.status().cacheUsed.current, SQLiteProcessStatus.current().memoryUsed.highwater)
        let scratch = try Database(path: Database.inMemoryPath(named: "scratch"))   // gone with its last connection
        // DOC:end
        try output.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: "video-copy.mp4")) == content)
        #expect(total == 5050)
        #expect(try copy.query("SELECT length(body) FROM files") as Int? == content.count)
        #expect(try Connection(path: "restored.db").query("SELECT length(body) FROM files") as Int? == content.count)
        #expect(connection.limits[.length] == 1_000_000)
        try await scratch.write { try $0.execute("CREATE TABLE t(x)") }
        try await scratch.close()
        try await database.close()
    }

    func example1() throws -> Connection {
        // README:begin 2
        let db = try Connection(path: "cars.sqlite")   // the same settings as a Database's writer
        try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")

        // Values are always bound, never spliced into SQL.
        try db.run("INSERT INTO cars VALUES(?, ?, ?)", 1, "Audi", 52_642)
        try db.prepare("INSERT INTO cars VALUES(:id, :name, :price)")
            .bind([":id": 2, ":name": "Mercedes", ":price": 57_127])
            .run()

        let count: Int? = try db.query("SELECT count(*) FROM cars")
        let names: [String] = try db.query("SELECT name FROM cars ORDER BY name")
        let prices: [String: Int] = try db.query("SELECT name, price FROM cars") { ($0[0], $0[1]) }
        print(count ?? 0, names, prices["Audi"] ?? 0)   // 2 ["Audi", "Mercedes"] 52642

        if let row = try db.query("SELECT name, price FROM cars WHERE id = ?", 1) {
            let name: String? = row["name"]      // optional subscripts never trap
            let price: Int? = row[1]
            print(name ?? "", price ?? 0)        // Audi 52642
        }
        // README:end
        return db
    }

    func example2(db: Connection) throws {
        // DOC:begin Examples 1
        struct Car: ExpressibleByRow {
            let name: String
            let price: Int
            init(row: Row) throws {
                guard let name: String = row["name"], let price: Int = row["price"] else {
                    throw ExpressibleByRowError(type: Car.self, row: row)
                }
                self.name = name
                self.price = price
            }
        }
        let cars: [Car] = try db.query("SELECT name, price FROM cars WHERE price > ?", 20_000)
        print(cars.map(\.name))   // ["Audi", "Mercedes"]
        // DOC:end
    }

    func example3(db: Connection) throws {
        // DOC:begin Examples 2
        try db.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0))")
        try db.run("INSERT INTO accounts VALUES(1, 100), (2, 0)")
        try db.transaction(transactionType: .immediate) {
            try db.run("UPDATE accounts SET balance = balance - ? WHERE id = ?", 70, 1)
            try db.run("UPDATE accounts SET balance = balance + ? WHERE id = ?", 70, 2)
        }
        try? db.transaction {
            try db.run("UPDATE accounts SET balance = balance + ? WHERE id = ?", 70, 2)
            try db.run("UPDATE accounts SET balance = balance - ? WHERE id = ?", 70, 1)   // CHECK fails: all undone
        }
        print(try db.query("SELECT balance FROM accounts ORDER BY id") as [Int])   // [30, 70]
        // DOC:end
    }

    func example4(db: Connection) throws {
        // README:begin 3
        do { try db.run("INSERT INTO cars(id, name) VALUES(?, ?)", 1, "Volvo") }
        catch let error as SQLiteError {
            print(error.resultCode, error.resultCode.primary)   // constraintPrimaryKey constraint
            print(error.message)                                // UNIQUE constraint failed: cars.id
        }
        do { try db.run("INSERT INTO cars(name) VALUES(?)", "Volvo", "Saab") }
        catch let error as SQLiteError { print(error.resultCode) }   // misuse: 2 values, 1 parameter
        // README:end
    }

    func example5(db: Connection) throws {
        // DOC:begin Examples 3
        try db.addScalarFunction(named: "strip_accents", argumentCount: 1, deterministic: true) { _, values in
            values[0].isNull ? .null : .text(values[0].text.folding(options: .diacriticInsensitive, locale: nil))
        }
        db.createCollation(named: "NUMERIC") { lhs, rhs in lhs.compare(rhs, options: .numeric) }
        db.updateHook { type, database, table, rowID in print("\(type) row \(rowID) on \(table ?? "")") }
        db.traceEvent(mask: Connection.TraceEvent.statementMask) { event in
            if case .statement(let expanded, _) = event { print(expanded) }   // the SQL with values expanded
        }
        try db.run("UPDATE cars SET name = strip_accents(?) WHERE id = ?", "Škoda", 2)
        // UPDATE cars SET name = strip_accents('Škoda') WHERE id = 2
        // update row 2 on cars
        db.traceEvent(closure: nil)
        db.updateHook(nil)
        try db.busyHandler(.timeout(1.0))
        let checkpoint = try db.checkpoint(mode: .passive)
        print(checkpoint.logFrames == checkpoint.checkpointedFrames)   // true: every WAL frame copied back
        // DOC:end
    }

    func example6() async throws {
        // DOC:begin Examples 4
        let database = try Database(path: "app.sqlite")   // WAL, foreign keys on, 5 s busy timeout: Database.Configuration()
        try await database.write { db in                    // one IMMEDIATE transaction: rolled back if the closure throws
            try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
            try db.run("INSERT INTO cars(name, price) VALUES(?, ?), (?, ?)", "Audi", 52_642, "Fiat", 900)
        }
        let count = try await database.read { try $0.query("SELECT count(*) FROM cars") as Int? }   // one snapshot
        print(count ?? 0)                                                      // 2
        try await database.write { try $0.run("DELETE FROM cars WHERE price < ?", 1_000) }
        try await database.writeWithoutTransaction { try $0.execute("VACUUM") }   // VACUUM and pragmas: no transaction
        let names = try await database.read { try $0.query("SELECT name FROM cars") as [String] }
        print(names)                                                           // ["Audi"]
        let audi = try await database.readOnCallingThread { try $0.query("SELECT price FROM cars WHERE name = ?", "Audi") as Int? }   // a short read: no thread hop
        print(audi ?? 0)                                                       // 52642
        try await database.close()   // drains and checkpoints: app.sqlite alone now holds every row

        // Settings belong to each Database, not to the file: a second one has foreign keys on too.
        let reopened = try Database(path: "app.sqlite")
        print(try await reopened.read { try $0.query("PRAGMA foreign_keys") as Int? } ?? -1)   // 1
        try await reopened.close()
        // DOC:end
    }

    func example8() throws {
        // README:begin 5
        let db = try Connection(path: "garage.sqlite")
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT)") }
        migrator.registerMigration("v2") { db in try db.execute("ALTER TABLE cars ADD COLUMN price INTEGER") }
        print(try migrator.migrate(db))   // ["v1", "v2"]
        // README:end
    }

    func example9() throws {
        // DOC:begin Examples 5
        let db = try Connection(path: ":memory:")   // in memory
        try db.execute("CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 2)")
        let before: [Int] = try db.query("SELECT * FROM t") { row in row["y"] }   // [2]
        try db.execute("DROP TABLE t; CREATE TABLE t(y, x); INSERT INTO t VALUES(20, 10)")
        let after: [Int] = try db.query("SELECT * FROM t") { row in row["y"] }    // [20], not x's 10
        print(before, after)   // [2] [20]
        // DOC:end
    }

    func example10() throws {
        // DOC:begin Examples 6
        let db = try Connection(path: ":memory:")   // in memory
        let cursor = db.statements(in: """
            CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO cars(name) VALUES('Audi'), ('Volvo');
            SELECT name FROM cars ORDER BY id;
            """)
        var names: [String] = []
        while let statement = try cursor.next() {
            if cursor.isAtLastStatement { names = try statement.query() } else { try statement.run() }
        }
        print(names)   // ["Audi", "Volvo"]
        // DOC:end
    }

    func example17() throws {
        // README:begin 9
        var configuration = Database.Configuration()
        configuration.replicationSafety = .litestream         // IMMEDIATE writes, WAL kept, PASSIVE checkpoints
        let database = try Database(path: "ledger.sqlite", configuration: configuration)
        try database.write { try $0.execute("CREATE TABLE orders(id INTEGER PRIMARY KEY, total INTEGER)") }
        print(try database.read { try $0.query("PRAGMA journal_mode") as String? } ?? "")   // wal
        // README:end
    }

    /// Runs only in a process started with `LITESTREAM_REPLICA_URL` (LitestreamReplicaTests does
    /// that); here it must refuse with the error the README names.
    func example18() throws {
        do {
            // DOC:begin Examples 13
            let replica = try Database(replicaOf: "s3://my-bucket/ledger.sqlite", litestreamVFS: "/opt/litestream/litestream-vfs.so")
            let count = try replica.read { try $0.query("SELECT count(*) FROM orders") as Int? }
            // replica is read-only: replica.write { ... } throws ReplicationError.writeRefused
            // DOC:end
            Issue.record("opened a replica without LITESTREAM_REPLICA_URL: \(count ?? -1)")
        } catch let error as ReplicationError {
            guard case .notInEnvironment = error else { Issue.record("unexpected \(error)"); return }
        }
    }

    func example19() throws {
        // README:begin 10
        let setup = "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER); INSERT INTO cars VALUES(1, 'Audi', 100)"
        let db = try Connection(path: "shop.sqlite")
        let copy = try Connection(path: "shop-copy.sqlite")
        try db.execute(setup)
        try copy.execute(setup)

        let session = try db.recordChanges()
        try db.run("UPDATE cars SET price = price * 2 WHERE id = ?", 1)
        let edit = try session.changeset()                  // a Sendable value over SQLite's bytes (edit.data)
        try copy.apply(edit) { conflict in conflict.kind == .data ? .replace : .omit }   // sync: copy's price is 200
        try db.apply(try edit.inverted()) { _ in .abort }   // undo: all or nothing
        print(try db.query("SELECT price FROM cars") as Int? ?? 0, try copy.query("SELECT price FROM cars") as Int? ?? 0)   // 100 200
        // README:end
    }

    func example21() throws {
        // README:begin 12
        let db = try Connection(path: ":memory:")   // in memory
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        let title = "Dune'); DROP TABLE book; --"        // stays a value
        try db.run(literal: "INSERT INTO book(title, year) VALUES (\(title), \(1965))")
        var filter: SQLFragment = "year > \(1900)"
        filter = filter + " AND title IS NOT NULL"
        let query: SQLFragment = "SELECT count(*) FROM \(identifier: "book") WHERE \(filter)"
        print(query.sql)                                  // SELECT count(*) FROM "book" WHERE year > ? AND title IS NOT NULL
        let count: Int? = try db.query(literal: query)
        print(count ?? 0)                                 // 1
        // README:end
    }

    func example22() throws {
        // README:begin 13
        let db = try Connection(path: ":memory:")   // in memory
        try db.createFTS5Table("docs", columns: ["title", "body"], options: FTS5Options(tokenizer: .porter(.unicode61())))
        try db.run("INSERT INTO docs(title, body) VALUES (?, ?)", "Dune", "Spice must flow")
        try db.run("INSERT INTO docs(title, body) VALUES (?, ?)", "Emma", "Matchmaking in Highbury")
        let pattern = FTS5Pattern(matchingAllTokensIn: "flowing \"spice")   // stemmed; the stray quote is harmless
        let hits: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(pattern) ORDER BY rank")
        print(hits)                                        // ["Dune"]
        try db.execute("CREATE TABLE notes(tags TEXT)")
        try db.run("INSERT INTO notes(tags) VALUES (?)", JSONBinding(["sci-fi", "classic"]))
        let first: String? = try db.query("SELECT json_extract(tags, '$[0]') FROM notes")
        print(first ?? "")                                 // sci-fi
        // README:end
    }
}
