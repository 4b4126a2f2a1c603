import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataVectors
@testable import StrataRecords

/// The parallel exact scan on a `Database`'s readers, checked against the serial scan and against
/// sorting every distance by hand, on generated tables with ties, gaps and extreme rowids.
@Suite struct NearestParallelTests {
    @Test func parallelScanReturnsTheSerialScansResult() async throws {
        let directory = try TemporaryDirectory()
        try await PropertyCheck.runAsync("the parallel scan returns the serial scan's result", cases: 20) { random in
            let database = try Database(path: directory.path("\(UUID().uuidString).sqlite"))
            let dimensions = random.pick([1, 3, 16, 17, 40])
            // Few distinct vectors, so equal distances are common and ties must go by rowid.
            let palette = try (0..<random.int(1...5)).map { _ in
                try FloatVector((0..<dimensions).map { _ in Float(random.int(-2...2)) })
            }
            // Rowids anywhere in Int64, clustered or spread, so spans are uneven and some empty.
            let spread = random.pick([Int64(10), 1_000, Int64.max / 4])
            let base = random.pick([Int64(1), -500, Int64.min + 1, Int64.max - 2_000])
            let count = random.int(0...150)
            var ids = Set<Int64>()
            for _ in 0..<count {
                let offset = Int64.random(in: 0...spread, using: &random)
                ids.insert(base.addingReportingOverflow(offset).overflow ? base : base + offset)
            }
            var docs: [VectorDoc] = []
            for id in ids.sorted() { docs.append(VectorDoc(id: id, lang: random.pick(["en", "fr"]), embedding: random.pick(palette))) }
            let rows = docs
            try await database.write { db in
                try VectorDoc.createTable(db)
                for var doc in rows { try doc.insert(db) }
            }
            let target = try FloatVector((0..<dimensions).map { _ in Float(random.int(-2...2)) })
            let k = random.int(0...count + 2)
            let metric = random.pick(VectorMetric.allCases)
            let onlyEnglish = random.oneIn(2)
            let query = (onlyEnglish ? VectorDoc.where { $0.lang == "en" } : VectorDoc.all())
                .nearest(to: target, by: \.embedding, metric: metric, k: k)
            let parallelism = random.int(1...7)

            let parallel = try await query.fetchAll(database, parallelism: parallelism)
            let serial = try await database.read { db in try query.fetchAll(db) }
            try require(
                parallel.map(\.record) == serial.map(\.record),
                "\(metric) k=\(k) parallelism=\(parallelism): \(parallel.map(\.record.id)) vs serial \(serial.map(\.record.id))")
            try require(parallel.map(\.distance) == serial.map(\.distance), "distances differ from the serial scan's")
            let expected = try docs.filter { !onlyEnglish || $0.lang == "en" }
                .map { (doc: $0, distance: try $0.embedding.distance(to: target, metric: metric)) }
                .sorted { ($0.distance, $0.doc.id ?? 0) < ($1.distance, $1.doc.id ?? 0) }
                .prefix(k)
            try require(parallel.map(\.record) == expected.map(\.doc), "parallel differs from sorting every distance")
            try await database.close()
        }
    }

    @Test func spansCoverTheRangeInOrderWithoutOverlap() throws {
        try PropertyCheck.run("split covers a rowid range exactly", cases: 200) { random in
            let bounds = [Int64.min, Int64.min + 1, -7, 0, 1, 2, 99, Int64.max - 1, Int64.max]
            var low = random.oneIn(2) ? random.pick(bounds) : Int64.random(in: Int64.min...Int64.max, using: &random)
            var high = random.oneIn(2) ? random.pick(bounds) : Int64.random(in: Int64.min...Int64.max, using: &random)
            if low > high { swap(&low, &high) }
            let count = random.int(1...9)
            let spans = splitRowIDRange(low...high, into: count)
            try require(!spans.isEmpty && spans.count <= count, "\(spans.count) spans for \(count)")
            try require(spans.first?.lowerBound == low && spans.last?.upperBound == high, "\(spans) do not span \(low)...\(high)")
            for (left, right) in zip(spans, spans.dropFirst()) {
                try require(left.upperBound < Int64.max && left.upperBound + 1 == right.lowerBound, "gap or overlap in \(spans)")
            }
        }
    }

    /// The whole of Int64 in one span overflowed `split` (width + 1) and trapped.
    @Test(arguments: [1, 2, 7])
    func rowidsAtBothEndsOfInt64(parallelism: Int) async throws {
        #expect(splitRowIDRange(Int64.min...Int64.max, into: 1) == [Int64.min...Int64.max])
        #expect(splitRowIDRange(5...5, into: 1) == [5...5])
        let database = try Database(storageLocation: .inMemory)
        try await database.write { db in
            try VectorDoc.createTable(db)
            for (id, value) in [(Int64.min, Float(3)), (0, 1), (Int64.max, 2)] {
                var doc = VectorDoc(id: id, lang: "en", embedding: try FloatVector([value]))
                try doc.insert(db)
            }
        }
        let found = try await VectorDoc.nearest(to: try FloatVector([0]), by: \.embedding, k: 3).fetchAll(database, parallelism: parallelism)
        #expect(found.map(\.record.id) == [0, Int64.max, Int64.min])
    }

    @Test func emptyTablesZeroKAndRefusedQueries() async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("empty.sqlite"))
        try await database.write { try VectorDoc.createTable($0) }
        let target = try FloatVector([1, 2])
        #expect(try await VectorDoc.nearest(to: target, by: \.embedding, k: 3).fetchAll(database).isEmpty)
        try await database.write { db in
            var doc = VectorDoc(id: nil, lang: "en", embedding: try FloatVector([1, 2]))
            try doc.insert(db)
        }
        #expect(try await VectorDoc.nearest(to: target, by: \.embedding, k: 0).fetchAll(database).isEmpty)
        await #expect(throws: RecordQueryError.self) {
            try await VectorDoc.nearest(to: target, by: \.embedding, k: -1).fetchAll(database)
        }
        await #expect(throws: VectorError.wrongDimension(expected: 3, actual: 2)) {
            try await VectorDoc.nearest(to: try FloatVector([1, 2, 3]), by: \.embedding, k: 1).fetchAll(database)
        }
        try await database.close()
    }

    @Test func inMemoryDatabaseScansOnTheWriter() async throws {
        let database = try Database(storageLocation: .inMemory)
        try await database.write { db in
            try VectorDoc.createTable(db)
            for index in 0..<40 {
                var doc = VectorDoc(id: nil, lang: "en", embedding: try FloatVector([Float(index % 7), 1]))
                try doc.insert(db)
            }
        }
        let query = VectorDoc.nearest(to: try FloatVector([3, 1]), by: \.embedding, k: 12)
        let parallel = try await query.fetchAll(database, parallelism: 4)
        let serial = try await database.read { try query.fetchAll($0) }
        #expect(parallel.map(\.record) == serial.map(\.record))
        #expect(parallel.first?.distance == 0)
    }

    /// A ranked row gone or changed before its record is read (a parallel scan's snapshots) is
    /// reported, never returned with a stale distance.
    @Test func rankedRowsThatChangedAreReported() throws {
        let db = try Connection()
        try VectorDoc.createTable(db)
        var doc = VectorDoc(id: nil, lang: "en", embedding: try FloatVector([3, 4]))
        try doc.insert(db)
        let rowID = try #require(doc.id)
        let query = VectorDoc.nearest(to: try FloatVector([0, 0]), by: \.embedding, k: 1)
        let target = PreparedVectorTarget(query.target, metric: query.metric)
        let found = try query.records(for: [VectorCandidate(distance: 5, rowID: rowID)], db, checkingDistancesWith: target)
        #expect(found.map(\.record) == [doc])
        #expect(throws: NearestQueryError.rowChanged(rowID: rowID)) {
            try query.records(for: [VectorCandidate(distance: 4, rowID: rowID)], db, checkingDistancesWith: target)
        }
        #expect(throws: NearestQueryError.rowChanged(rowID: rowID + 1)) {
            try query.records(for: [VectorCandidate(distance: 5, rowID: rowID + 1)], db, checkingDistancesWith: target)
        }
    }
}
