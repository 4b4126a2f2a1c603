import StrataSwiftly
import StrataTestSupport
import Testing

// SQLite.swiftly's README, its reference example and its subclassing section, as the README
// writes them in Swift 5 with `try` added where its calls could only crash: code written for
// SQLite.swiftly ports by changing `import SQLite_Swiftly` to `import StrataSwiftly`.

// MARK: - Subclassing, word for word (with `try`)

// The README writes `class ContactTableDescription: TableDescription`, which compiles, with a
// warning asking to restate the `@unchecked Sendable` that TableDescription declares; restated here.
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
        return try ContactInsertStatement(connection: self)
    }

    func readAllContacts() throws -> [ContactTableDescription.Row] {
        let table = MyDatabaseSchema.contactTableDescription
        return try readAllRows(fromTable: table).map { columnValues in
            return ContactTableDescription.Row(
                id: columnValues[table.idColumn.name] as! Int,
                name: columnValues[table.nameColumn.name] as! String,
            )
        }
    }
}

@Suite struct SwiftlyReadmeTests {
    @Test func referenceExample() throws {
        let directory = try TemporaryDirectory()
        // The README prints each value; the lines are kept to check them.
        var printed: [String] = []
        func print(_ line: String) { printed.append(line) }

        // README, word for word but for `try` and the path:
        // First, declare the table
        let idColumnDescription = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
        let nameColumnDescription = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)
        let contactTableDescription = TableDescription(name: "contact", columns: [idColumnDescription, nameColumnDescription])

        // Open a connection to the database
        let db = try Connection(toNewDatabaseAt: directory.path("db.sqlite"))

        // Create the table
        try db.createTable(describedBy: contactTableDescription)

        // Prepare a statement that inserts data into the table
        let insertStatement = try db.prepareInsertIntoTable(describedBy: contactTableDescription)

        // Insert data into the table
        try insertStatement.insert([
            idColumnDescription.name: 1,
            nameColumnDescription.name: "Alice"
        ])
        try insertStatement.insert([
            idColumnDescription.name: 2,
            nameColumnDescription.name: "Bob"
        ])

        // Read data
        let rows = try db.readlAllRows(fromTable: contactTableDescription)
        for row in rows {
            for (column, value) in row {
                print("\(column.name): \(String(describing: value))")
            }
        }

        // The README's comments show "id: 1"; `value` is an `Any?`, so `String(describing:)`
        // spells the optional, as it did in SQLite.swiftly.
        #expect(printed == ["id: Optional(1)", "name: Optional(\"Alice\")", "id: Optional(2)", "name: Optional(\"Bob\")"])

        // The rows are in the database file: a second connection reads them.
        let reopened = try Connection(toExistingDatabaseAt: directory.path("db.sqlite"))
        let names: [String] = try reopened.query("SELECT name FROM contact ORDER BY id")
        #expect(names == ["Alice", "Bob"])
        #expect(
            try reopened.query("SELECT sql FROM sqlite_master WHERE name = 'contact'") as String?
                == #"CREATE TABLE "contact"("id" INT(11) NOT NULL, "name" CHAR(255) NOT NULL)"#)
    }

    @Test func subclassedConnectionAndInsertStatement() throws {
        let directory = try TemporaryDirectory()
        let db = try MyDatabaseConnection(toNewDatabaseAt: directory.path("contacts.sqlite"))
        try db.createTable(describedBy: MyDatabaseSchema.contactTableDescription)
        let insert = try db.prepareContactInsert()
        try insert.insert(id: 1, name: "Alice")
        try insert.insert(id: 2, name: "Bob")

        let contacts = try db.readAllContacts()
        #expect(contacts.map { $0.id } == [1, 2])
        #expect(contacts.map { $0.name } == ["Alice", "Bob"])
        // The README's description names its table "colors".
        #expect(try db.query("SELECT count(*) FROM colors") as Int? == 2)

        let reopened = try MyDatabaseConnection(toExistingDatabaseAt: URL(fileURLWithPath: directory.path("contacts.sqlite")))
        #expect(try reopened.readAllContacts().map { $0.name } == ["Alice", "Bob"])
        #expect(throws: TableDescriptionError.databaseNotFound(path: directory.path("missing.sqlite"))) {
            try MyDatabaseConnection(toExistingDatabaseAt: directory.path("missing.sqlite"))
        }
        #expect(throws: TableDescriptionError.databaseAlreadyExists(path: directory.path("contacts.sqlite"))) {
            try MyDatabaseConnection(toNewDatabaseAt: directory.path("contacts.sqlite"))
        }
    }
}
