import Foundation
import StrataSQift
import Strata
import StrataRecords
import Testing

/// A record whose table and column names hold a quote before a combining mark, `\r\n` and a
/// backslash: the macro's expansion compiles, and the names reach SQLite exactly.
@Record(table: "n\"\u{301}ode")
struct HardNamedNode: Equatable {
    @PrimaryKey @Column("i\"\u{301}d") var id: Int64?
    @Column("\"\u{301}") var name: String
    @Column("line\r\nbreak\\") var note: String?
}

@Suite struct HardNamedRecordTests {
    @Test func namesWithAQuoteBeforeACombiningMarkReachSQLiteExactly() throws {
        #expect(Array(HardNamedNode.tableName.unicodeScalars) == Array("n\"\u{301}ode".unicodeScalars))
        let db = try Connection(storageLocation: .inMemory)
        try HardNamedNode.createTable(db)
        let tables: [String] = try db.query("SELECT name FROM sqlite_schema WHERE type = 'table'")
        #expect(tables.map { Array($0.unicodeScalars) } == [Array("n\"\u{301}ode".unicodeScalars)])
        let columns: [String] = try db.query("SELECT name FROM pragma_table_info(?)", HardNamedNode.tableName)
        #expect(columns.map { Array($0.unicodeScalars) } == ["i\"\u{301}d", "\"\u{301}", "line\r\nbreak\\"].map { Array($0.unicodeScalars) })
        var node = HardNamedNode(id: nil, name: "x\"\u{301}", note: "a\r\nb")
        try node.insert(db)
        #expect(try HardNamedNode.fetchAll(db) == [HardNamedNode(id: 1, name: "x\"\u{301}", note: "a\r\nb")])
        node = try #require(try HardNamedNode.fetchOne(db, id: 1))
        #expect(node.note == "a\r\nb")
    }
}
