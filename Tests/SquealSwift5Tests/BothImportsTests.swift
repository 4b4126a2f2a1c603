import Testing
import Strata
import StrataSqueal

// A file importing both Strata and StrataSqueal: in expressions Squeal's names win; in type
// position `Database` is ambiguous (the compiler's type lookup does not apply
// the re-export shadowing), so such a file qualifies it. Squeal code imports only StrataSqueal.
@Test func squealNamesWithStrataImportedTooInSwift5() throws {
    let db = Database()
    let squealDB: StrataSqueal.Database = db
    try squealDB.createTable("t", definitions: ["a"])
    let id: RowId = try db.insertInto("t", values: ["a": 1])
    #expect(id == 1)
    let type: StrataSqueal.ColumnType = .Integer
    let table = Table(name: "u", columns: [Column(name: "b", type: type)])
    #expect(table.createSQL == #"CREATE TABLE "u" ("b" INTEGER)"#)
}
