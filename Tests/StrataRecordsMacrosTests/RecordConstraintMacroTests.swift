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
            expandedRecord(
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
                """,
                recordExtension(
                    "Book", table: "book", access: "public ",
                    columns: [.key("id", "Int64?"), .column("authorId", "Int64", named: "author_id"), .column("title", "String"), .column("year", "Int")]))
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
