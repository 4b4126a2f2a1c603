import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

struct JSONPropertyShape: Codable, Equatable {
    var real: Double
    var integer: Int64
    var text: String
    var date: Date
    var data: Data
    var optional: Double?
    var nested: [[Double]]
    var map: [String: Int64]
}

@Record(table: "json_shape") struct JSONShape {
    @PrimaryKey var id: Int64?
    @JSON var shape: JSONPropertyShape
    @JSON var doubles: [Double]
    @JSON var dates: [Date]
    @JSON var blobs: [Data]
    @JSON var texts: [String]
    @JSON var integers: [Int64]
    @JSON var maybe: Double?
}

/// The bits of a value, so -0.0 differs from 0.0 and é from e\u{301}.
private func bits(_ value: Double) -> UInt64 { value.bitPattern }
private func bits(_ value: Double?) -> UInt64? { value?.bitPattern }
private func bits(_ value: Date) -> UInt64 { value.timeIntervalSinceReferenceDate.bitPattern }
private func bits(_ value: String) -> [UInt8] { Array(value.utf8) }

private func same(_ a: JSONPropertyShape, _ b: JSONPropertyShape) -> Bool {
    bits(a.real) == bits(b.real) && a.integer == b.integer && bits(a.text) == bits(b.text) && bits(a.date) == bits(b.date)
        && a.data == b.data && bits(a.optional) == bits(b.optional) && a.nested.map { $0.map(bits) } == b.nested.map { $0.map(bits) }
        && a.map.count == b.map.count && a.map.allSatisfy { key, value in b.map.first { bits($0.key) == bits(key) }?.value == value }
}

private func same(_ a: JSONShape, _ b: JSONShape) -> Bool {
    same(a.shape, b.shape) && a.doubles.map(bits) == b.doubles.map(bits) && a.dates.map(bits) == b.dates.map(bits)
        && a.blobs == b.blobs && a.texts.map(bits) == b.texts.map(bits) && a.integers == b.integers && bits(a.maybe) == bits(b.maybe)
}

@Suite struct RecordJSONPropertyTests {
    static func date(_ random: inout SeededRandom) -> Date {
        let interval = Gen.double(&random)
        return Date(timeIntervalSinceReferenceDate: random.oneIn(3) ? interval : Double(random.int(-1_000_000...1_000_000)) / 7)
    }

    static func shape(_ random: inout SeededRandom) -> JSONShape {
        func list<T>(_ make: (inout SeededRandom) -> T) -> [T] { (0..<random.int(0...4)).map { _ in make(&random) } }
        var map: [String: Int64] = [:]
        for _ in 0..<random.int(0...3) { map[Gen.text(&random, maxPieces: 3)] = Gen.int64(&random) }
        let inner = JSONPropertyShape(
            real: Gen.double(&random), integer: Gen.int64(&random), text: Gen.text(&random), date: date(&random),
            data: Gen.bytes(&random), optional: random.oneIn(3) ? nil : Gen.double(&random),
            nested: (0..<random.int(0...2)).map { _ in list(Gen.double) }, map: map
        )
        return JSONShape(
            id: nil, shape: inner, doubles: list(Gen.double), dates: list(date), blobs: list { Gen.bytes(&$0) },
            texts: list { Gen.text(&$0) }, integers: list(Gen.int64), maybe: random.oneIn(3) ? nil : Gen.double(&random))
    }

    static func finite(_ row: JSONShape) -> Bool {
        let doubles =
            [row.shape.real] + [row.shape.optional, row.maybe].compactMap { $0 } + row.shape.nested.joined() + row.doubles
            + row.dates.map(\.timeIntervalSinceReferenceDate) + [row.shape.date.timeIntervalSinceReferenceDate]
        return doubles.allSatisfy(\.isFinite)
    }

    /// Every generated shape reads back bit for bit (-0.0, subnormals, Int64 limits, NUL, quotes
    /// beside combining marks, Dates, Data), is found by `==` and `contains`, or, holding a value
    /// JSON cannot (±inf), throws on insert and on update, leaving the table as it was.
    @Test func everyShapeRoundTripsBitForBitOrThrows() throws {
        try PropertyCheck.run("@JSON round trip", cases: 60) { random in
            let db = try Connection()
            try JSONShape.createTable(db)
            var anchor = JSONShape(
                id: nil,
                shape: JSONPropertyShape(
                    real: 1, integer: 1, text: "", date: Date(timeIntervalSinceReferenceDate: 0), data: Data(),
                    optional: nil, nested: [], map: [:]),
                doubles: [], dates: [], blobs: [], texts: [], integers: [], maybe: nil)
            try anchor.insert(db)
            let before: String? = try db.query("SELECT shape || doubles || dates || blobs || texts || integers FROM json_shape")
            var row = Self.shape(&random)
            guard Self.finite(row) else {
                do {
                    try row.insert(db)
                    throw PropertyViolation("insert of a non-finite value did not throw")
                } catch is PropertyViolation { throw PropertyViolation("insert of a non-finite value did not throw") } catch {}
                let generated = row
                do {
                    try JSONShape.all().update(
                        db,
                        set: {
                            [$0.shape.set(generated.shape), $0.doubles.set(generated.doubles), $0.dates.set(generated.dates), $0.maybe.set(generated.maybe)]
                        })
                    throw PropertyViolation("update with a non-finite value did not throw")
                } catch is PropertyViolation { throw PropertyViolation("update with a non-finite value did not throw") } catch {}
                try require(try JSONShape.all().fetchCount(db) == 1, "a row was added")
                try require(try db.query("SELECT shape || doubles || dates || blobs || texts || integers FROM json_shape") == before, "the row changed")
                return
            }
            try row.insert(db)
            let id = try #require(row.id)
            let back = try #require(try JSONShape.where { $0.id == id }.fetchOne(db))
            try require(same(back, row), "read back differs:\n\(back)\n\(row)")
            let generated = row
            try require(
                try JSONShape.where { $0.shape == generated.shape && $0.doubles == generated.doubles && $0.texts == generated.texts }
                    .fetchAll(db).map(\.id) == [id], "== did not find the row")
            for element in generated.dates {
                try require(
                    try JSONShape.where { $0.dates.contains(element) }.fetchAll(db).map(\.id) == [id],
                    "contains(date \(element.timeIntervalSinceReferenceDate))")
            }
            for element in generated.blobs {
                try require(try JSONShape.where { $0.blobs.contains(element) }.fetchAll(db).map(\.id) == [id], "contains(data \(element as NSData))")
            }
            for element in generated.texts {
                try require(try JSONShape.where { $0.texts.contains(element) }.fetchAll(db).map(\.id) == [id], "contains(text \(element.debugDescription))")
            }
            for element in generated.integers {
                try require(try JSONShape.where { $0.integers.contains(element) }.fetchAll(db).map(\.id) == [id], "contains(integer \(element))")
            }
        }
    }
}
