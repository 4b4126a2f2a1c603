import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
@testable import StrataRecordsMacros
import Testing

/// The macro's own expansion tests: what it generates, and what it refuses at the declaration.
@Suite struct RecordMacroTests {
    let macros: [String: MacroSpec] = [
        "Record": MacroSpec(type: RecordMacro.self, conformances: ["Record"]),
        "PrimaryKey": MacroSpec(type: RecordPropertyMarkerMacro.self),
        "Column": MacroSpec(type: RecordPropertyMarkerMacro.self),
    ]

    func expand(_ source: String, _ expected: String, diagnostics: [DiagnosticSpec] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expected, diagnostics: diagnostics, macroSpecs: macros, indentationWidth: .spaces(4)) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func generatesTheRecordExtension() {
        expand(
            """
            @Record
            struct Player {
                @PrimaryKey var id: Int64?
                var name: String
                @Column("score_total") var score: Int
                var label: String { name }
            }
            """,
            """
            struct Player {
                var id: Int64?
                var name: String
                var score: Int
                var label: String { name }
            }

            extension Player: StrataRecords.Record {
                static let tableName: String = "player"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("id", as: (Int64?).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describing("name", as: (String).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("score_total", as: (Int).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = 0
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: Sendable {
                    let id = StrataRecords.TypedColumn<Int64?>("id")
                    let name = StrataRecords.TypedColumn<String>("name")
                    let score = StrataRecords.TypedColumn<Int>("score_total")
                }
                static let columns = Columns()
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    self.id = try row.recordValue(at: indexes[0], column: "id", of: Self.self)
                    self.name = try row.recordValue(at: indexes[1], column: "name", of: Self.self)
                    self.score = try row.recordValue(at: indexes[2], column: "score_total", of: Self.self)
                }
                func bindRecordColumns(to statement: Strata.Statement, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try statement.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                        try statement.bind(StrataRecords.RecordValue.bindable(self.name), at: 2)
                        try statement.bind(StrataRecords.RecordValue.bindable(self.score), at: 3)
                    case .keyLast:
                        try statement.bind(StrataRecords.RecordValue.bindable(self.name), at: 1)
                        try statement.bind(StrataRecords.RecordValue.bindable(self.score), at: 2)
                        try statement.bind(StrataRecords.RecordValue.bindable(self.id), at: 3)
                    case .keyOnly:
                        try statement.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                    }
                }
                var hasNilPrimaryKey: Bool {
                    StrataRecords.RecordValue.isNil(self.id)
                }
                mutating func recordDidInsert(rowID: Int64) {
                    StrataRecords.RecordValue.assignRowID(rowID, to: &self.id)
                }
            }
            """
        )
    }

    @Test func tableNameArgumentAndPublicAccess() {
        expand(
            """
            @Record(table: "people")
            public struct Person {
                public var name: String
            }
            """,
            """
            public struct Person {
                public var name: String
            }

            extension Person: StrataRecords.Record {
                public static let tableName: String = "people"
                public static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("name", as: (String).self, isPrimaryKey: false)
                ]
                public static let primaryKeyIndex: Int? = nil
                public static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                public struct Columns: Sendable {
                    public let name = StrataRecords.TypedColumn<String>("name")
                }
                public static let columns = Columns()
                public init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                public init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    self.name = try row.recordValue(at: indexes[0], column: "name", of: Self.self)
                }
                public func bindRecordColumns(to statement: Strata.Statement, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try statement.bind(StrataRecords.RecordValue.bindable(self.name), at: 1)
                    case .keyLast:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\\(Self.self)")
                    case .keyOnly:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\\(Self.self)")
                    }
                }
                public var hasNilPrimaryKey: Bool {
                    false
                }
                public mutating func recordDidInsert(rowID: Int64) {

                }
            }
            """
        )
    }

    @Test func refusesAClass() {
        expand(
            """
            @Record
            class Team {
                var name: String = ""
            }
            """,
            """
            class Team {
                var name: String = ""
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Record applies to structs, and this is a class: records are values, read from rows and written back", line: 1, column: 1)]
        )
    }

    @Test func refusesATypeWithOnlyComputedProperties() {
        expand(
            """
            @Record
            struct Empty {
                var label: String { "x" }
            }
            """,
            """
            struct Empty {
                var label: String { "x" }
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Record type 'Empty' has no stored properties to map to columns (computed properties are not stored)", line: 2, column: 8)]
        )
    }

    @Test func refusesAPropertyThatIsNotABinding() {
        expand(
            """
            @Record
            struct Bad {
                var scores: [Int]
                var callback: () -> Void
            }
            """,
            """
            struct Bad {
                var scores: [Int]
                var callback: () -> Void
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "property 'scores' of type '[Int]' is not a Binding: an array is not a Binding; wrap it in ArrayBinding or a CodableBinding type", line: 3, column: 17),
                DiagnosticSpec(message: "property 'callback' of type '() -> Void' is not a Binding: a function is not stored in a column", line: 4, column: 19),
            ]
        )
    }

    @Test func refusesAPropertyWithoutAType() {
        expand(
            """
            @Record
            struct Loose {
                var name = "x"
            }
            """,
            """
            struct Loose {
                var name = "x"
            }
            """,
            diagnostics: [DiagnosticSpec(message: "property 'name' needs an explicit type annotation for @Record to map it to a column", line: 3, column: 9)]
        )
    }

    @Test func defaultTableNames() {
        #expect(RecordMacro.defaultTableName(for: "Player") == "player")
        #expect(RecordMacro.defaultTableName(for: "HTTPRequest") == "httpRequest")
        #expect(RecordMacro.defaultTableName(for: "URL") == "url")
        #expect(RecordMacro.defaultTableName(for: "x") == "x")
    }
}
