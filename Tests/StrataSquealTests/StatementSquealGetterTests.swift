import Foundation
import Testing
import StrataSqueal
#if canImport(SQLite3)
import SQLite3
#endif

/// Squeal's getters on `Statement` and `Row`.
@Suite struct StatementSquealGetterTests {
    static let sql = "SELECT 7 AS i, 2.5 AS d, 'text' AS s, x'0102' AS b, NULL AS n, '42' AS numeric, x'' AS empty"

    @Test func gettersByNameAndIndex() throws {
        let db = try Connection(storageLocation: .inMemory)
        let statement = try db.prepareStatement(Self.sql)
        #expect(try statement.next())
        #expect(statement.intValue("i") == 7 && statement.intValueAtIndex(0) == 7)
        #expect(statement.int64Value("i") == 7 && statement.int64ValueAtIndex(0) == 7)
        #expect(statement.doubleValue("d") == 2.5 && statement.realValue("d") == 2.5 && statement.realValueAtIndex(1) == 2.5)
        #expect(statement.stringValue("s") == "text" && statement.stringValueAtIndex(2) == "text")
        #expect(statement.blobValue("b") == Data([1, 2]) && statement.blobValueAtIndex(3) == Data([1, 2]))
        #expect(statement.boolValue("i") == true && statement.boolValueAtIndex(0) == true)
        #expect(statement.blobValue("empty") == Data())
        // NULL, missing names and out-of-range indexes are nil for every getter.
        #expect(statement.intValue("n") == nil && statement.stringValue("n") == nil && statement.blobValue("n") == nil)
        #expect(statement.intValue("missing") == nil && statement.doubleValueAtIndex(99) == nil && statement.intValueAtIndex(-1) == nil)
        // Squeal's conversions are SQLite's.
        #expect(statement.intValue("numeric") == 42)
        #expect(statement.stringValue("i") == "7")
        #expect(statement.doubleValue("i") == 7)
    }

    @Test func untypedValuesDictionaryAndColumns() throws {
        let db = try Connection(storageLocation: .inMemory)
        let statement = try db.prepareStatement(Self.sql)
        #expect(try statement.next())
        #expect(statement.valueOf("i") as? Int64 == 7)
        #expect(statement.valueAtIndex(1) as? Double == 2.5)
        #expect(statement["s"] as? String == "text")
        #expect(statement[3] as? Data == Data([1, 2]))
        #expect(statement["n"] == nil && statement[99] == nil)
        #expect(statement.values.count == 7)
        #expect(statement.values[4] == nil)
        let dictionary = statement.dictionaryValue
        #expect(Set(dictionary.keys) == ["i", "d", "s", "b", "numeric", "empty"])
        #expect(dictionary["numeric"] as? String == "42")
        #expect(statement.columnCount == 7)
        #expect(statement.columnNames.first == "i")
        #expect(statement.indexOfColumnNamed("s") == 2 && statement.indexOfColumnNamed("zz") == nil)
        #expect(statement.nameOfColumnAtIndex(1) == "d" && statement.nameOfColumnAtIndex(9) == "")
        #expect(statement.typeOfColumnAtIndex(0) == .integer)
        #expect(statement.typeOfColumnAtIndex(1) == .float)
        #expect(statement.typeOfColumnAtIndex(2) == .text)
        #expect(statement.typeOfColumnAtIndex(3) == .blob)
        #expect(statement.typeOfColumnAtIndex(4) == .null)
        #expect(statement.typeOfColumnAtIndex(4).code == SQLITE_NULL && statement.typeOfColumnNamed("nope") == .null)
    }

    @Test func gettersBeforeTheFirstStepAreNil() throws {
        let db = try Connection(storageLocation: .inMemory)
        let statement = try db.prepareStatement(Self.sql)
        #expect(statement.intValue("i") == nil)
        #expect(statement.dictionaryValue.isEmpty)
    }

    @Test func rowHasTheSameGetters() throws {
        let db = try Connection(storageLocation: .inMemory)
        let row = try #require(try db.query(Self.sql) as Row?)
        #expect(row.intValue("i") == 7 && row.intValueAtIndex(0) == 7)
        #expect(row.int64Value("i") == 7 && row.int64ValueAtIndex(0) == 7)
        #expect(row.doubleValue("d") == 2.5 && row.doubleValueAtIndex(1) == 2.5 && row.realValue("d") == 2.5 && row.realValueAtIndex(1) == 2.5)
        #expect(row.stringValue("s") == "text" && row.stringValueAtIndex(2) == "text")
        #expect(row.boolValue("i") == true && row.boolValueAtIndex(4) == nil)
        #expect(row.blobValue("b") == Data([1, 2]) && row.blobValueAtIndex(3) == Data([1, 2]))
        #expect(row.valueOf("i") as? Int64 == 7 && row.valueAtIndex(2) as? String == "text")
        #expect(row.dictionaryValue.count == 6)
        #expect(row.columnNames.count == 7)
        #expect(row.indexOfColumnNamed("b") == 3 && row.nameOfColumnAtIndex(3) == "b")
        #expect(row.typeOfColumnAtIndex(3) == .blob)
    }
}
