import MacroTesting
import StrataTestSupport
import SwiftSyntaxMacroExpansion
@testable import StrataRecordsMacros
import Testing

/// `@Record(columnNaming:)` names the columns of properties without `@Column`, everywhere the
/// expansion writes a column name; `@Default(literal)` passes the literal on to the column's
/// description with the property's type, so the compiler checks it there too. Misuse is a
/// diagnostic at the attribute.
@Suite(.recordMacros(markers: ["PrimaryKey", "Column", "Default", "JSON", "References", "Indexed"]))
struct DefaultAndColumnNamingMacroTests {
    @Test func snakeCaseNamesEveryColumnButAnExplicitOne() {
        assertMacro {
            """
            @Record(table: "posts", columnNaming: .snakeCase)
            struct Post {
                @PrimaryKey var id: Int64?
                @References(Author.self) var authorId: Int64
                @Indexed var URLString: String
                @Column("body") var text: String
                var score2: Int
            }
            """
        } expansion: {
            expandedRecord(
                """
                struct Post {
                    var id: Int64?
                    var authorId: Int64
                    var URLString: String
                    var text: String
                    var score2: Int

                    static var recordConstraints: [StrataRecords.RecordConstraint] {
                        [
                            StrataRecords.RecordConstraint.references("author_id", Author.self),
                            StrataRecords.RecordConstraint.indexed("url_string")
                        ]
                    }
                }
                """,
                recordExtension(
                    "Post", table: "posts",
                    columns: [
                        .key("id", "Int64?"), .column("authorId", "Int64", named: "author_id"), .column("URLString", "String", named: "url_string"),
                        .column("text", "String", named: "body"), .column("score2", "Int")
                    ]))
        }
    }

    @Test func theNamingMayBeQualifiedAndTheDefaultSpelledOut() {
        assertMacro {
            """
            @Record(columnNaming: ColumnNaming.propertyName)
            struct A {
                var authorId: Int64
            }
            @Record(columnNaming: StrataRecords.ColumnNaming.snakeCase)
            struct B {
                var authorId: Int64
            }
            """
        } expansion: {
            expandedRecord(
                """
                struct A {
                    var authorId: Int64
                }
                struct B {
                    var authorId: Int64
                }
                """,
                recordExtension("A", table: "a", columns: [.column("authorId", "Int64")]),
                recordExtension("B", table: "b", columns: [.column("authorId", "Int64", named: "author_id")]))
        }
    }

    @Test func defaultPassesTheLiteralWithThePropertysType() {
        assertMacro {
            """
            @Record
            struct Settings {
                @PrimaryKey var id: Int64?
                @Default(0) var score: Int
                @Default("") @Column("note_text") var note: String
                @Default(false) var done: Bool
                @Default(-2.5) var ratio: Double
                @Default(nil) var tag: String?
                @Default(#"a "b""#) var raw: Swift.String
            }
            """
        } expansion: {
            expandedRecord(
                """
                struct Settings {
                    var id: Int64?
                    var score: Int
                    var note: String
                    var done: Bool
                    var ratio: Double
                    var tag: String?
                    var raw: Swift.String
                }
                """,
                recordExtension(
                    "Settings", table: "settings",
                    columns: [
                        .key("id", "Int64?"), .column("score", "Int", defaulting: "0"), .column("note", "String", named: "note_text", defaulting: #""""#),
                        .column("done", "Bool", defaulting: "false"), .column("ratio", "Double", defaulting: "-2.5"),
                        .column("tag", "String?", defaulting: "nil"), .column("raw", "Swift.String", defaulting: ##"#"a "b""#"##)
                    ]))
        }
    }

    @Test func refusesADefaultThatIsNotALiteral() {
        assertMacro {
            """
            @Record
            struct Settings {
                @Default(Settings.start) var score: Int
                @Default("n\\(1)") var note: String
                @Default() var empty: Int
                @Default(1, 2) var two: Int
            }
            """
        } diagnostics: {
            #"""
            @Record
            struct Settings {
                @Default(Settings.start) var score: Int
                         ┬─────────────
                         ╰─ 🛑 @Default takes one literal: an integer, a floating-point number, a string without interpolation, true, false, or nil; the default is part of the table's schema, fixed when the record is declared
                @Default("n\(1)") var note: String
                         ┬──────
                         ╰─ 🛑 @Default takes one literal: an integer, a floating-point number, a string without interpolation, true, false, or nil; the default is part of the table's schema, fixed when the record is declared
                @Default() var empty: Int
                ┬─────────
                ╰─ 🛑 @Default takes one literal: an integer, a floating-point number, a string without interpolation, true, false, or nil; the default is part of the table's schema, fixed when the record is declared
                @Default(1, 2) var two: Int
                         ┬
                         ╰─ 🛑 @Default takes one literal: an integer, a floating-point number, a string without interpolation, true, false, or nil; the default is part of the table's schema, fixed when the record is declared
            }
            """#
        }
    }

    @Test func refusesADefaultOfTheWrongKind() {
        assertMacro {
            """
            @Record
            struct Settings {
                @Default("seven") var score: Int
                @Default(1) var note: String
                @Default(1) var done: Bool
                @Default(nil) var count: Int
                @Default(true) var ratio: Double?
            }
            """
        } diagnostics: {
            """
            @Record
            struct Settings {
                @Default("seven") var score: Int
                         ┬──────
                         ╰─ 🛑 @Default gives a string to property 'score' of type 'Int', which needs an integer
                @Default(1) var note: String
                         ┬
                         ╰─ 🛑 @Default gives an integer to property 'note' of type 'String', which needs a string
                @Default(1) var done: Bool
                         ┬
                         ╰─ 🛑 @Default gives an integer to property 'done' of type 'Bool', which needs true or false
                @Default(nil) var count: Int
                         ┬──
                         ╰─ 🛑 @Default gives nil to property 'count' of type 'Int', which needs a value (only an optional property takes nil)
                @Default(true) var ratio: Double?
                         ┬───
                         ╰─ 🛑 @Default gives a Boolean to property 'ratio' of type 'Double?', which needs a floating-point number
            }
            """
        }
    }

    @Test func refusesADefaultOnAKeyOrJSONAndASecondDefault() {
        assertMacro {
            """
            @Record
            struct Settings {
                @PrimaryKey @Default(1) var id: Int64
                @JSON @Default("[]") var tags: [String]
                @Default(1) @Default(2) var score: Int
            }
            """
        } diagnostics: {
            """
            @Record
            struct Settings {
                @PrimaryKey @Default(1) var id: Int64
                            ┬──────────
                            ╰─ 🛑 @Default does not apply to a @PrimaryKey property: a key's value comes from the record or from SQLite's rowid
                @JSON @Default("[]") var tags: [String]
                      ┬─────────────
                      ╰─ 🛑 @Default does not apply to a @JSON property: its column holds JSON text; make the property optional to add it to a table with rows
                @Default(1) @Default(2) var score: Int
                            ┬──────────
                            ╰─ 🛑 a property takes one @Default
            }
            """
        }
    }

    @Test func refusesAComputedNamingAndTwoPropertiesOnOneColumn() {
        assertMacro {
            """
            @Record(columnNaming: naming)
            struct A {
                var authorId: Int64
            }
            @Record(columnNaming: .snakeCase)
            struct B {
                var authorId: Int64
                var author_id: Int64
                @Column("AUTHOR_ID") var other: Int64
            }
            """
        } diagnostics: {
            """
            @Record(columnNaming: naming)
                                  ┬─────
                                  ╰─ 🛑 columnNaming takes .propertyName or .snakeCase written out: the macro names the columns at compile time
            struct A {
                var authorId: Int64
            }
            @Record(columnNaming: .snakeCase)
            struct B {
                var authorId: Int64
                var author_id: Int64
                    ┬───────────────
                    ╰─ 🛑 property 'author_id' maps to column 'author_id', which property 'authorId' maps to already (SQLite ignores ASCII case in column names); name one of them with @Column
                @Column("AUTHOR_ID") var other: Int64
                                         ┬───────────
                                         ╰─ 🛑 property 'other' maps to column 'AUTHOR_ID', which property 'authorId' maps to already (SQLite ignores ASCII case in column names); name one of them with @Column
            }
            """
        }
    }
}

/// The snake_case rule, against a reference written another way (two passes over the name, as the
/// usual regular expressions do), on generated property names.
@Suite struct SnakeCasePropertyTests {
    /// The reference: first `([A-Z]+)([A-Z][a-z])` → `\1_\2` (each maximal uppercase run of two or
    /// more followed by a lowercase letter splits before its last letter), then `([a-z0-9])([A-Z])`
    /// → `\1_\2`; then the letters lowercased. ASCII only, by code point.
    static func reference(_ name: String) -> String {
        func upper(_ s: Unicode.Scalar) -> Bool { s.value >= 65 && s.value <= 90 }
        func lower(_ s: Unicode.Scalar) -> Bool { s.value >= 97 && s.value <= 122 }
        func digit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }
        func asciiUpper(_ s: Unicode.Scalar) -> Bool { upper(s) }
        let input = Array(name.unicodeScalars)
        var first: [Unicode.Scalar] = []
        var i = 0
        while i < input.count {
            guard upper(input[i]) else { first.append(input[i]); i += 1; continue }
            var end = i
            while end < input.count && upper(input[end]) { end += 1 }
            let run = input[i..<end]
            if run.count >= 2, end < input.count, lower(input[end]) {
                first += run.dropLast()
                first.append("_")
                first.append(input[end - 1])
            } else {
                first += run
            }
            i = end
        }
        var second: [Unicode.Scalar] = []
        for (index, scalar) in first.enumerated() {
            if index > 0, upper(scalar), lower(first[index - 1]) || digit(first[index - 1]) { second.append("_") }
            second.append(scalar)
        }
        var out = String.UnicodeScalarView()
        for scalar in second { out.append(asciiUpper(scalar) ? Unicode.Scalar(UInt8(scalar.value + 32)) : scalar) }
        return String(out)
    }

    @Test func examplesFromTheDocumentation() {
        let cases = [
            ("authorId", "author_id"), ("URLString", "url_string"), ("score2", "score2"), ("userID", "user_id"),
            ("version2Beta", "version2_beta"), ("HTTPServer2", "http_server2"), ("a", "a"), ("A", "a"), ("ID", "id"),
            ("_privateName", "_private_name"), ("already_snake", "already_snake"), ("my_Name", "my_name"), ("fooURL", "foo_url"),
            ("IDs", "i_ds"), ("aB", "a_b"), ("caféAu", "caféau"), ("ÉtatX", "État_x"), ("aÉ", "aÉ"), ("x9Y", "x9_y"),
            ("x\u{663}Y", "x\u{663}y"), ("ÉÉb", "ÉÉb")
        ]
        for (name, column) in cases {
            #expect(ColumnNamingRule.snakeCase(name) == column, "\(name)")
            #expect(Self.reference(name) == column, "reference: \(name)")
        }
        #expect(ColumnNamingRule.propertyName.columnName(for: "authorId") == "authorId")
    }

    @Test func matchesTheReferenceOnGeneratedNames() throws {
        let pieces = [
            "a", "b", "x", "Z", "Q", "id", "ID", "URL", "Url", "url", "Name", "name", "HTTP", "X2", "2", "09", "_", "__",
            "é", "É", "ß", "Ω", "ω", "AB", "ABC", "Ab", "aB", "\u{301}", "\u{663}", "ǅ", "😀"
        ]
        try PropertyCheck.run("snake_case matches the two-pass reference", cases: 2000) { random in
            var name = ""
            // Leading and trailing uppercase runs, single letters and digits come from the pieces.
            for _ in 0..<random.int(1...7) { name += random.pick(pieces) }
            if random.oneIn(4) { name = String(repeating: "A", count: random.int(1...4)) + name }
            if random.oneIn(4) { name += String(repeating: "Z", count: random.int(1...4)) }
            let column = ColumnNamingRule.snakeCase(name)
            try require(column == Self.reference(name), "\(name): \(column) but the reference gives \(Self.reference(name))")
            // Only underscores are added, every ASCII letter is lowercase, and the rule is idempotent.
            try require(!column.unicodeScalars.contains { $0.value >= 65 && $0.value <= 90 }, "\(name): \(column) keeps an uppercase letter")
            try require(
                Array(column.unicodeScalars.filter { $0 != "_" }) == Array(RecordMacro.asciiLowercased(name).unicodeScalars.filter { $0 != "_" }),
                "\(name): \(column) changed more than case and underscores")
            try require(ColumnNamingRule.snakeCase(column) == column, "\(name): \(column) is not stable")
        }
    }
}
