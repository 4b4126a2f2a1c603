import MacroTesting
import SwiftSyntaxMacroExpansion
@testable import StrataRecordsMacros
import Testing

/// `@References`, `@Indexed`, `@Unique` and `@Check`: `@Record` lists them in a member of the
/// struct (where a nested record's sibling types are in scope), passing their arguments on as
/// written; a record without them gets no such member.
@Suite(.recordMacros(markers: ["PrimaryKey", "Column", "References", "Indexed", "Unique", "Check"]))
struct RecordConstraintMacroTests {
    @Test func listsTheConstraintsInAMember() {
        assertMacro {
            """
            @Record
            public struct Book {
                @PrimaryKey var id: Int64?
                @References(Author.self, onDelete: .cascade) @Column("author_id") var authorId: Int64
                @Indexed @Unique var title: String
                @Check("year > 0") @Check(#"year < 3000"#) var year: Int
            }
            """
        } expansion: {
            """
            public struct Book {
                var id: Int64?
                var authorId: Int64
                var title: String
                var year: Int

                public static var recordConstraints: [StrataRecords.RecordConstraint] {
                    [
                        StrataRecords.RecordConstraint.references("author_id", Author.self, onDelete: .cascade),
                        StrataRecords.RecordConstraint.indexed("title"),
                        StrataRecords.RecordConstraint.unique("title"),
                        StrataRecords.RecordConstraint.check("year", "year > 0"),
                        StrataRecords.RecordConstraint.check("year", #"year < 3000"#)
                    ]
                }
            }

            extension Book: StrataRecords.Record, StrataRecords.QueryableRecord {
                public static let tableName: String = "book"
                public static let recordColumns: [StrataRecords.RecordColumn] = [
                    StrataRecords.RecordColumn.describing("id", as: (Int64?).self, isPrimaryKey: true),
                    StrataRecords.RecordColumn.describing("author_id", as: (Int64).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("title", as: (String).self, isPrimaryKey: false),
                    StrataRecords.RecordColumn.describing("year", as: (Int).self, isPrimaryKey: false)
                ]
                public static let primaryKeyIndex: Int? = 0
                public static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
                public struct Columns: StrataRecords.RecordColumnSet {
                    public var id: StrataRecords.TypedColumn<Int64?>
                    public var authorId: StrataRecords.TypedColumn<Int64>
                    public var title: StrataRecords.TypedColumn<String>
                    public var year: StrataRecords.TypedColumn<Int>
                    public init(qualifier: String?) {
                        self.id = StrataRecords.TypedColumn("id", qualifier: qualifier, record: "Book")
                        self.authorId = StrataRecords.TypedColumn("author_id", qualifier: qualifier, record: "Book")
                        self.title = StrataRecords.TypedColumn("title", qualifier: qualifier, record: "Book")
                        self.year = StrataRecords.TypedColumn("year", qualifier: qualifier, record: "Book")
                    }
                }
                public static let columns = Columns(qualifier: tableName)
                public init(row: Strata.Row) throws {
                    try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
                }
                public init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(indexes[0], "id")
                    let value1: Int64 = try reader.read(indexes[1], "author_id")
                    let value2: String = try reader.read(indexes[2], "title")
                    let value3: Int = try reader.read(indexes[3], "year")
                    self = Self(id: value0, authorId: value1, title: value2, year: value3)
                }
                public init(columnOrderedRow row: borrowing Strata.Row) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(0, "id")
                    let value1: Int64 = try reader.read(1, "author_id")
                    let value2: String = try reader.read(2, "title")
                    let value3: Int = try reader.read(3, "year")
                    self = Self(id: value0, authorId: value1, title: value2, year: value3)
                }
                public init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                    let reader = StrataRecords.RecordRowReader(row, for: Self.self)
                    let value0: Int64? = try reader.read(offset, "id")
                    let value1: Int64 = try reader.read(offset &+ 1, "author_id")
                    let value2: String = try reader.read(offset &+ 2, "title")
                    let value3: Int = try reader.read(offset &+ 3, "year")
                    self = Self(id: value0, authorId: value1, title: value2, year: value3)
                }
                public func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                    switch order {
                    case .all:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.authorId), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.title), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.year), at: 4)
                    case .keyLast:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.authorId), at: 1)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.title), at: 2)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.year), at: 3)
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 4)
                    case .keyOnly:
                        try binder.bind(StrataRecords.RecordValue.bindable(self.id), at: 1)
                    }
                }
                public var hasNilPrimaryKey: Bool {
                    StrataRecords.RecordValue.isNil(self.id)
                }
                public mutating func recordDidInsert(rowID: Int64) {
                    StrataRecords.RecordValue.assignRowID(rowID, to: &self.id)
                }
            }
            """
        }
    }

    @Test func refusesAnEmptyCheck() {
        assertMacro {
            """
            @Record
            struct Book {
                @PrimaryKey var id: Int64?
                @Check("  ") var year: Int
            }
            """
        } diagnostics: {
            """
            @Record
            struct Book {
                @PrimaryKey var id: Int64?
                @Check("  ") var year: Int
                       ┬───
                       ╰─ 🛑 @Check takes an SQL expression that a row must satisfy, such as "year > 0"; this one is empty
            }
            """
        }
    }
}
