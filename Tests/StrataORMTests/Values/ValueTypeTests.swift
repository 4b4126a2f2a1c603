import Foundation
import Testing
import StrataORM

struct Numbers: Initializable, Equatable {
    var id = 0
    var int64: Int64 = 0
    var uint32: UInt32 = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint64: UInt64 = 0
    var uint: UInt = 0
    var flag = false
    var float: Float = 0
    var double: Double = 0
    var data = Data()
    var date = Date(timeIntervalSince1970: 0)
    var optionalInt: Int?
    var optionalData: Data?
}

func numbersStorage() throws -> Storage {
    try temporaryStorage(
        keyedTable(
            "numbers", key: \Numbers.id,
            Column(name: "int64", keyPath: \Numbers.int64, constraints: notNull()),
            Column(name: "uint32", keyPath: \Numbers.uint32, constraints: notNull()),
            Column(name: "int8", keyPath: \Numbers.int8, constraints: notNull()),
            Column(name: "int16", keyPath: \Numbers.int16, constraints: notNull()),
            Column(name: "int32", keyPath: \Numbers.int32, constraints: notNull()),
            Column(name: "uint8", keyPath: \Numbers.uint8, constraints: notNull()),
            Column(name: "uint16", keyPath: \Numbers.uint16, constraints: notNull()),
            Column(name: "uint64", keyPath: \Numbers.uint64, constraints: notNull()),
            Column(name: "uint", keyPath: \Numbers.uint, constraints: notNull()),
            Column(name: "flag", keyPath: \Numbers.flag, constraints: notNull()),
            Column(name: "float", keyPath: \Numbers.float, constraints: notNull()),
            Column(name: "double", keyPath: \Numbers.double, constraints: notNull()),
            Column(name: "data", keyPath: \Numbers.data, constraints: notNull()),
            Column(name: "date", keyPath: \Numbers.date, constraints: notNull()),
            Column(name: "optional_int", keyPath: \Numbers.optionalInt),
            Column(name: "optional_data", keyPath: \Numbers.optionalData)))
}

@Suite struct ValueTypeTests {
    @Test func extremeIntegersRoundTripWithoutTruncation() throws {
        let storage = try numbersStorage()
        let extremes = Numbers(
            id: 0, int64: .max, uint32: .max, int8: .min, int16: .min, int32: .min, uint8: .max, uint16: .max,
            uint64: .max, uint: .max, flag: true, float: -1.5, double: -.greatestFiniteMagnitude,
            data: Data([0, 1, 255]), date: Date(timeIntervalSince1970: 1_234_567_890.5), optionalInt: -1, optionalData: Data())
        let id = try storage.insert(extremes)
        var expected = extremes
        expected.id = Int(id)
        #expect(try storage.get(id: id) == expected)

        let negatives = Numbers(id: 0, int64: .min, uint32: 0, int8: -1, int16: -2, int32: -3, double: -0.25, optionalInt: nil)
        let negativeId = try storage.insert(negatives)
        var expectedNegative = negatives
        expectedNegative.id = Int(negativeId)
        #expect(try storage.get(id: negativeId) == expectedNegative)

        // Stored as 64-bit INTEGERs, so SQL sees the real values.
        let maxima: [Int64] = try storage.select(\Numbers.int64, where_(\Numbers.uint32 == UInt32.max))
        #expect(maxima == [Int64.max])
        let uint32s: [Int64] = try storage.connection.query("SELECT uint32 FROM numbers ORDER BY id")
        #expect(uint32s == [Int64(UInt32.max), 0])
        #expect(try storage.max(\Numbers.int64) == .max)
        #expect(try storage.min(\Numbers.int64) == .min)
        #expect(try storage.max(\Numbers.optionalInt) == -1)
    }

    @Test func declaredTypesFollowTheBindingType() throws {
        let storage = try numbersStorage()
        let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'numbers'")
        let text = try #require(sql)
        #expect(text.contains("\"int64\" INTEGER NOT NULL"))
        #expect(text.contains("\"flag\" INTEGER NOT NULL"))
        #expect(text.contains("\"double\" REAL NOT NULL"))
        #expect(text.contains("\"data\" BLOB NOT NULL"))
        #expect(text.contains("\"date\" TEXT NOT NULL"))
        #expect(text.contains("\"optional_int\" INTEGER,") || text.contains("\"optional_int\" INTEGER "))
    }

    @Test func aValueThatDoesNotConvertThrowsANamedError() throws {
        let storage = try numbersStorage()
        try storage.insert(Numbers())
        try storage.connection.execute("UPDATE numbers SET int8 = 1000")
        #expect(throws: ORMError.valueDoesNotConvert(table: "numbers", column: "int8", type: "Int8")) {
            let _: [Numbers] = try storage.getAll()
        }
        // Other storage classes convert as SQLite converts them (SQLiteORM-Swift's reading).
        try storage.connection.execute("UPDATE numbers SET int8 = '12', int16 = 'not a number', double = 5, float = '2.5', flag = 'x'")
        let all: [Numbers] = try storage.getAll()
        let converted = try #require(all.first)
        #expect(converted.int8 == 12 && converted.int16 == 0 && converted.double == 5 && converted.float == 2.5 && !converted.flag)
        // A type SQLite cannot convert to still says so.
        try storage.connection.execute("UPDATE numbers SET date = x'00'")
        #expect(throws: ORMError.valueDoesNotConvert(table: "numbers", column: "date", type: "Date")) {
            let _: [Numbers] = try storage.getAll()
        }
    }
}
