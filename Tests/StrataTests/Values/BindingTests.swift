import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

enum DownloadState: Int {
    case pending, downloading, downloaded, failed
}

extension DownloadState: Binding {
    typealias BindingType = Int64
    var bindingValue: BindingValue { .integer(Int64(rawValue)) }
    static func fromBindingValue(_ value: Any) -> DownloadState? {
        guard let value = value as? Int64, let rawValue = Int(exactly: value) else { return nil }
        return DownloadState(rawValue: rawValue)
    }
}

struct Employee: CodableBinding, Equatable {
    let id: Int64
    let firstName: String
    let lastName: String
    let age: UInt
}

@Suite struct BindingTests {
    func roundTrip<T: Binding & Equatable>(_ value: T, column: String = "v") throws -> T? where T.DataType == T {
        let connection = try makeConnection(executing: "CREATE TABLE t(\(column))")
        try connection.run("INSERT INTO t VALUES(?)", value)
        let fast: T? = try connection.query("SELECT v FROM t")
        // The SQift Any path must agree with the direct path.
        let row = try #require(try connection.query("SELECT v FROM t"))
        let viaAny = row.value(at: 0).flatMap { T.fromBindingValue($0) }
        #expect(viaAny == fast)
        return fast
    }

    @Test func integersRoundTripAtTheirExtremes() throws {
        #expect(try roundTrip(Int64.min) == Int64.min)
        #expect(try roundTrip(Int64.max) == Int64.max)
        #expect(try roundTrip(Int.min) == Int.min)
        #expect(try roundTrip(Int8.min) == Int8.min)
        #expect(try roundTrip(Int16.max) == Int16.max)
        #expect(try roundTrip(Int32.min) == Int32.min)
        #expect(try roundTrip(UInt8.max) == UInt8.max)
        #expect(try roundTrip(UInt16.max) == UInt16.max)
        #expect(try roundTrip(UInt32.max) == UInt32.max)
        #expect(try roundTrip(UInt64.max) == UInt64.max)
        #expect(try roundTrip(UInt.max) == UInt.max)
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(false) == false)
    }

    @Test func uint64IsStoredByBitPattern() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(v INTEGER)")
        try connection.run("INSERT INTO t VALUES(?)", UInt64.max)
        #expect(try connection.query("SELECT v FROM t") == Int64(-1))
        #expect(try connection.query("SELECT v FROM t") == UInt64.max)
    }

    @Test func outOfRangeNarrowIntegersReadAsNil() throws {
        let connection = try Connection()
        let big: Int8? = try connection.query("SELECT 300")
        #expect(big == nil)
        let negative: UInt32? = try connection.query("SELECT -1")
        #expect(negative == nil)
        let fits: UInt8? = try connection.query("SELECT 255")
        #expect(fits == 255)
        let fromReal: UInt? = try connection.query("SELECT avg(x) FROM (SELECT 52642 AS x UNION ALL SELECT 57127)")
        #expect(fromReal == nil) // REAL is not an integer's storage class (SQift's rule)
        let fromText: Int? = try connection.query("SELECT '42'")
        #expect(fromText == nil)
        let notNumber: Int? = try connection.query("SELECT 'forty'")
        #expect(notNumber == nil)
        let blob: Int? = try connection.query("SELECT x'01'")
        #expect(blob == nil)
    }

    @Test func floatingPoint() throws {
        #expect(try roundTrip(Double.pi) == Double.pi)
        #expect(try roundTrip(-0.5 as Float) == -0.5)
        #expect(try roundTrip(Double.greatestFiniteMagnitude) == Double.greatestFiniteMagnitude)
        let connection = try Connection()
        let widened: Double? = try connection.query("SELECT 3")
        #expect(widened == 3) // INTEGER converts to floating point, as SQLite converts it
        let real: Double? = try connection.query("SELECT 3.0")
        #expect(real == 3)
    }

    @Test func stringsRoundTripExactly() throws {
        for text in [
            "", "it's \"quoted\"", "naïve café ümlaut", "👩‍👩‍👧‍👦🚀 emoji", "日本語テキスト", "line\nbreak\ttab",
            String(repeating: "long text ✓ ", count: 200_000)
        ] {
            #expect(try roundTrip(text) == text)
        }
        let connection = try Connection()
        let number: String? = try connection.query("SELECT 12")
        #expect(number == nil) // INTEGER is not String's storage class (SQift's rule)
        let empty: String? = try connection.query("SELECT ''")
        #expect(empty == "")
    }

    @Test func blobsRoundTripExactly() throws {
        var large = Data(count: 5 * 1024 * 1024)
        for index in stride(from: 0, to: large.count, by: 997) { large[index] = UInt8(index % 251) }
        #expect(try roundTrip(large) == large)
        #expect(try roundTrip(Data([0, 1, 0, 255])) == Data([0, 1, 0, 255]))
        // Empty data is a zero-length blob, not NULL.
        let connection = try makeConnection(executing: "CREATE TABLE t(v)")
        try connection.run("INSERT INTO t VALUES(?)", Data())
        #expect(try connection.query("SELECT typeof(v) FROM t") == "blob")
        #expect(try connection.query("SELECT v FROM t") == Data())
    }

    @Test func urlsAndNull() throws {
        let url = try #require(URL(string: "https://example.com/a?b=c#d"))
        #expect(try roundTrip(url) == url)
        let connection = try makeConnection(executing: "CREATE TABLE t(v)")
        try connection.run("INSERT INTO t VALUES(?)", NSNull())
        #expect(try connection.query("SELECT typeof(v) FROM t") == "null")
        let optional: String? = nil
        try connection.run("INSERT INTO t VALUES(?)", optional)
        #expect(try connection.query("SELECT count(*) FROM t WHERE v IS NULL") == 2)
        #expect(NSNull().bindingValue == .null)
    }

    @Test func bindingValues() {
        #expect(42.bindingValue == .integer(42))
        #expect(true.bindingValue == .integer(1))
        #expect(1.5.bindingValue == .real(1.5))
        #expect("a".bindingValue == .text("a"))
        #expect(Data([1]).bindingValue == .blob(Data([1])))
        #expect(UInt64.max.bindingValue == .integer(-1))
        #expect(Int.fromBindingValue(Int64(7)) == 7)
        #expect(Int8.fromBindingValue(Int64(700)) == nil)
        #expect(String.fromBindingValue(Data()) == nil)
    }

    @Test func readmeCustomBinding() throws {
        let connection = try makeConnection(executing: "CREATE TABLE downloads(name TEXT PRIMARY KEY, state INTEGER NOT NULL)")
        try connection.run("INSERT INTO downloads VALUES(?, ?)", "image1", DownloadState.pending)
        try connection.run("INSERT INTO downloads VALUES(?, ?)", "image2", DownloadState.failed)
        // The README writes `if let state: DownloadState? = ...`, which always succeeds.
        let state: DownloadState? = try connection.query("SELECT state FROM downloads WHERE name = 'image1'")
        #expect(state == .pending)
        let states: [DownloadState] = try connection.query("SELECT state FROM downloads ORDER BY name")
        #expect(states == [.pending, .failed])
        let invalid: DownloadState? = try connection.query("SELECT 99")
        #expect(invalid == nil)
    }

    @Test func readmeCodableBinding() throws {
        let connection = try Connection()
        let phil = Employee(id: 1, firstName: "Phil", lastName: "Knight", age: 79)
        try connection.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, employee BLOB NOT NULL)")
        try connection.run("INSERT INTO employees(employee) VALUES(?)", phil)
        let employee1: Employee? = try connection.query("SELECT employee FROM employees WHERE id = 1")
        #expect(employee1?.firstName == "Phil")
        #expect(employee1 == phil)
        #expect(try connection.query("SELECT typeof(employee) FROM employees") == "blob")
        // Stored as a binary property list, as SQift stores it.
        let data: Data? = try connection.query("SELECT employee FROM employees")
        #expect(data.map { Array($0.prefix(6)) } == Array("bplist".utf8))
        let garbage: Employee? = try connection.query("SELECT x'0102'")
        #expect(garbage == nil)
    }

    @Test func readmeCodableCollections() throws {
        let connection = try Connection()
        let points: ArrayBinding = [
            CGPoint(x: 1.0, y: 2.0), CGPoint(x: 3.0, y: 4.0), CGPoint(x: 5.0, y: 6.0),
            CGPoint(x: 7.0, y: 8.0), CGPoint(x: 9.0, y: 10.0)
        ]
        try connection.execute("CREATE TABLE stream(id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        try connection.run("INSERT INTO stream(data) VALUES(?)", points)
        let pointsQueried: ArrayBinding<CGPoint>? = try connection.query("SELECT data FROM stream WHERE id = 1")
        let lines = pointsQueried?.elements.map { "(\($0.x), \($0.y))" }
        #expect(lines == ["(1.0, 2.0)", "(3.0, 4.0)", "(5.0, 6.0)", "(7.0, 8.0)", "(9.0, 10.0)"])

        let set: SetBinding<String> = ["a", "b", "a"]
        try connection.run("INSERT INTO stream(data) VALUES(?)", set)
        let setQueried: SetBinding<String>? = try connection.query("SELECT data FROM stream WHERE id = 2")
        #expect(setQueried?.elements == ["a", "b"])

        let dictionary: DictionaryBinding<String, Int> = ["one": 1, "two": 2]
        try connection.run("INSERT INTO stream(data) VALUES(?)", dictionary)
        let dictionaryQueried: DictionaryBinding<String, Int>? = try connection.query("SELECT data FROM stream WHERE id = 3")
        #expect(dictionaryQueried?.elements == ["one": 1, "two": 2])
        #expect(ArrayBinding(elements: [1, 2]).elements == [1, 2])
        #expect(SetBinding(elements: [1]).elements == [1])
        #expect(DictionaryBinding(elements: [1: "a"]).elements == [1: "a"])
    }

    @Test func optionalBindingsAndExactIntegers() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a, b)")
        let some: Int? = 5
        let none: String? = nil
        try db.prepare("INSERT INTO t VALUES(?, ?)").bind(some, none).run()
        #expect(try db.query("SELECT a FROM t WHERE b IS NULL") == 5)
        #expect(Optional<Int>.none.bindingValue == .null)
        #expect(Optional(3).bindingValue == .integer(3))
        #expect(Int16.fromBindingValue(Int64(40_000)) == nil)
        #expect(UInt64.fromBindingValue(Int64(-1)) == UInt64.max)
        #expect(Bool.fromBindingValue(Int64(2)) == true)
        #expect(Double.fromBindingValue("2.5") == nil)
        #expect(Double.fromBindingValue(2.5) == 2.5)
        #expect(Float.fromBindingValue(Int64(2)) == 2) // INTEGER storage reads as floating point
        #expect(Float.fromBindingValue(2.0) == 2)
        #expect(URL.fromBindingValue("https://x.y") == URL(string: "https://x.y"))
        #expect(Date.fromBindingValue("2001-01-01T00:00:00.000") == Date(timeIntervalSinceReferenceDate: 0))
        #expect(Data.fromBindingValue("ab") == nil)
        #expect(Data.fromBindingValue(Data("ab".utf8)) == Data("ab".utf8))
    }
}
