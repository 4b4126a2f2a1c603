import StrataTestSupport
import SwiftParser
import SwiftSyntax
@testable import StrataRecordsMacros
import Testing

/// The names `@Record` writes into its expansion as Swift string literals (table and column
/// names) read back, through Swift's own parser, as exactly the text the user gave: quotes before
/// combining marks, `\r\n`, backslashes, NUL and other control characters included.
@Suite struct StringLiteralPropertyTests {
    /// The string `literal` denotes, as Swift's parser reads it; nil when it is no single, clean
    /// string literal.
    static func parsedValue(of literal: String) -> String? {
        let file = Parser.parse(source: "let name = \(literal)\n")
        guard !file.hasError, file.statements.count == 1,
            let binding = file.statements.first?.item.as(VariableDeclSyntax.self)?.bindings.first,
            let string = binding.initializer?.value.as(StringLiteralExprSyntax.self)
        else { return nil }
        return string.representedLiteralValue
    }

    @Test func aQuoteBeforeACombiningMarkStaysInsideTheLiteral() {
        for name in ["n\"\u{301}ode", "\"\u{301}", "a\r\nb", "\u{0}", "\\\"\u{20DD}", "tab\there", "del\u{7F}"] {
            #expect(Self.parsedValue(of: RecordMacro.literal(name)) == name, "\(Array(name.unicodeScalars))")
        }
    }

    @Test func everyGeneratedNameReadsBackExactly() throws {
        try PropertyCheck.run("a name written as a Swift literal parses back to itself", cases: 400) { random in
            let name = Gen.text(&random, maxPieces: 10)
            let literal = RecordMacro.literal(name)
            try require(
                Self.parsedValue(of: literal) == name,
                "\(Array(name.unicodeScalars)) was written as \(literal)")
        }
    }
}
