import Foundation
import Testing
import Strata

// SQLite.swiftly's README reference example and subclassing section, with `try` added where its
// calls could only crash, compiled in Swift 5 mode.

final class MyDatabaseConnection: Connection, @unchecked Sendable {
    func prepareContactInsert() throws -> ContactInsertStatement {
        return try ContactInsertStatement(connection: self)
    }

    func readAllContacts() throws -> [ContactTableDescription.Row] {
        let table = MySchema.contactTableDescription
        return try readAllRows(fromTable: table).map { columnValues in
            return ContactTableDescription.Row(
                id: columnValues[table.idColumn.name] as! Int,
                name: columnValues[table.nameColumn.name] as! String
            )
        }
    }
}

@Suite struct SwiftlyReadmeTests {
    @Test func referenceExample() throws {
        let directory = try TestDirectory()
        let idColumnDescription = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
        let nameColumnDescription = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)
        let contactTableDescription = TableDescription(name: "contact", columns: [idColumnDescription, nameColumnDescription])

        let db = try Connection(toNewDatabaseAt: directory.path("db.sqlite"))
        try db.createTable(describedBy: contactTableDescription)
        let insertStatement = try db.prepareInsertIntoTable(describedBy: contactTableDescription)
        try insertStatement.insert([
            idColumnDescription.name: 1,
            nameColumnDescription.name: "Alice"
        ])
        try insertStatement.insert([
            idColumnDescription.name: 2,
            nameColumnDescription.name: "Bob"
        ])

        // The README spells it `readlAllRows`.
        let rows = try db.readlAllRows(fromTable: contactTableDescription)
        var lines: [String] = []
        for row in rows {
            for (column, value) in row {
                lines.append("\(column.name): \(String(describing: value))")
            }
        }
        #expect(lines == ["id: Optional(1)", "name: Optional(\"Alice\")", "id: Optional(2)", "name: Optional(\"Bob\")"])
        #expect(try db.readAllRows(fromTable: contactTableDescription).count == 2)
    }

    @Test func subclassedConnectionAndInsertStatement() throws {
        let directory = try TestDirectory()
        let db = try MyDatabaseConnection(toNewDatabaseAt: directory.path("contacts.sqlite"))
        try db.createTable(describedBy: MySchema.contactTableDescription)
        let insert = try db.prepareContactInsert()
        try insert.insert(id: 1, name: "Alice")
        try insert.insert(id: 2, name: "Bob")
        let contacts = try db.readAllContacts()
        #expect(contacts.map { $0.name } == ["Alice", "Bob"])
        let reopened = try MyDatabaseConnection(toExistingDatabaseAt: URL(fileURLWithPath: directory.path("contacts.sqlite")))
        #expect(try reopened.readAllContacts().count == 2)
        #expect(throws: (any Error).self) { try MyDatabaseConnection(toExistingDatabaseAt: directory.path("missing.sqlite")) }
    }
}
