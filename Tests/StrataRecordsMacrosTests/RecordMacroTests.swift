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

            extension Player: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "player"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("id", as: (Int64?).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describing("name", as: (String).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("score_total", as: (Int).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("level", as: (Int).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = 0
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var id: StrataRecords.TypedColumn<Int64?>
                    var name: StrataRecords.TypedColumn<String>
                    var score: StrataRecords.TypedColumn<Int>
                    var level: StrataRecords.TypedColumn<Int>
                    init(qualifier: String?) {
                        self.id = StrataRecords.TypedColumn("id", qualifier: qualifier, record: "Player")
                        self.name = StrataRecords.TypedColumn("name", qualifier: qualifier, record: "Player")
                        self.score = StrataRecords.TypedColumn("score_total", qualifier: qualifier, record: "Player")
                        self.level = StrataRecords.TypedColumn("level", qualifier: qualifier, record: "Player")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(indexes[0], "id")
                    let value1: String = try reader.read(indexes[1], "name")
                    let value2: Int = try reader.read(indexes[2], "score_total")
                    let value3: Int = try reader.read(indexes[3], "level")
                    self = Self(id: value0, name: value1, score: value2, level: value3)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(0, "id")
                    let value1: String = try reader.read(1, "name")
                    let value2: Int = try reader.read(2, "score_total")
                    let value3: Int = try reader.read(3, "level")
                    self = Self(id: value0, name: value1, score: value2, level: value3)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(offset, "id")
                    let value1: String = try reader.read(offset &+ 1, "name")
                    let value2: Int = try reader.read(offset &+ 2, "score_total")
                    let value3: Int = try reader.read(offset &+ 3, "level")
                    self = Self(id: value0, name: value1, score: value2, level: value3)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.name), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.score), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.level), at: 4)
                    case .keyLast:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.name), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.score), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.level), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 4)
                    case .keyOnly:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
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
            #"""
            public struct Person {
                public var name: String
            }

            extension Person: StrataRecords.Record, StrataRecords.QueryableRecord {
                public static let tableName: String = "people"
                public static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("name", as: (String).self, isPrimaryKey: false)
                ]
                public static let primaryKeyIndex: Int? = nil
                public static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                public struct Columns: StrataRecords.RecordColumnSet {
                    public var name: StrataRecords.TypedColumn<String>
                    public init(qualifier: String?) {
                        self.name = StrataRecords.TypedColumn("name", qualifier: qualifier, record: "Person")
                    }
                }
                public static let columns = Columns(qualifier: tableName)
                public init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                public init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: String = try reader.read(indexes[0], "name")
                    self = Self(name: value0)
                }
                public init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: String = try reader.read(0, "name")
                    self = Self(name: value0)
                }
                public init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: String = try reader.read(offset, "name")
                    self = Self(name: value0)
                }
                public func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.name), at: 1)
                    case .keyLast:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\(Self.self)")
                    case .keyOnly:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\(Self.self)")
                    }
                }
                public var hasNilPrimaryKey: Bool {
                    false
                }
                public mutating func recordDidInsert(rowID: Int64) {

                }
            }
            """#
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
            #"""
            struct Match {
                var code: String
                var position: Position?
                var greeting: Swift.String
            }

            extension Match: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "match"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("code", as: (String).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describing("position", as: (Position?).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("say \"hi\"", as: (Swift.String).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = 0
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var code: StrataRecords.TypedColumn<String>
                    var position: StrataRecords.TypedColumn<Position?>
                    var greeting: StrataRecords.TypedColumn<Swift.String>
                    init(qualifier: String?) {
                        self.code = StrataRecords.TypedColumn("code", qualifier: qualifier, record: "Match")
                        self.position = StrataRecords.TypedColumn("position", qualifier: qualifier, record: "Match")
                        self.greeting = StrataRecords.TypedColumn("say \"hi\"", qualifier: qualifier, record: "Match")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: String = try reader.read(indexes[0], "code")
                    let value1: Position? = try reader.read(indexes[1], "position")
                    let value2: Swift.String = try reader.read(indexes[2], "say \"hi\"")
                    self = Self(code: value0, position: value1, greeting: value2)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: String = try reader.read(0, "code")
                    let value1: Position? = try reader.read(1, "position")
                    let value2: Swift.String = try reader.read(2, "say \"hi\"")
                    self = Self(code: value0, position: value1, greeting: value2)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: String = try reader.read(offset, "code")
                    let value1: Position? = try reader.read(offset &+ 1, "position")
                    let value2: Swift.String = try reader.read(offset &+ 2, "say \"hi\"")
                    self = Self(code: value0, position: value1, greeting: value2)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.code), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.position), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.greeting), at: 3)
                    case .keyLast:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.position), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.greeting), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.code), at: 3)
                    case .keyOnly:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.code), at: 1)
                    }
                }
                var hasNilPrimaryKey: Bool {
                    StrataRecords.RecordValue.isNil(self.code)
                }
                mutating func recordDidInsert(rowID: Int64) {
                    StrataRecords.RecordValue.assignRowID(rowID, to: &self.code)
                }
            }
            """#
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
            """
            struct Article {
                var id: Int64?
                @JSON var tags: [String]
                @JSON var meta: [String: Int]?
            }

            extension Article: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "article"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("id", as: (Int64?).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describingJSON("tags", as: ([String]).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describingJSON("meta", as: ([String: Int]?).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = 0
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var id: StrataRecords.TypedColumn<Int64?>
                    var tags: StrataRecords.TypedColumn<[String]>
                    var meta: StrataRecords.TypedColumn<[String: Int]?>
                    init(qualifier: String?) {
                        self.id = StrataRecords.TypedColumn("id", qualifier: qualifier, record: "Article")
                        self.tags = StrataRecords.TypedColumn(json: "tags", qualifier: qualifier, record: "Article")
                        self.meta = StrataRecords.TypedColumn(json: "meta", qualifier: qualifier, record: "Article")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(indexes[0], "id")
                    let value1: [String] = try reader.readJSON(indexes[1], "tags")
                    let value2: [String: Int]? = try reader.readJSON(indexes[2], "meta")
                    self = Self(id: value0, tags: value1, meta: value2)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(0, "id")
                    let value1: [String] = try reader.readJSON(1, "tags")
                    let value2: [String: Int]? = try reader.readJSON(2, "meta")
                    self = Self(id: value0, tags: value1, meta: value2)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(offset, "id")
                    let value1: [String] = try reader.readJSON(offset &+ 1, "tags")
                    let value2: [String: Int]? = try reader.readJSON(offset &+ 2, "meta")
                    self = Self(id: value0, tags: value1, meta: value2)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                        try binder.bind(StrataRecords.RecordValue.json(self.tags), at: 2)
                        try binder.bind(StrataRecords.RecordValue.json(self.meta), at: 3)
                    case .keyLast:
                        try binder.bind(StrataRecords.RecordValue.json(self.tags), at: 1)
                        try binder.bind(StrataRecords.RecordValue.json(self.meta), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 3)
                    case .keyOnly:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
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
