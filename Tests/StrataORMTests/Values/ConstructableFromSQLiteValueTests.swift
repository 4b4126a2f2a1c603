// Built-in types read from an SQLiteValue of our own, as upstream's ConstructableFromSQLiteValue.
import Foundation
import Testing
import StrataORM

/// A value of our own, as a custom type's tests would mock one.
private final class MockValue: SQLiteValue {
    var isValid = true
    var isNull = false
    var integer = 0
    var double = 0.0
    var text = ""
}
@Suite struct ConstructableFromSQLiteValueTests {
    @Test func integersReadTheValuesInteger() {
        let value = MockValue()
        for integer in [0, 1, -5, 500, Int.max, Int.min] {
            value.integer = integer
            #expect(Int(sqliteValue: value) == integer)
            #expect(Int64(sqliteValue: value) == Int64(integer))
        }
        for integer in [0, 1, 500, Int.max] {
            value.integer = integer
            #expect(UInt(sqliteValue: value) == UInt(integer))
            #expect(UInt64(sqliteValue: value) == UInt64(integer))
        }
        // Unsigned values are stored by bit pattern, so a negative integer reads back, never traps.
        value.integer = -1
        #expect(UInt(sqliteValue: value) == .max && UInt64(sqliteValue: value) == .max)
    }

    @Test func floatingPointTextAndBool() {
        let value = MockValue()
        for double in [0, 1.5, -500, 3.141592654, .greatestFiniteMagnitude] {
            value.double = double
            #expect(Double(sqliteValue: value) == double)
            #expect(Float(sqliteValue: value) == Float(double))
        }
        for text in ["", "Inna", "naïve ☕︎", "a\u{0}b"] {
            value.text = text
            #expect(String(sqliteValue: value) == text)
        }
        for (integer, expected) in [(0, false), (1, true), (-3, true), (2, true)] {
            value.integer = integer
            #expect(Bool(sqliteValue: value) == expected)
        }
    }

    @Test func optionalsAreNilForNullOnly() {
        let value = MockValue()
        value.integer = 7
        value.double = 7.5
        value.text = "seven"
        value.isNull = false
        #expect(Optional<Int>(sqliteValue: value) == 7 && Optional<Int64>(sqliteValue: value) == 7)
        #expect(Optional<UInt>(sqliteValue: value) == 7 && Optional<UInt64>(sqliteValue: value) == 7)
        #expect(Optional<Double>(sqliteValue: value) == 7.5 && Optional<Float>(sqliteValue: value) == 7.5)
        #expect(Optional<String>(sqliteValue: value) == "seven" && Optional<Bool>(sqliteValue: value) == true)
        value.isNull = true
        #expect(Optional<Int>(sqliteValue: value) == nil && Optional<Int64>(sqliteValue: value) == nil)
        #expect(Optional<UInt>(sqliteValue: value) == nil && Optional<UInt64>(sqliteValue: value) == nil)
        #expect(Optional<Double>(sqliteValue: value) == nil && Optional<Float>(sqliteValue: value) == nil)
        #expect(Optional<String>(sqliteValue: value) == nil && Optional<Bool>(sqliteValue: value) == nil)
        #expect(Optional<Cents>(sqliteValue: value) == nil)
        value.isNull = false
        #expect(Optional<Cents>(sqliteValue: value) == Cents(7))
    }
}
