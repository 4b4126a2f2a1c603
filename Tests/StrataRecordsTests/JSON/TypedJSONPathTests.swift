import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

struct PathMetadata: Codable, Equatable {
    var tags: [String]
    var rating: Double?
    var scores: [Double]?
    var counts: [Int64]?
    var notes: [String?]?
}

@Record(table: "path_book") struct PathBook: Equatable {
    @PrimaryKey var id: Int64?
    var title: String
    @JSON var metadata: PathMetadata
}

/// A column of JSON text written by something else: the path may hold a scalar or an object.
@Record(table: "path_note") struct PathNote: Equatable {
    @PrimaryKey var id: Int64?
    var body: String?
}

@Record(table: "path_session") struct PathSession: Equatable {
    @PrimaryKey var id: Int64?
    var pages: Int
    var minutes: Double?
    var reader: String
}

@Suite struct TypedJSONPathTests {
    func books() throws -> Connection {
        try connection(holding: [
            PathBook(id: nil, title: "Dune", metadata: PathMetadata(tags: ["sci-fi", "classic"], rating: 4.5)),
            PathBook(id: nil, title: "Emma", metadata: PathMetadata(tags: ["classic"], rating: nil)),
            PathBook(id: nil, title: "Blank", metadata: PathMetadata(tags: [], rating: 2))
        ])
    }

    func ids(_ query: RecordQuery<PathBook>, _ db: Connection) throws -> [Int64] {
        try query.order(by: \.id).fetchAll(db).compactMap(\.id)
    }

    @Test func containsCountIsEmptyAndNilAsAPIMDWritesThem() throws {
        let db = try books()
        #expect(try ids(PathBook.where { $0.metadata.json("$.tags", as: [String].self).contains("sci-fi") }, db) == [1])
        #expect(try ids(PathBook.where { $0.metadata.json("$.tags", as: [String].self).contains("classic") }, db) == [1, 2])
        #expect(try ids(PathBook.where { !$0.metadata.json("$.tags", as: [String].self).contains("classic") }, db) == [3])
        #expect(try ids(PathBook.where { $0.metadata.json("$.tags", as: [String].self).count >= 2 }, db) == [1])
        #expect(try ids(PathBook.where { $0.metadata.json("$.tags", as: [String].self).count == 1 }, db) == [2])
        #expect(try ids(PathBook.where { $0.metadata.json("$.tags", as: [String].self).isEmpty }, db) == [3])
        #expect(try ids(PathBook.where { !$0.metadata.json("$.tags", as: [String].self).isEmpty }, db) == [1, 2])
        #expect(try ids(PathBook.where { $0.metadata.json("$.rating", as: Double.self) == nil }, db) == [2])
        #expect(try ids(PathBook.where { $0.metadata.json("$.rating", as: Double.self) != nil }, db) == [1, 3])
        #expect(try ids(PathBook.where { $0.metadata.json("$.rating", as: Double.self) > 3 }, db) == [1])
        // An absent path: no count, neither empty nor holding anything.
        #expect(try PathBook.where { $0.metadata.json("$.scores", as: [Double].self).isEmpty }.fetchCount(db) == 0)
        #expect(try PathBook.where { $0.metadata.json("$.scores", as: [Double].self).count == nil }.fetchCount(db) == 3)
        #expect(try PathBook.where { $0.metadata.json("$.missing", as: [String].self).contains("classic") }.fetchCount(db) == 0)
    }

    @Test func thePathIsBoundNeverWrittenIntoTheSQL() throws {
        let db = try books()
        let query = PathBook.where {
            $0.metadata.json(#"$."it's"[0]"#, as: [String].self).contains("x") && $0.metadata.json("$.tags", as: [String].self).count >= 2
        }
        #expect(!query.sql.contains("it's"), "\(query.sql)")
        #expect(!query.sql.contains("$.tags"), "\(query.sql)")
        #expect(query.arguments.contains(.text(#"$."it's"[0]"#)))
        #expect(query.arguments.contains(.text("$.tags")))
        #expect(try query.fetchCount(db) == 0)
        // A key with a quote, found through the bound path.
        try db.execute(#"UPDATE path_book SET metadata = json_set(metadata, '$."it''s"', json('[["x"]]')) WHERE id = 2"#)
        #expect(try PathBook.where { $0.metadata.json(#"$."it's"[0]"#, as: [String].self).contains("x") }.fetchAll(db).map(\.id) == [2])
        // A malformed path is SQLite's error, thrown, not a crash.
        #expect(throws: SQLiteError.self) { try PathBook.where { $0.metadata.json("tags", as: [String].self).contains("x") }.fetchAll(db) }
    }

    @Test func selectAndOrderTakeBothForms() throws {
        let db = try books()
        let tags: [[String]?] = try PathBook.select { $0.metadata.json("$.tags", as: [String].self) }.order(by: \.id).fetchAll(db)
        #expect(tags == [["sci-fi", "classic"], ["classic"], []])
        let pairs = try PathBook.select { ($0.title, $0.metadata.json("$.tags", as: [String].self).count) }
            .order { $0.metadata.json("$.tags", as: [String].self).count.descending }.fetchAll(db)
        #expect(pairs.map(\.0) == ["Dune", "Emma", "Blank"])
        #expect(pairs.map(\.1) == [2, 1, 0])
        let byRating = try PathBook.order { $0.metadata.json("$.rating", as: Double.self).descending }.fetchAll(db).map(\.title)
        #expect(byRating == ["Dune", "Blank", "Emma"])
        let byArray = try PathBook.order { $0.metadata.json("$.tags", as: [String].self) }.fetchAll(db).map(\.title)
        #expect(byArray == ["Emma", "Dune", "Blank"]) // by the array's JSON text: ["classic"] < ["sci-fi",...] < []
        let missing: [[Double]?] = try PathBook.select { $0.metadata.json("$.scores", as: [Double].self) }.fetchAll(db)
        #expect(missing == [nil, nil, nil])
        // An array that is not [Element]'s JSON names the column and path.
        #expect {
            _ = try PathBook.select { $0.metadata.json("$.tags", as: [Int].self) }.fetchAll(db)
        } throws: { error in
            "\(error)".contains("metadata $.tags") && "\(error)".contains("PathBook")
        }
    }

    /// Strings as JSONEncoder writes them: quotes, backslashes, combining marks and NUL, which
    /// SQLite before 3.45 cuts a JSON string's value at ("a\0b" read as "a").
    @Test func containsStringsWithQuotesUnicodeAndNUL() throws {
        let db = try Connection()
        try PathBook.createTable(db)
        let stored: [[String]] = [["a\0b"], ["a"], ["a\0"], ["x'y\"z\\"], ["é"], ["e\u{301}"], [""], ["\\u0000"], ["\0"], ["\u{1}\u{7F}🙂"]]
        try PathBook.insertAll(db, stored.map { PathBook(id: nil, title: "", metadata: PathMetadata(tags: $0)) })
        let probes = ["a\0b", "a", "a\0", "a\0c", "x'y\"z\\", "x'y\"z", "é", "e\u{301}", "e", "", "\\u0000", "\0", "\0\0", "\u{1}\u{7F}🙂", "b"]
        for probe in probes {
            let expected = stored.indices.filter { stored[$0].contains { Array($0.utf8) == Array(probe.utf8) } }.map { Int64($0 + 1) }
            let found = try PathBook.where { $0.metadata.json("$.tags", as: [String].self).contains(probe) }.order(by: \.id).fetchAll(db).compactMap(\.id)
            #expect(found == expected, "contains(\(probe.debugDescription))")
        }
    }

    /// The same strings through a `@JSON` array column's own `contains`, which shares the
    /// comparison (it found "a" in ["a\0b"] before).
    @Test func columnContainsTellsNULStringsApart() throws {
        let db = try Connection()
        try JSONShape.createTable(db)
        for texts in [["a\0b"], ["a"], ["\0"]] {
            var row = JSONShape(
                id: nil,
                shape: JSONPropertyShape(
                    real: 0, integer: 0, text: "", date: Date(timeIntervalSinceReferenceDate: 0), data: Data(),
                    optional: nil, nested: [], map: [:]),
                doubles: [], dates: [], blobs: [], texts: texts, integers: [], maybe: nil)
            try row.insert(db)
        }
        #expect(try JSONShape.where { $0.texts.contains("a") }.fetchAll(db).map(\.id) == [2])
        #expect(try JSONShape.where { $0.texts.contains("a\0b") }.fetchAll(db).map(\.id) == [1])
        #expect(try JSONShape.where { $0.texts.contains("a\0") }.fetchAll(db).isEmpty)
        #expect(try JSONShape.where { $0.texts.contains("") }.fetchAll(db).isEmpty)
        #expect(try JSONShape.where { $0.texts.contains("\0") }.fetchAll(db).map(\.id) == [3])
    }

    @Test func containsNumbersAtTheirLimits() throws {
        let db = try Connection()
        try PathBook.createTable(db)
        let scores: [[Double]] = [[-0.0], [0.0], [Double.greatestFiniteMagnitude], [Double.leastNonzeroMagnitude], [1.5, -2.25]]
        let counts: [[Int64]] = [[Int64.max], [Int64.min], [Int64.max - 1], [Int64.min + 1], [0, 1 << 53, (1 << 53) + 1]]
        try PathBook.insertAll(db, zip(scores, counts).map { PathBook(id: nil, title: "", metadata: PathMetadata(tags: [], scores: $0, counts: $1)) })
        func withScore(_ value: Double) throws -> [Int64?] {
            try PathBook.where { $0.metadata.json("$.scores", as: [Double].self).contains(value) }.order(by: \.id).fetchAll(db).map(\.id)
        }
        func withCount(_ value: Int64) throws -> [Int64?] {
            try PathBook.where { $0.metadata.json("$.counts", as: [Int64].self).contains(value) }.order(by: \.id).fetchAll(db).map(\.id)
        }
        #expect(try withScore(0.0) == [1, 2]) // -0.0 == 0.0, as in Swift
        #expect(try withScore(-0.0) == [1, 2])
        #expect(try withScore(.greatestFiniteMagnitude) == [3])
        #expect(try withScore(Double.greatestFiniteMagnitude.nextDown) == [])
        #expect(try withScore(.leastNonzeroMagnitude) == [4])
        #expect(try withScore(-2.25) == [5])
        #expect(try withCount(.max) == [1])
        #expect(try withCount(.min) == [2])
        #expect(try withCount(.max - 1) == [3])
        #expect(try withCount(.min + 1) == [4])
        #expect(try withCount((1 << 53) + 1) == [5])
        #expect(try withCount(1 << 53) == [5])
        #expect(try withCount(-1) == [])
        // JSON holds no infinity: the query throws rather than matching anything.
        #expect(throws: (any Error).self) { try withScore(.infinity) }
    }

    @Test func optionalElementsAndJSONNull() throws {
        let db = try Connection()
        try PathBook.createTable(db)
        try PathBook.insertAll(
            db,
            [
                PathBook(id: nil, title: "", metadata: PathMetadata(tags: [], notes: ["x", nil])),
                PathBook(id: nil, title: "", metadata: PathMetadata(tags: [], notes: ["null"]))
            ])
        #expect(try PathBook.where { $0.metadata.json("$.notes", as: [String?].self).contains(nil) }.fetchAll(db).map(\.id) == [1])
        #expect(try PathBook.where { $0.metadata.json("$.notes", as: [String?].self).contains("null") }.fetchAll(db).map(\.id) == [2])
        #expect(try PathBook.where { $0.metadata.json("$.notes", as: [String?].self).contains("x") }.fetchAll(db).map(\.id) == [1])
    }

    /// A JSON text column written by another program: only an array's elements count.
    @Test func aPathToAScalarOrObjectHoldsNoElements() throws {
        let db = try Connection()
        try PathNote.createTable(db)
        let bodies: [String?] = [#"{"tags":"x"}"#, #"{"tags":{"k":"x"}}"#, #"{"tags":["x"]}"#, #"{}"#, nil]
        try PathNote.insertAll(db, bodies.map { PathNote(id: nil, body: $0) })
        #expect(try PathNote.where { $0.body.json("$.tags", as: [String].self).contains("x") }.fetchAll(db).map(\.id) == [3])
        let counts: [Int?] = try PathNote.select { $0.body.json("$.tags", as: [String].self).count }.order(by: \.id).fetchAll(db)
        #expect(counts == [0, 0, 1, nil, nil])
        #expect(try PathNote.where { $0.body.json("$.tags", as: [String].self).isEmpty }.fetchAll(db).map(\.id) == [1, 2])
    }

    /// Generated arrays against Swift's answers: `contains` (text by UTF-8 bytes, numbers by
    /// `==`), `count` and `isEmpty`.
    @Test func containsAndCountAgreeWithSwift() throws {
        try PropertyCheck.run("json path contains/count", cases: 30) { random in
            let db = try Connection()
            try PathBook.createTable(db)
            var rows: [PathMetadata] = []
            for _ in 0..<random.int(1...5) {
                func list<T>(_ make: (inout SeededRandom) -> T) -> [T] { (0..<random.int(0...4)).map { _ in make(&random) } }
                let metadata = PathMetadata(
                    tags: list { Gen.text(&$0, maxPieces: 3) },
                    scores: random.oneIn(4)
                        ? nil
                        : list { random in
                            var value: Double
                            repeat { value = Gen.double(&random) } while !value.isFinite
                            return value
                        },
                    counts: random.oneIn(4) ? nil : list(Gen.int64)
                )
                rows.append(metadata)
                var book = PathBook(id: nil, title: "", metadata: metadata)
                try book.insert(db)
            }
            func expectIDs(_ matches: (PathMetadata) -> Bool) -> [Int64] {
                rows.indices.filter { matches(rows[$0]) }.map { Int64($0 + 1) }
            }
            let allTags = rows.flatMap(\.tags)
            var textProbes = (0..<3).map { _ in Gen.text(&random, maxPieces: 3) }
            if let tag = allTags.randomElement(using: &random) {
                textProbes.append(tag)
                // The part before a NUL, which SQLite 3.40 reads the stored string as.
                if let nul = tag.utf8.firstIndex(of: 0) { textProbes.append(String(decoding: tag.utf8[..<nul], as: UTF8.self)) }
                textProbes.append(tag + "\0")
            }
            for probe in textProbes {
                let found = try PathBook.where { $0.metadata.json("$.tags", as: [String].self).contains(probe) }.order(by: \.id).fetchAll(db).compactMap(\.id)
                let expected = expectIDs { $0.tags.contains { Array($0.utf8) == Array(probe.utf8) } }
                try require(found == expected, "contains(\(probe.debugDescription)): \(found) != \(expected)")
            }
            var scoreProbes: [Double] = [0, Gen.double(&random)]
            if let score = rows.compactMap(\.scores).joined().randomElement(using: &random) { scoreProbes += [score, score.nextUp, -score] }
            for probe in scoreProbes where probe.isFinite {
                let found = try PathBook.where { $0.metadata.json("$.scores", as: [Double].self).contains(probe) }.order(by: \.id).fetchAll(db).compactMap(\.id)
                let expected = expectIDs { $0.scores?.contains(probe) ?? false }
                try require(found == expected, "contains(\(probe)): \(found) != \(expected)")
            }
            var countProbes: [Int64] = [Gen.int64(&random)]
            if let count = rows.compactMap(\.counts).joined().randomElement(using: &random) { countProbes += [count, count &+ 1] }
            for probe in countProbes {
                let found = try PathBook.where { $0.metadata.json("$.counts", as: [Int64].self).contains(probe) }.order(by: \.id).fetchAll(db).compactMap(\.id)
                let expected = expectIDs { $0.counts?.contains(probe) ?? false }
                try require(found == expected, "contains(\(probe)): \(found) != \(expected)")
            }
            let tagCounts: [Int?] = try PathBook.select { $0.metadata.json("$.tags", as: [String].self).count }.order(by: \.id).fetchAll(db)
            try require(tagCounts == rows.map { $0.tags.count }, "count of tags \(tagCounts)")
            let scoreCounts: [Int?] = try PathBook.select { $0.metadata.json("$.scores", as: [Double].self).count }.order(by: \.id).fetchAll(db)
            try require(scoreCounts == rows.map { $0.scores?.count }, "count of scores \(scoreCounts)")
            let empty = try PathBook.where { $0.metadata.json("$.scores", as: [Double].self).isEmpty }.order(by: \.id).fetchAll(db).compactMap(\.id)
            try require(empty == expectIDs { $0.scores?.isEmpty ?? false }, "isEmpty \(empty)")
            let atLeastTwo = try PathBook.where { $0.metadata.json("$.counts", as: [Int64].self).count >= 2 }.order(by: \.id).fetchAll(db).compactMap(\.id)
            try require(atLeastTwo == expectIDs { ($0.counts?.count ?? 0) >= 2 }, "count >= 2 \(atLeastTwo)")
            let back: [[String]?] = try PathBook.select { $0.metadata.json("$.tags", as: [String].self) }.order(by: \.id).fetchAll(db)
            try require(back.map { $0?.map { Array($0.utf8) } } == rows.map { $0.tags.map { Array($0.utf8) } }, "selected tags differ")
        }
    }

    @Test func fetchValueReadsASingleAggregateAsOneOptional() throws {
        let db = try Connection()
        try PathSession.createTable(db)
        let none: Int? = try PathSession.select { $0.pages.sum() }.fetchValue(db)
        #expect(none == nil)
        #expect(try PathSession.select { $0.minutes.max() }.fetchValue(db) == nil)
        #expect(try PathSession.select { $0.id.count() }.fetchValue(db) == 0)
        try PathSession.insertAll(
            db,
            [
                PathSession(id: nil, pages: 12, minutes: nil, reader: "ann"),
                PathSession(id: nil, pages: 30, minutes: 2.5, reader: "bob")
            ])
        let total: Int? = try PathSession.select { $0.pages.sum() }.fetchValue(db)
        #expect(total == 42)
        let longest: Double? = try PathSession.select { $0.minutes.max() }.fetchValue(db)
        #expect(longest == 2.5)
        #expect(try PathSession.where { $0.reader == "ann" }.select { $0.minutes.max() }.fetchValue(db) == nil)
        let first: String? = try PathSession.select { $0.reader.min() }.fetchValue(db)
        #expect(first == "ann")
        let count: Int? = try PathSession.select { $0.id.count() }.fetchValue(db)
        #expect(count == 2)
        let name: String? = try PathSession.order(by: \.reader, .descending).select(\.reader).fetchValue(db)
        #expect(name == "bob")
        #expect(try PathSession.where { $0.pages > 100 }.select(\.reader).fetchValue(db) == nil)
    }
}
