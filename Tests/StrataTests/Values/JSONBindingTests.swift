import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

private struct Meta: Codable, Equatable {
    var pages: Int
    var authors: [String]
    var ratings: [String: Double]
    var series: Series?

    struct Series: Codable, Equatable {
        var name: String
        var volume: Int
    }
}

@Suite("JSONBinding")
struct JSONBindingTests {
    @Test func roundTripsAsJSONText() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(j)")
        try db.run("INSERT INTO t(j) VALUES (?)", JSONBinding(["a", "b"]))
        let back: JSONBinding<[String]>? = try db.query("SELECT j FROM t")
        #expect(back?.value == ["a", "b"])
        let type: String? = try db.query("SELECT typeof(j) FROM t")
        #expect(type == "text")
        let text: String? = try db.query("SELECT j FROM t")
        #expect(text == #"["a","b"]"#)
        let valid: Int64? = try db.query("SELECT json_valid(j) FROM t")
        #expect(valid == 1)
    }

    @Test func nestedValuesRoundTripAndAreQueryable() throws {
        let db = try makeConnection(executing: "CREATE TABLE book(id INTEGER PRIMARY KEY, meta TEXT)")
        let metas = [
            Meta(pages: 412, authors: ["Herbert"], ratings: ["goodreads": 4.3], series: .init(name: "Dune", volume: 1)),
            Meta(pages: 90, authors: ["A", "B/C \"quoted\""], ratings: [:], series: nil)
        ]
        for meta in metas { try db.run("INSERT INTO book(meta) VALUES (?)", JSONBinding(meta)) }
        let all: [JSONBinding<Meta>] = try db.query("SELECT meta FROM book ORDER BY id")
        #expect(all.map(\.value) == metas)
        let long: [Int64] = try db.query("SELECT id FROM book WHERE json_extract(meta, '$.pages') > 100")
        #expect(long == [1])
        let series: String? = try db.query("SELECT json_extract(meta, '$.series.name') FROM book WHERE id = 1")
        #expect(series == "Dune")
        let rating: Double? = try db.query("SELECT json_extract(meta, '$.ratings.goodreads') FROM book WHERE id = 1")
        #expect(rating == 4.3)
        let withB: [Int64] = try db.query(
            "SELECT id FROM book WHERE EXISTS (SELECT 1 FROM json_each(book.meta, '$.authors') WHERE value = ?)", "B/C \"quoted\"")
        #expect(withB == [2])
        let fromLiteral: JSONBinding<Meta>? = try db.query(literal: "SELECT meta FROM book WHERE json_extract(meta, '$.pages') = \(90)")
        #expect(fromLiteral?.value == metas[1])
        let row = try #require(try db.query("SELECT id, meta FROM book WHERE id = 1"))
        let fromRow: JSONBinding<Meta>? = row["meta"]
        #expect(fromRow?.value == metas[0])
    }

    @Test func readsJSONFromABlob() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(j)")
        try db.run("INSERT INTO t(j) VALUES (?)", Data(#"{"a": [1, 2]}"#.utf8))
        let back: JSONBinding<[String: [Int]]>? = try db.query("SELECT j FROM t")
        #expect(back?.value == ["a": [1, 2]])
    }

    @Test func otherValuesReadAsNil() throws {
        let db = try Connection(storageLocation: .inMemory)
        let notJSON: JSONBinding<[String]>? = try db.query("SELECT 'not json'")
        #expect(notJSON == nil)
        let wrongShape: JSONBinding<[String]>? = try db.query(#"SELECT '{"a": 1}'"#)
        #expect(wrongShape == nil)
        let null: JSONBinding<[String]>? = try db.query("SELECT NULL")
        #expect(null == nil)
        let number: JSONBinding<Int>? = try db.query("SELECT 12")
        #expect(number == nil)
        let scalar: JSONBinding<Int>? = try db.query("SELECT '12'")
        #expect(scalar?.value == 12)
    }

    @Test func unencodableValueThrowsWhenBound() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(j)")
        #expect(throws: EncodingError.self) { try db.run("INSERT INTO t(j) VALUES (?)", JSONBinding([Double.nan])) }
        #expect(JSONBinding([Double.infinity]).bindingValue == .null)
        #expect(JSONBinding(["k": 1]).bindingValue == .text(#"{"k":1}"#))
    }
}
