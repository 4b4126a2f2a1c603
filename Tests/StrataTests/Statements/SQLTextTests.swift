import Foundation
import Testing
import Strata
@testable import StrataCore

/// The kernel's one place for SQL text.
@Suite struct SQLTextTests {
    @Test func quotingAndLiterals() {
        #expect(quoteIdentifier("order") == "\"order\"")
        #expect(quoteIdentifier("a \"b\"") == "\"a \"\"b\"\"\"")
        #expect(quoteStringLiteral("it's") == "'it''s'")
        #expect("it's".sqift.addingSQLEscapes() == "'it''s'")
        #expect(sqlLiteral(.text("a'b")) == "'a''b'")
        #expect(sqlLiteral(.blob(Data([0xAB, 0x01]))) == "X'AB01'")
        #expect(sqlLiteral(.real(.nan)) == "NULL")
        #expect(sqlLiteral(.integer(-3)) == "-3")
    }

    @Test func identifiersCompareAsSQLiteDoes() {
        #expect(isPlainIdentifier("_a1") && !isPlainIdentifier("1a") && !isPlainIdentifier("a b"))
        #expect(sameIdentifier("People", "PEOPLE"))
        #expect(!sameIdentifier("straße", "STRASSE"))
    }
}
