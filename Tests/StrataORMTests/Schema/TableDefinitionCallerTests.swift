// The ORM renders its tables through Strata's one table definition: the SQL it produced before
// (strings captured from main before the refactor) and the one type mapping's BLOB fallback.
import Foundation
import StrataTestSupport
import Testing
@testable import StrataORM

/// A custom binding whose storage class is none of SQLite's four: the ORM declares it BLOB.
struct UnusualORMValue: Binding, Equatable {
    typealias BindingType = Int32
    var bindingValue: BindingValue { .integer(0) }
    static func fromBindingValue(_ value: Any) -> UnusualORMValue? { UnusualORMValue() }
}

@Suite struct TableDefinitionCallerTests {
    struct Code: Initializable { var id = 0; var code = ""; var label: String? = nil; var n: Double = 0; var blob = Data(); var odd = UnusualORMValue() }

    static func codes() -> Table<Code> {
        Table<Code>(
            name: #"co"des"#,
            Column(name: "id", keyPath: \Code.id, constraints: primaryKey().desc().onConflict().replace().autoincrement()),
            Column(name: "code", keyPath: \Code.code, constraints: notNull().onConflict().fail(), unique().onConflict().ignore(), defaultValue("it's")),
            Column(name: "label", keyPath: \Code.label, constraints: unique()),
            Column(name: "n", keyPath: \Code.n, constraints: defaultValue(1.5)),
            Column(name: "blob", keyPath: \Code.blob))
    }

    @Test func createTableSQLIsUnchanged() throws {
        let table = Self.codes()
        #expect(
            table.createSQL == #"""
                CREATE TABLE "co""des" ("id" INTEGER PRIMARY KEY DESC ON CONFLICT REPLACE AUTOINCREMENT, \#
                "code" TEXT NOT NULL ON CONFLICT FAIL UNIQUE ON CONFLICT IGNORE DEFAULT 'it''s', "label" TEXT UNIQUE, \#
                "n" REAL DEFAULT 1.5, "blob" BLOB)
                """#)
        let pair = Table<Code>(
            name: "pair",
            Column(name: "id", keyPath: \Code.id, constraints: primaryKey().asc(), notNull()),
            Column(name: "code", keyPath: \Code.code, constraints: primaryKey()),
            Column(name: "label", keyPath: \Code.label))
        #expect(pair.createSQL == #"CREATE TABLE "pair" ("id" INTEGER NOT NULL, "code" TEXT, "label" TEXT, PRIMARY KEY ("id", "code"))"#)
        #expect(pair.definitionSQL == #""id" INTEGER NOT NULL, "code" TEXT, "label" TEXT, PRIMARY KEY ("id", "code")"#)

        // (SQLite refuses the first, whose AUTOINCREMENT key is DESC; the ORM passes it on as declared.)
        let storage = try Storage(filename: ":memory:", pair)
        try storage.syncSchema(preserve: true)
        let stored: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'pair'")
        #expect(stored == pair.createSQL)
    }

    @Test func unmappedBindingDeclaresBlob() throws {
        let table = Table<Code>(name: "odd", Column(name: "odd", keyPath: \Code.odd))
        #expect(table.createSQL == #"CREATE TABLE "odd" ("odd" BLOB)"#)
    }

    @Test func syncSchemaAddsColumnsWithTheSameColumnSQL() throws {
        let directory = try TemporaryDirectory()
        let first = try Storage(filename: directory.path("db"), Table<Code>(name: "grow", Column(name: "id", keyPath: \Code.id, constraints: primaryKey())))
        try first.syncSchema(preserve: true)
        let grown = Table<Code>(
            name: "grow",
            Column(name: "id", keyPath: \Code.id, constraints: primaryKey()),
            Column(name: "label", keyPath: \Code.label),
            Column(name: "n", keyPath: \Code.n, constraints: notNull(), defaultValue(2)))
        let second = try Storage(filename: directory.path("db"), grown)
        var traced: [String] = []
        second.connection.trace { traced.append($0) }
        #expect(try second.syncSchema(preserve: true)["grow"] == .newColumnsAdded)
        second.connection.trace(nil)
        #expect(
            traced.filter { $0.hasPrefix("ALTER") } == [
                #"ALTER TABLE "grow" ADD COLUMN "label" TEXT"#,
                #"ALTER TABLE "grow" ADD COLUMN "n" REAL NOT NULL DEFAULT 2"#
            ])
    }
}
