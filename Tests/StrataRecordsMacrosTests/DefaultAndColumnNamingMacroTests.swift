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

            extension Post: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "posts"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("id", as: (Int64?).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describing("author_id", as: (Int64).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("url_string", as: (String).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("body", as: (String).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("score2", as: (Int).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = 0
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var id: StrataRecords.TypedColumn<Int64?>
                    var authorId: StrataRecords.TypedColumn<Int64>
                    var URLString: StrataRecords.TypedColumn<String>
                    var text: StrataRecords.TypedColumn<String>
                    var score2: StrataRecords.TypedColumn<Int>
                    init(qualifier: String?) {
                        self.id = StrataRecords.TypedColumn("id", qualifier: qualifier, record: "Post")
                        self.authorId = StrataRecords.TypedColumn("author_id", qualifier: qualifier, record: "Post")
                        self.URLString = StrataRecords.TypedColumn("url_string", qualifier: qualifier, record: "Post")
                        self.text = StrataRecords.TypedColumn("body", qualifier: qualifier, record: "Post")
                        self.score2 = StrataRecords.TypedColumn("score2", qualifier: qualifier, record: "Post")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(indexes[0], "id")
                    let value1: Int64 = try reader.read(indexes[1], "author_id")
                    let value2: String = try reader.read(indexes[2], "url_string")
                    let value3: String = try reader.read(indexes[3], "body")
                    let value4: Int = try reader.read(indexes[4], "score2")
                    self = Self(id: value0, authorId: value1, URLString: value2, text: value3, score2: value4)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(0, "id")
                    let value1: Int64 = try reader.read(1, "author_id")
                    let value2: String = try reader.read(2, "url_string")
                    let value3: String = try reader.read(3, "body")
                    let value4: Int = try reader.read(4, "score2")
                    self = Self(id: value0, authorId: value1, URLString: value2, text: value3, score2: value4)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(offset, "id")
                    let value1: Int64 = try reader.read(offset &+ 1, "author_id")
                    let value2: String = try reader.read(offset &+ 2, "url_string")
                    let value3: String = try reader.read(offset &+ 3, "body")
                    let value4: Int = try reader.read(offset &+ 4, "score2")
                    self = Self(id: value0, authorId: value1, URLString: value2, text: value3, score2: value4)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.authorId), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.URLString), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.text), at: 4)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.score2), at: 5)
                    case .keyLast:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.authorId), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.URLString), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.text), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.score2), at: 4)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 5)
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
            #"""
            struct A {
                var authorId: Int64
            }
            struct B {
                var authorId: Int64
            }

            extension A: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "a"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("authorId", as: (Int64).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = nil
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var authorId: StrataRecords.TypedColumn<Int64>
                    init(qualifier: String?) {
                        self.authorId = StrataRecords.TypedColumn("authorId", qualifier: qualifier, record: "A")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64 = try reader.read(indexes[0], "authorId")
                    self = Self(authorId: value0)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64 = try reader.read(0, "authorId")
                    self = Self(authorId: value0)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64 = try reader.read(offset, "authorId")
                    self = Self(authorId: value0)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.authorId), at: 1)
                    case .keyLast:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\(Self.self)")
                    case .keyOnly:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\(Self.self)")
                    }
                }
                var hasNilPrimaryKey: Bool {
                    false
                }
                mutating func recordDidInsert(rowID: Int64) {

                }
            }

            extension B: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "b"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("author_id", as: (Int64).self, isPrimaryKey: false)
                ]
                static let primaryKeyIndex: Int? = nil
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var authorId: StrataRecords.TypedColumn<Int64>
                    init(qualifier: String?) {
                        self.authorId = StrataRecords.TypedColumn("author_id", qualifier: qualifier, record: "B")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64 = try reader.read(indexes[0], "author_id")
                    self = Self(authorId: value0)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64 = try reader.read(0, "author_id")
                    self = Self(authorId: value0)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64 = try reader.read(offset, "author_id")
                    self = Self(authorId: value0)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.authorId), at: 1)
                    case .keyLast:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\(Self.self)")
                    case .keyOnly:
                        throw StrataRecords.RecordError.noPrimaryKey(record: "\(Self.self)")
                    }
                }
                var hasNilPrimaryKey: Bool {
                    false
                }
                mutating func recordDidInsert(rowID: Int64) {

                }
            }
            """#
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

            extension Settings: StrataRecords.Record, StrataRecords.QueryableRecord {
                static let tableName: String = "settings"
                static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("id", as: (Int64?).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describing("score", as: (Int).self, isPrimaryKey: false).defaulting(to: 0, as: (Int).self),
                    StrataRecords.RecordColumn.describing("note_text", as: (String).self, isPrimaryKey: false).defaulting(to: "", as: (String).self),
                    StrataRecords.RecordColumn.describing("done", as: (Bool).self, isPrimaryKey: false).defaulting(to: false, as: (Bool).self),
                    StrataRecords.RecordColumn.describing("ratio", as: (Double).self, isPrimaryKey: false).defaulting(to: -2.5, as: (Double).self),
                    StrataRecords.RecordColumn.describing("tag", as: (String?).self, isPrimaryKey: false).defaulting(to: nil, as: (String?).self),
                    StrataRecords.RecordColumn.describing("raw", as: (Swift.String).self, isPrimaryKey: false).defaulting(to: #"a "b""#, as: (Swift.String).self)
                ]
                static let primaryKeyIndex: Int? = 0
                static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                struct Columns: StrataRecords.RecordColumnSet {
                    var id: StrataRecords.TypedColumn<Int64?>
                    var score: StrataRecords.TypedColumn<Int>
                    var note: StrataRecords.TypedColumn<String>
                    var done: StrataRecords.TypedColumn<Bool>
                    var ratio: StrataRecords.TypedColumn<Double>
                    var tag: StrataRecords.TypedColumn<String?>
                    var raw: StrataRecords.TypedColumn<Swift.String>
                    init(qualifier: String?) {
                        self.id = StrataRecords.TypedColumn("id", qualifier: qualifier, record: "Settings")
                        self.score = StrataRecords.TypedColumn("score", qualifier: qualifier, record: "Settings")
                        self.note = StrataRecords.TypedColumn("note_text", qualifier: qualifier, record: "Settings")
                        self.done = StrataRecords.TypedColumn("done", qualifier: qualifier, record: "Settings")
                        self.ratio = StrataRecords.TypedColumn("ratio", qualifier: qualifier, record: "Settings")
                        self.tag = StrataRecords.TypedColumn("tag", qualifier: qualifier, record: "Settings")
                        self.raw = StrataRecords.TypedColumn("raw", qualifier: qualifier, record: "Settings")
                    }
                }
                static let columns = Columns(qualifier: tableName)
                init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(indexes[0], "id")
                    let value1: Int = try reader.read(indexes[1], "score")
                    let value2: String = try reader.read(indexes[2], "note_text")
                    let value3: Bool = try reader.read(indexes[3], "done")
                    let value4: Double = try reader.read(indexes[4], "ratio")
                    let value5: String? = try reader.read(indexes[5], "tag")
                    let value6: Swift.String = try reader.read(indexes[6], "raw")
                    self = Self(id: value0, score: value1, note: value2, done: value3, ratio: value4, tag: value5, raw: value6)
                }
                init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(0, "id")
                    let value1: Int = try reader.read(1, "score")
                    let value2: String = try reader.read(2, "note_text")
                    let value3: Bool = try reader.read(3, "done")
                    let value4: Double = try reader.read(4, "ratio")
                    let value5: String? = try reader.read(5, "tag")
                    let value6: Swift.String = try reader.read(6, "raw")
                    self = Self(id: value0, score: value1, note: value2, done: value3, ratio: value4, tag: value5, raw: value6)
                }
                init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(offset, "id")
                    let value1: Int = try reader.read(offset &+ 1, "score")
                    let value2: String = try reader.read(offset &+ 2, "note_text")
                    let value3: Bool = try reader.read(offset &+ 3, "done")
                    let value4: Double = try reader.read(offset &+ 4, "ratio")
                    let value5: String? = try reader.read(offset &+ 5, "tag")
                    let value6: Swift.String = try reader.read(offset &+ 6, "raw")
                    self = Self(id: value0, score: value1, note: value2, done: value3, ratio: value4, tag: value5, raw: value6)
                }
                func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.score), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.note), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.done), at: 4)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.ratio), at: 5)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.tag), at: 6)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.raw), at: 7)
                    case .keyLast:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.score), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.note), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.done), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.ratio), at: 4)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.tag), at: 5)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.raw), at: 6)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 7)
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
