import Foundation
import Testing
import Strata
@testable import StrataCore
import StrataSwiftly

/// SQLite.swiftly's rows and descriptions, at their edges.
@Suite struct TableRowTests {
    let idColumn = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
    let nameColumn = ColumnDescription(name: "name", type: .char(size: 255), nullable: true)

    @Test func nullableColumnEndsInNull() {
        #expect(ColumnDescription(name: "col1", type: .bool, nullable: true).sqlRepresentation == "\"col1\" BOOL NULL")
        #expect(ColumnDescription(name: "col1", type: .bool, nullable: false).sqlRepresentation == "\"col1\" BOOL NOT NULL")
    }

    @Test func mismatchedLengthsDoNotTrap() {
        let short = TableRow(columns: [idColumn, nameColumn], values: [1])
        #expect(short["id"] as? Int == 1)
        #expect(short["name"] == nil)
        #expect(short[nameColumn] == nil)
        #expect(Array(short).count == 2)
        let long = TableRow(columns: [idColumn], values: [1, "extra"])
        #expect(Array(long).map { $0.value as? Int } == [1])
        let empty = TableRow(columns: [idColumn], values: [])
        #expect(empty[idColumn] == nil)
    }

    @Test func readAllRowsOfAWithoutRowIDTable() throws {
        let connection = try Connection()
        let table = TableDescription(name: "codes", columns: [idColumn, nameColumn])
        try connection.execute("CREATE TABLE codes(id INT(11) NOT NULL PRIMARY KEY, name CHAR(255) NULL) WITHOUT ROWID")
        try connection.run("INSERT INTO codes VALUES(?, ?)", 2, "b")
        try connection.run("INSERT INTO codes VALUES(?, ?)", 1, "a")
        let rows = try connection.readAllRows(fromTable: table)
        #expect(rows.map { $0["id"] as? Int } == [1, 2])
        #expect(rows.map { $0["name"] as? String } == ["a", "b"])
    }

    @Test func readAllRowsWhenAColumnIsNamedRowID() throws {
        let connection = try Connection()
        let rowidColumn = ColumnDescription(name: "rowid", type: .int(size: 11), nullable: false)
        let table = TableDescription(name: "t", columns: [rowidColumn, nameColumn])
        try connection.createTable(describedBy: table)
        let insert = try connection.prepareInsertIntoTable(describedBy: table)
        try insert.insert(["rowid": 30, "name": "first"])
        try insert.insert(["rowid": 10, "name": "second"])
        try insert.insert(["rowid": 20, "name": nil])
        let rows = try connection.readAllRows(fromTable: table)
        // Insertion (rowid) order, not the order of the column named rowid.
        #expect(rows.map { $0["name"] as? String } == ["first", "second", nil])
        #expect(rows.map { $0["rowid"] as? Int } == [30, 10, 20])

        // Columns named after all three aliases: rows still come back.
        let hidden = TableDescription(
            name: "h",
            columns: [
                ColumnDescription(name: "rowid", type: .int(size: 4), nullable: true),
                ColumnDescription(name: "oid", type: .int(size: 4), nullable: true),
                ColumnDescription(name: "_rowid_", type: .int(size: 4), nullable: true)
            ])
        try connection.createTable(describedBy: hidden)
        try connection.run("INSERT INTO h VALUES(?, ?, ?)", 1, 2, 3)
        #expect(try connection.readAllRows(fromTable: hidden).count == 1)
    }
}
