// Records render CREATE TABLE through Strata's one table definition: the SQL they produced
// before (strings captured from main before the refactor), and the one type mapping's
// "no declared type" for a binding outside SQLite's four storage classes.
import Foundation
import StrataSQift
import Testing
@testable import StrataRecords

/// A custom binding whose storage class is none of SQLite's four: records declare no type.
struct UnusualRecordValue: Binding, Equatable, Sendable {
    typealias BindingType = Int32
    var bindingValue: BindingValue { .integer(0) }
    static func fromBindingValue(_ value: Any) -> UnusualRecordValue? { UnusualRecordValue() }
}

@Suite struct CreateTableSQLTests {
    @Test func createTableSQLIsUnchanged() throws {
        let columns = [
            RecordColumn.describing("id", as: Int64?.self, isPrimaryKey: true),
            .describing(#"na"me"#, as: String.self, isPrimaryKey: false),
            .describing("odd", as: UnusualRecordValue.self, isPrimaryKey: false),
            .describing("oddo", as: UnusualRecordValue?.self, isPrimaryKey: false),
            .describing("d", as: Data.self, isPrimaryKey: false),
            .describing("r", as: Double?.self, isPrimaryKey: false)
        ]
        let statements = RecordStatements(table: #"t"t"#, columns: columns, primaryKeyIndex: 0)
        let body = #"("id" INTEGER PRIMARY KEY, "na""me" TEXT NOT NULL, "odd" NOT NULL, "oddo", "d" BLOB NOT NULL, "r" REAL)"#
        #expect(statements.createTableSQL(ifNotExists: false) == #"CREATE TABLE "t""t" "# + body)
        #expect(statements.createTableSQL(ifNotExists: true) == #"CREATE TABLE IF NOT EXISTS "t""t" "# + body)

        let textKey = RecordStatements(
            table: "k",
            columns: [
                .describing("code", as: String.self, isPrimaryKey: true),
                .describing("odd", as: UnusualRecordValue.self, isPrimaryKey: true)
            ], primaryKeyIndex: 0)
        #expect(textKey.createTableSQL(ifNotExists: false) == #"CREATE TABLE "k" ("code" TEXT PRIMARY KEY NOT NULL, "odd" PRIMARY KEY NOT NULL)"#)
        let untypedKey = RecordStatements(table: "k", columns: [.describing("odd", as: UnusualRecordValue.self, isPrimaryKey: true)], primaryKeyIndex: 0)
        #expect(untypedKey.createTableSQL(ifNotExists: false) == #"CREATE TABLE "k" ("odd" PRIMARY KEY NOT NULL)"#)

        let db = try Connection()
        try db.execute(statements.createTableSQL(ifNotExists: true))
        let stored: String? = try db.query(#"SELECT sql FROM sqlite_master WHERE name = 't"t'"#)
        #expect(stored == statements.createTableSQL(ifNotExists: false))
    }

    @Test func columnTypesComeFromTheOneMapping() {
        #expect(RecordColumn.describing("a", as: Int8.self, isPrimaryKey: false).sqlType == "INTEGER")
        #expect(RecordColumn.describing("a", as: Bool?.self, isPrimaryKey: false).sqlType == "INTEGER")
        #expect(RecordColumn.describing("a", as: Float.self, isPrimaryKey: false).sqlType == "REAL")
        #expect(RecordColumn.describing("a", as: Date.self, isPrimaryKey: false).sqlType == "TEXT")
        #expect(RecordColumn.describing("a", as: URL?.self, isPrimaryKey: false).sqlType == "TEXT")
        #expect(RecordColumn.describing("a", as: Data.self, isPrimaryKey: false).sqlType == "BLOB")
        #expect(RecordColumn.describing("a", as: UnusualRecordValue.self, isPrimaryKey: false).sqlType == "")
    }
}
