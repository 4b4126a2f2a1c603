import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

// SQLite.swiftly's documented API in Swift 5 mode (its README's types are shared with
// SwiftlyReadmeTests).

final class ContactTableDescription: TableDescription, @unchecked Sendable {
    let idColumn = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
    let nameColumn = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)

    init() {
        super.init(name: "colors", columns: [idColumn, nameColumn])
    }

    struct Row {
        let id: Int
        let name: String
    }
}

enum MySchema {
    static let contactTableDescription = ContactTableDescription()
}

final class ContactInsertStatement: InsertStatement {
    init(connection: Connection) throws {
        try super.init(insertingIntoTable: MySchema.contactTableDescription, on: connection)
    }

    func insert(id: Int, name: String) throws {
        let table = MySchema.contactTableDescription
        try insert([table.idColumn.name: id, table.nameColumn.name: name])
    }
}

@Suite struct SQiftProbeSwiftlyTests {
    @Test func sqliteSwiftly() throws {
        let directory = try TestDirectory()
        let path = directory.path("c.db")
        let db = try Connection(toNewDatabaseAt: path)
        #expect(throws: (any Error).self) { try Connection(toNewDatabaseAt: path) }
        let table = MySchema.contactTableDescription
        try db.createTable(describedBy: table)
        let insert = try ContactInsertStatement(connection: db)
        try insert.insert(id: 1, name: "Alice")
        let generic = try db.prepareInsertIntoTable(describedBy: table)
        try generic.insert([table.idColumn.name: 2, table.nameColumn.name: "Bob"])
        #expect(throws: (any Error).self) { try generic.insert([table.idColumn.name: 3]) }
        let rows = try db.readAllRows(fromTable: table)
        #expect(rows.count == 2)
        for row in rows {
            for (column, value) in row { _ = (column.name, value) }
        }
        let read = rows.map { ContactTableDescription.Row(id: $0[table.idColumn.name] as! Int, name: $0[table.nameColumn.name] as! String) }
        #expect(read.map { $0.name } == ["Alice", "Bob"])
        #expect(rows[0][table.idColumn] as? Int == 1)
        #expect(table.idColumn.sqlRepresentation == "\"id\" INT(11) NOT NULL")
        #expect(ColumnDescription(name: "b", type: .bool, nullable: true).sqlRepresentation == "\"b\" BOOL NULL")
        #expect(ColumnType.char(size: 255).sqlRepresentation == "CHAR(255)")
        #expect(table.column(withName: "id") == table.idColumn)
        #expect(table.hasColumn(withName: "name"))
        let existing = try Connection(toExistingDatabaseAt: URL(fileURLWithPath: path))
        _ = existing
    }
}
