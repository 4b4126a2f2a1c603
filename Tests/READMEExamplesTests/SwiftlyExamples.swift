// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The README's example for `import StrataSwiftly`: SQLite.swiftly's described tables, which
// `import Strata` alone does not carry.
import StrataSwiftly

extension READMEExamples {
    func swiftlyExample7() throws {
        // README:begin 6
        let id = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
        let name = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)
        let contacts = TableDescription(name: "contact", columns: [id, name])
        let db = try Connection(toNewDatabaseAt: "contacts.sqlite")
        try db.createTable(describedBy: contacts)
        try db.prepareInsertIntoTable(describedBy: contacts).insert([id.name: 1, name.name: "Alice"])
        for row in try db.readAllRows(fromTable: contacts) {
            for (column, value) in row { print("\(column.name): \(value ?? "NULL")") }
        }
        // id: 1
        // name: Alice
        // README:end
    }
}
