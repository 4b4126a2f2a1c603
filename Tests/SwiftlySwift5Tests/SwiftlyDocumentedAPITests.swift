import StrataSwiftly
import StrataSQift
import StrataTestSupport
import Testing

// The rest of SQLite.swiftly's documented API in Swift 5 mode (the README's subclassing types
// are in ReadmeTests): the generated SQL, the lookups on a description, and refused input.

@Suite struct SwiftlyDocumentedAPITests {
    @Test func describedTableRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("c.db")
        let db = try Connection(toNewDatabaseAt: path)
        let table = MyDatabaseSchema.contactTableDescription
        try db.createTable(describedBy: table)
        let insert = try ContactInsertStatement(connection: db)
        try insert.insert(id: 1, name: "Alice")
        let generic = try db.prepareInsertIntoTable(describedBy: table)
        try generic.insert([table.idColumn.name: 2, table.nameColumn.name: "Bob"])
        // A missing column is refused before anything is inserted.
        #expect(throws: TableDescriptionError.missingValue(column: "name", table: "colors")) {
            try generic.insert([table.idColumn.name: 3])
        }
        #expect(throws: TableDescriptionError.unknownColumn(column: "color", table: "colors")) {
            try generic.insert([table.idColumn.name: 3, table.nameColumn.name: "Cy", "color": "red"])
        }
        let rows = try db.readAllRows(fromTable: table)
        #expect(rows.count == 2)
        #expect(rows.map { $0[table.nameColumn] as? String } == ["Alice", "Bob"])
        #expect(rows[0][table.idColumn] as? Int == 1)
        #expect(rows[1]["id"] as? Int == 2)
        #expect(rows[0].map { $0.column.name } == ["id", "name"])
    }

    @Test func generatedSQLQuotesIdentifiers() throws {
        let table = MyDatabaseSchema.contactTableDescription
        #expect(table.idColumn.sqlRepresentation == "\"id\" INT(11) NOT NULL")
        #expect(ColumnDescription(name: "b", type: .bool, nullable: true).sqlRepresentation == "\"b\" BOOL NULL")
        #expect(ColumnType.char(size: 255).sqlRepresentation == "CHAR(255)")
        #expect(table.column(withName: "id") == table.idColumn)
        #expect(table.hasColumn(withName: "name"))
        #expect(!table.hasColumn(withName: "nope"))

        // A name with a quote in it is a name, not SQL.
        let odd = TableDescription(name: "we\"ird", columns: [ColumnDescription(name: "a b", type: .bool, nullable: false)])
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable(describedBy: odd)
        try db.prepareInsertIntoTable(describedBy: odd).insert(["a b": true])
        #expect(try db.readAllRows(fromTable: odd).map { $0["a b"] as? Bool } == [true])
    }
}
