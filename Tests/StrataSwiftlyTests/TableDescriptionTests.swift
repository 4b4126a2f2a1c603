import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
import StrataSwiftly

// SQLite.swiftly's README, subclassing example.
// The README writes `class ContactTableDescription: TableDescription`, which compiles with a
// warning asking to restate the inherited `@unchecked Sendable`; restated here.
class ContactTableDescription: TableDescription, @unchecked Sendable {
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

struct MyDatabaseSchema {
    static let contactTableDescription = ContactTableDescription()
}

class ContactInsertStatement: InsertStatement {
    init(connection: Connection) throws {
        try super.init(insertingIntoTable: MyDatabaseSchema.contactTableDescription, on: connection)
    }

    func insert(id: Int, name: String) throws {
        let table = MyDatabaseSchema.contactTableDescription
        try insert([
            table.idColumn.name: id,
            table.nameColumn.name: name
        ])
    }
}

class MyDatabaseConnection: Connection {
    func prepareContactInsert() throws -> ContactInsertStatement {
        try ContactInsertStatement(connection: self)
    }

    func readAllContacts() throws -> [ContactTableDescription.Row] {
        let table = MyDatabaseSchema.contactTableDescription
        return try readAllRows(fromTable: table).compactMap { columnValues in
            guard let id = columnValues[table.idColumn.name] as? Int,
                let name = columnValues[table.nameColumn.name] as? String
            else { return nil }
            return ContactTableDescription.Row(id: id, name: name)
        }
    }
}

@Suite struct TableDescriptionTests {
    @Test func readmeReferenceExample() throws {
        let directory = try TemporaryDirectory()
        let idColumnDescription = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
        let nameColumnDescription = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)
        let contactTableDescription = TableDescription(name: "contact", columns: [idColumnDescription, nameColumnDescription])
        let db = try Connection(toNewDatabaseAt: directory.path("db.sqlite"))
        try db.createTable(describedBy: contactTableDescription)
        let insertStatement = try db.prepareInsertIntoTable(describedBy: contactTableDescription)
        try insertStatement.insert([idColumnDescription.name: 1, nameColumnDescription.name: "Alice"])
        try insertStatement.insert([idColumnDescription.name: 2, nameColumnDescription.name: "Bob"])
        let rows = try db.readAllRows(fromTable: contactTableDescription)
        var printed: [String] = []
        for row in rows {
            for (column, value) in row {
                printed.append("\(column.name): \(value.map { "\($0)" } ?? "nil")")
            }
        }
        #expect(printed == ["id: 1", "name: Alice", "id: 2", "name: Bob"])
        #expect(rows[0][idColumnDescription] as? Int == 1)
        #expect(rows[1]["name"] as? String == "Bob")
        #expect(rows[1]["missing"] == nil)
    }

    @Test func readmeSubclassingExample() throws {
        let directory = try TemporaryDirectory()
        let db = try MyDatabaseConnection(toNewDatabaseAt: directory.url.appendingPathComponent("db.sqlite"))
        try db.createTable(describedBy: MyDatabaseSchema.contactTableDescription)
        let insert = try db.prepareContactInsert()
        try insert.insert(id: 1, name: "Alice")
        try insert.insert(id: 2, name: "Bob")
        let contacts = try db.readAllContacts()
        #expect(contacts.map(\.name) == ["Alice", "Bob"])
        #expect(contacts.map(\.id) == [1, 2])
    }

    @Test func sqlRepresentations() {
        #expect(ColumnType.int(size: 11).sqlRepresentation == "INT(11)")
        #expect(ColumnType.char(size: 255).sqlRepresentation == "CHAR(255)")
        #expect(ColumnType.bool.sqlRepresentation == "BOOL")
        #expect(ColumnDescription(name: "col1", type: .char(size: 11), nullable: false).sqlRepresentation == "\"col1\" CHAR(11) NOT NULL")
        #expect(ColumnDescription(name: "we\"ird", type: .bool, nullable: true).sqlRepresentation == "\"we\"\"ird\" BOOL NULL")
        let table = TableDescription(
            name: "t",
            columns: [
                ColumnDescription(name: "b", type: .bool, nullable: true),
                ColumnDescription(name: "a", type: .int(size: 4), nullable: false)
            ])
        #expect(table.columns.map(\.name) == ["b", "a"])
        #expect(table.column(withName: "a")?.type == .int(size: 4))
        #expect(table.hasColumn(withName: "b") && !table.hasColumn(withName: "c"))
        #expect(table.createTableSQL == "CREATE TABLE \"t\"(\"b\" BOOL NULL, \"a\" INT(4) NOT NULL)")
        #expect(Set([ColumnDescription(name: "a", type: .bool, nullable: true), ColumnDescription(name: "a", type: .bool, nullable: true)]).count == 1)
    }

    @Test func openingRulesForNewAndExistingFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        #expect(throws: TableDescriptionError.databaseNotFound(path: path)) { _ = try Connection(toExistingDatabaseAt: path) }
        _ = try Connection(toNewDatabaseAt: path)
        #expect(throws: TableDescriptionError.databaseAlreadyExists(path: path)) { _ = try Connection(toNewDatabaseAt: path) }
        _ = try Connection(toExistingDatabaseAt: path)
        _ = try Connection(toExistingDatabaseAt: URL(fileURLWithPath: path))
    }

    @Test func badInsertsThrowAndInsertNothing() throws {
        let db = try Connection()
        let table = TableDescription(
            name: "things",
            columns: [
                ColumnDescription(name: "id", type: .int(size: 11), nullable: false),
                ColumnDescription(name: "label", type: .char(size: 20), nullable: true),
                ColumnDescription(name: "done", type: .bool, nullable: false)
            ])
        try db.createTable(describedBy: table)
        let insert = try db.prepareInsertIntoTable(describedBy: table)
        #expect(throws: TableDescriptionError.missingValue(column: "done", table: "things")) {
            try insert.insert(["id": 1, "label": "x"])
        }
        #expect(throws: TableDescriptionError.unknownColumn(column: "color", table: "things")) {
            try insert.insert(["id": 1, "label": "x", "done": true, "color": "red"])
        }
        #expect(throws: TableDescriptionError.self) { try insert.insert(["id": "one", "label": "x", "done": true]) }
        #expect(throws: TableDescriptionError.self) { try insert.insert(["id": 1, "label": 5, "done": true]) }
        #expect(throws: TableDescriptionError.self) { try insert.insert(["id": 1, "label": "x", "done": 1]) }
        let error = sqliteError { try insert.insert(["id": 1, "label": "x", "done": nil]) }
        #expect(error?.message == "NOT NULL constraint failed: things.done")
        #expect(try db.query("SELECT count(*) FROM things") == 0)
        let noLabel: String? = nil
        try insert.insert(["id": 7, "label": noLabel, "done": false])
        try insert.insert(["id": 8, "label": "it's", "done": true])
        let rows = try db.readAllRows(fromTable: table)
        #expect(rows.count == 2)
        #expect(rows[0]["label"] == nil)
        #expect(rows[0]["done"] as? Bool == false)
        #expect(rows[1]["label"] as? String == "it's")
        #expect(rows[1]["done"] as? Bool == true)
    }
}
