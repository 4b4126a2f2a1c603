import Foundation
import Testing
@testable import StrataORM

/// SQLiteORM-Swift's named operator forms write what the operators write and select what they select.
@Suite struct NamedOperatorTests {
    @Test func namedFormsAreTheOperators() throws {
        let storage = try sampleStorage()
        func names(_ condition: BinaryOperator) throws -> [String] {
            let people: [Person] = try storage.getAll(where_(condition), orderBy(\Person.id))
            return people.map(\.name)
        }
        #expect(try names(equal(lhs: \Person.age, rhs: 40)) == ["Bob", "Dee"])
        #expect(try names(notEqual(lhs: \Person.age, rhs: 40)) == ["Ann", "Cid"])
        #expect(try names(lesserThan(lhs: \Person.age, rhs: 40)) == ["Ann"])
        #expect(try names(lesserOrEqual(lhs: \Person.age, rhs: 40)) == ["Ann", "Bob", "Dee"])
        #expect(try names(greaterThan(lhs: \Person.age, rhs: 40)) == ["Cid"])
        #expect(try names(greaterOrEqual(lhs: \Person.age, rhs: 40)) == ["Bob", "Cid", "Dee"])
        #expect(try names(equal(lhs: \Person.nickname, rhs: String?.none)) == ["Bob", "Dee"])
        #expect(try names(and(greaterThan(lhs: \Person.age, rhs: 30), equal(lhs: \Person.nickname, rhs: String?.none))) == ["Bob", "Dee"])
        #expect(try names(or(equal(lhs: \Person.name, rhs: "Ann"), equal(lhs: \Person.name, rhs: "Cid"))) == ["Ann", "Cid"])
        #expect(try names(equal(lhs: \Person.age, rhs: 40).and(equal(lhs: \Person.name, rhs: "Dee"))) == ["Dee"])
        #expect(try names(equal(lhs: \Person.age, rhs: 30).or(equal(lhs: \Person.age, rhs: 50))) == ["Ann", "Cid"])
        // Values are bound, never spliced: a hostile string matches nothing.
        #expect(try names(equal(lhs: \Person.name, rhs: "x' OR '1'='1")) == [])
    }

    @Test func arithmeticAndConcatenation() throws {
        let storage = try sampleStorage()
        let ann = where_(\Person.name == "Ann")
        #expect(try storage.select(\Person.age, where_(equal(lhs: add(\Person.age, 5), rhs: 35))) == [30])
        #expect(try storage.select(\Person.age, where_(equal(lhs: sub(\Person.age, 5), rhs: 25))) == [30])
        #expect(try storage.select(\Person.age, where_(equal(lhs: mul(\Person.age, 2), rhs: 60))) == [30])
        #expect(try storage.select(\Person.age, where_(equal(lhs: div(\Person.age, 7), rhs: 4)), orderBy(\Person.id)) == [30])
        #expect(try storage.select(\Person.age, where_(equal(lhs: mod(\Person.age, 20), rhs: 10)), orderBy(\Person.id)) == [30, 50])
        #expect(try storage.select(\Person.name, where_(equal(lhs: conc(\Person.name, "!"), rhs: "Ann!"))) == ["Ann"])
        #expect(try storage.select(\Person.name, ann) == ["Ann"])
    }
}
