import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// A SQift-era conformance: it force-casts, so it must only ever be given its BindingType.
private enum Level: Int, Binding {
    case low = 1, high = 2
    typealias BindingType = Int64
    var bindingValue: BindingValue { .integer(Int64(rawValue)) }
    static func fromBindingValue(_ value: Any) -> Level? { Level(rawValue: Int(value as! Int64)) }
}

private struct Tag: Binding, Equatable {
    let name: String
    typealias BindingType = String
    var bindingValue: BindingValue { .text(name) }
    static func fromBindingValue(_ value: Any) -> Tag? { Tag(name: value as! String) }
}

private struct Reading: DecodableRow {
    let value: Double
}

/// A column value converts to `T` only when its storage class is `T`'s `BindingType`.
@Suite struct ExtractionRuleTests {
    /// One row holding each storage class: INTEGER, REAL, TEXT, BLOB.
    let sql = "SELECT 7 AS i, 12.34 AS r, 'abc' AS t, x'0102' AS b"

    func read<T: Extractable>(_ type: T.Type, _ db: Connection) throws -> [T?] where T.DataType == T {
        try #require(try db.query(sql) { row in (0..<4).map { row[$0] as T? } } as [T?]?)
    }

    @Test func builtInTypesReadOnlyTheirStorageClass() throws {
        let db = try Connection()
        #expect(try read(Int.self, db) == [7, nil, nil, nil])
        #expect(try read(Int8.self, db) == [7, nil, nil, nil])
        #expect(try read(UInt32.self, db) == [7, nil, nil, nil])
        #expect(try read(UInt64.self, db) == [7, nil, nil, nil])
        #expect(try read(Bool.self, db) == [true, nil, nil, nil])
        // Floating point also reads INTEGER storage (NUMERIC columns), as SQLite converts it.
        #expect(try read(Double.self, db) == [7.0, 12.34, nil, nil])
        #expect(try read(Float.self, db) == [7.0, Float(12.34), nil, nil])
        #expect(try read(String.self, db) == [nil, nil, "abc", nil])
        #expect(try read(URL.self, db) == [nil, nil, URL(string: "abc"), nil])
        #expect(try read(Data.self, db) == [nil, nil, nil, Data([1, 2])])
        #expect(try read(Date.self, db) == [nil, nil, nil, nil]) // 'abc' is TEXT but not a date
    }

    @Test func issueExamples() throws {
        let db = try Connection()
        #expect(try db.query("SELECT 12.34") as String? == nil)
        #expect(try db.query("SELECT 7") as String? == nil)
        #expect(try db.query("SELECT 'abc'") as Int? == nil)
        #expect(try db.query("SELECT '7'") as Int? == nil)
        #expect(try db.query("SELECT 7") as Double? == 7.0)
        #expect(try db.query("SELECT '7.5'") as Double? == nil)
    }

    @Test func statementAndFromBindingValueAgree() throws {
        let db = try Connection()
        let statement = try db.prepare(sql)
        #expect(try statement.step())
        for index: Int32 in 0..<4 {
            let any = try #require(statement.anyValue(at: index))
            #expect(statement.value(at: index, as: Int.self) == Int.fromBindingValue(any))
            #expect(statement.value(at: index, as: Double.self) == Double.fromBindingValue(any))
            #expect(statement.value(at: index, as: String.self) == String.fromBindingValue(any))
            #expect(statement.value(at: index, as: Data.self) == Data.fromBindingValue(any))
            #expect(statement.value(at: index, as: Bool.self) == Bool.fromBindingValue(any))
        }
    }

    @Test func customBindingsOnlySeeTheirBindingType() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(v)")
        try db.run("INSERT INTO t VALUES(?)", Level.high)
        try db.run("INSERT INTO t VALUES(?)", "high")
        try db.run("INSERT INTO t VALUES(?)", 2.0)
        try db.run("INSERT INTO t VALUES(?)", Data([2]))
        // Each row but the first would crash the force cast if it were passed along.
        let levels: [Level?] = try db.query("SELECT v FROM t ORDER BY rowid") { $0[0] as Level? }
        #expect(levels == [.high, nil, nil, nil])
        let tags: [Tag?] = try db.query("SELECT v FROM t ORDER BY rowid") { $0["v"] as Tag? }
        #expect(tags == [nil, Tag(name: "high"), nil, nil])
    }

    @Test func decodableRowsFollowTheRule() throws {
        let db = try Connection()
        let real: [Reading] = try db.query("SELECT 1.5 AS value")
        #expect(real.map(\.value) == [1.5])
        let whole: [Reading] = try db.query("SELECT 2 AS value")
        #expect(whole.map(\.value) == [2.0])
        #expect(throws: DecodingError.self) { let _: [Reading] = try db.query("SELECT '2' AS value") }
    }
}
