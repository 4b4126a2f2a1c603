import MacroTesting
import SwiftSyntaxMacroExpansion
@testable import StrataRecordsMacros
import Testing

/// The macro's own expansion tests (swift-macro-testing inline snapshots): what it generates, and
/// what it refuses at the declaration. `record: .never` makes a changed expansion fail the test
/// instead of rewriting the snapshot.
@Suite(.recordMacros(markers: ["PrimaryKey", "Column"]))
struct RecordMacroTests {
    @Test func generatesTheRecordExtension() {
        assertMacro {
            """
            @Record
            struct Player {
                @PrimaryKey var id: Int64?
                var name: String
                @Column("score_total") var score: Int
                var label: String { name }
                static let maximum = 10
                let kind: String = "player"
                var level: Int = 1 { didSet { print(level) } }
            }
            """
        } expansion: {
            expandedRecord(
                """
                struct Player {
                    var id: Int64?
                    var name: String
                    var score: Int
                    var label: String { name }
                    static let maximum = 10
                    let kind: String = "player"
                    var level: Int = 1 { didSet { print(level) } }
                }
                """,
                recordExtension(
                    "Player", table: "player",
                    columns: [.key("id", "Int64?"), .column("name", "String"), .column("score", "Int", named: "score_total"), .column("level", "Int")]))
        }
    }

    @Test func tableNameArgumentAndPublicAccess() {
        assertMacro {
            """
            @Record(table: "people")
            public struct Person {
                public var name: String
            }
            """
        } expansion: {
            expandedRecord(
                """
                public struct Person {
                    public var name: String
                }
                """,
                recordExtension("Person", table: "people", access: "public ", columns: [.column("name", "String")]))
        }
    }

    @Test func optionalsEnumsAndQuotedNames() {
        assertMacro {
            """
            @Record
            struct Match {
                @PrimaryKey var code: String
                var position: Position?
                @Column("say \\"hi\\"") var greeting: Swift.String
            }
            """
        } expansion: {
            expandedRecord(
                """
                struct Match {
                    var code: String
                    var position: Position?
                    var greeting: Swift.String
                }
                """,
                recordExtension(
                    "Match", table: "match",
                    columns: [.key("code", "String"), .column("position", "Position?"), .column("greeting", "Swift.String", named: #"say \"hi\""#)]))
        }
    }

    @Test func jsonPropertiesBindReadAndQueryAsJSON() {
        assertMacro {
            """
            @Record
            struct Article {
                @PrimaryKey var id: Int64?
                @JSON var tags: [String]
                @JSON var meta: [String: Int]?
            }
            """
        } expansion: {
            expandedRecord(
                """
                struct Article {
                    var id: Int64?
                    @JSON var tags: [String]
                    @JSON var meta: [String: Int]?
                }
                """,
                recordExtension("Article", table: "article", columns: [.key("id", "Int64?"), .json("tags", "[String]"), .json("meta", "[String: Int]?")]))
        }
    }

    @Test func refusesAClass() {
        assertMacro {
            """
            @Record
            class Team {
                var name: String = ""
            }
            """
        } diagnostics: {
            """
            @Record
            ┬──────
            ╰─ 🛑 @Record applies to structs, and this is a class: records are values, read from rows and written back
            class Team {
                var name: String = ""
            }
            """
        }
    }

    @Test func refusesAnEnum() {
        assertMacro {
            """
            @Record
            enum Color {
                case red
            }
            """
        } diagnostics: {
            """
            @Record
            ┬──────
            ╰─ 🛑 @Record applies to structs, and this is an enum: records are values, read from rows and written back
            enum Color {
                case red
            }
            """
        }
    }

    @Test func refusesAGenericStruct() {
        assertMacro {
            """
            @Record
            struct Box<Value: Binding> {
                var value: Value
            }
            """
        } diagnostics: {
            """
            @Record
            struct Box<Value: Binding> {
                      ┬───────────────
                      ╰─ 🛑 @Record does not apply to generic struct 'Box': a record's table, columns and statements are static stored properties, which generic types cannot have
                var value: Value
            }
            """
        }
    }

    @Test func refusesATypeWithOnlyComputedProperties() {
        assertMacro {
            """
            @Record
            struct Empty {
                var label: String { "x" }
                static var shared: Int = 0
            }
            """
        } diagnostics: {
            """
            @Record
            struct Empty {
                   ┬────
                   ╰─ 🛑 @Record type 'Empty' has no stored properties to map to columns (computed properties are not stored)
                var label: String { "x" }
                static var shared: Int = 0
            }
            """
        }
    }

    @Test func refusesPropertiesThatAreNotBindings() {
        assertMacro {
            """
            @Record
            struct Bad {
                var scores: [Int]
                var byName: [String: Int]?
                var callback: () -> Void
                var pair: (Int, Int)
                var anything: any Equatable
            }
            """
        } diagnostics: {
            """
            @Record
            struct Bad {
                var scores: [Int]
                            ┬────
                            ╰─ 🛑 property 'scores' of type '[Int]' is not a Binding: an array is not a Binding; mark it @JSON to store it as JSON text, or wrap it in ArrayBinding
                var byName: [String: Int]?
                            ┬─────────────
                            ╰─ 🛑 property 'byName' of type '[String: Int]?' is not a Binding: a dictionary is not a Binding; mark it @JSON to store it as JSON text, or wrap it in DictionaryBinding
                var callback: () -> Void
                              ┬─────────
                              ╰─ 🛑 property 'callback' of type '() -> Void' is not a Binding: a function is not stored in a column
                var pair: (Int, Int)
                          ┬─────────
                          ╰─ 🛑 property 'pair' of type '(Int, Int)' is not a Binding: a tuple has no single column value
                var anything: any Equatable
                              ┬────────────
                              ╰─ 🛑 property 'anything' of type 'any Equatable' is not a Binding: an existential or opaque type has no fixed column type
            }
            """
        }
    }

    @Test func refusesAPropertyWithoutAType() {
        assertMacro {
            """
            @Record
            struct Loose {
                var name = "x"
            }
            """
        } diagnostics: {
            """
            @Record
            struct Loose {
                var name = "x"
                    ┬─────────
                    ╰─ 🛑 property 'name' needs an explicit type annotation for @Record to map it to a column
            }
            """
        }
    }

    @Test func refusesALazyProperty() {
        assertMacro {
            """
            @Record
            struct Cached {
                var name: String
                lazy var upper: String = name.uppercased()
            }
            """
        } diagnostics: {
            """
            @Record
            struct Cached {
                var name: String
                lazy var upper: String = name.uppercased()
                         ┬────────────────────────────────
                         ╰─ 🛑 lazy property 'upper' cannot be a column; make it a stored or computed property
            }
            """
        }
    }

    @Test func refusesTwoPrimaryKeys() {
        assertMacro {
            """
            @Record
            struct Pair {
                @PrimaryKey var a: Int64
                @PrimaryKey var b: Int64
            }
            """
        } diagnostics: {
            """
            @Record
            ┬──────
            ╰─ 🛑 @Record type 'Pair' marks more than one @PrimaryKey; a record has one primary key column
            struct Pair {
                @PrimaryKey var a: Int64
                @PrimaryKey var b: Int64
            }
            """
        }
    }

    @Test func refusesAMarkerOffAProperty() {
        assertMacro {
            """
            struct Holder {
                @PrimaryKey func key() -> Int { 1 }
            }
            """
        } diagnostics: {
            """
            struct Holder {
                @PrimaryKey func key() -> Int { 1 }
                ┬──────────
                ╰─ 🛑 @PrimaryKey marks a stored property of a @Record struct
            }
            """
        }
    }

    @Test func refusesNamesThatAreNotLiterals() {
        assertMacro {
            """
            @Record(table: prefix + "players")
            struct Player {
                @Column("\\(prefix)name") var name: String
            }
            """
        } diagnostics: {
            #"""
            @Record(table: prefix + "players")
                           ┬─────────────────
                           ╰─ 🛑 @Record takes a non-empty string literal without interpolation: the macro writes the name into SQL at compile time
            struct Player {
                @Column("\(prefix)name") var name: String
                        ┬──────────────
                        ╰─ 🛑 @Column takes a non-empty string literal without interpolation: the macro writes the name into SQL at compile time
            }
            """#
        }
    }

    @Test func defaultTableNames() {
        #expect(RecordMacro.defaultTableName(for: "Player") == "player")
        #expect(RecordMacro.defaultTableName(for: "HTTPRequest") == "httpRequest")
        #expect(RecordMacro.defaultTableName(for: "URL") == "url")
        #expect(RecordMacro.defaultTableName(for: "x") == "x")
        #expect(RecordMacro.defaultTableName(for: "LogLine") == "logLine")
    }
}
