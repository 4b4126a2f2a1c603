import Testing
import Strata
import StrataSqueal

// A file importing both Strata and StrataSqueal still reads Squeal's names as Squeal's.
@Test func squealNamesWinWhenStrataIsImportedTooInSwift5() throws {
    let db = Database()
    try db.createTable("t", definitions: ["a"])
    let id: RowId = try db.insertInto("t", values: ["a": 1])
    #expect(id == 1)
    let type: ColumnType = .Integer
    let table = Table(name: "u", columns: [Column(name: "b", type: type)])
    #expect(table.createSQL == #"CREATE TABLE "u" ("b" INTEGER)"#)
}
