// A Swift 6 file importing Foundation and StrataORM: plain Swift keeps its meaning.
import Foundation
import Testing
import StrataORM

@Suite struct PlainSwift6Tests {
    @Test func operatorsAndFunctionsOnValues() {
        let optional: Int? = nil
        let text: String? = "a"
        #expect(optional == nil)
        #expect(text != nil)
        #expect(text == "a")
        let arithmetic = 1 + 2 * 3 - 4 / 2 % 3 == 5 // (too complex inside #expect, with or without StrataORM)
        #expect(arithmetic)
        #expect(abs(-3) == 3)
        #expect(max(1, 2) == 2 && min(1, 2) == 1)
        #expect(Date(timeIntervalSince1970: 1) < Date(timeIntervalSince1970: 2))
        #expect(Data([1]) == Data([1]))
        #expect([1, 2].contains(2) || false)
        let flag = false
        #expect(!flag)
        let error: Swift.Error = ORMError.invalidQuery("x")
        #expect(error is Error)
    }
}
