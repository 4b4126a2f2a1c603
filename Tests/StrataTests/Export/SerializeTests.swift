import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

@Suite struct SerializeTests {
    private func fillCars(_ connection: Connection, rows: Int = 500) throws {
        try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, photo BLOB)")
        try connection.transaction {
            for index in 0..<rows {
                try connection.run("INSERT INTO cars(name, price, photo) VALUES(?, ?, ?)", "car \(index)", index * 100, Data(count: index % 50))
            }
        }
    }

    private func checksum(_ connection: Connection, schema: String = "main") throws -> String {
        let rows: [String] = try connection.query(
            "SELECT id || ':' || name || ':' || price || ':' || hex(photo) FROM \"\(schema)\".cars ORDER BY id"
        )
        return rows.joined(separator: "|")
    }

    @Test func aFileRoundTripsThroughData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cars.db")
        let file = try Connection(storageLocation: .onDisk(path))
        try fillCars(file)
        let bytes = try file.serialize()
        // The serialized bytes are the file's bytes.
        #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: path))))
        let copy = try Connection(deserializing: bytes)
        #expect(try checksum(copy) == (try checksum(file)))
        #expect(copy.fileName.isEmpty || !copy.fileName.hasSuffix("cars.db"))
        // Writable: changes stay in the copy.
        try copy.run("UPDATE cars SET price = 0")
        try copy.run("INSERT INTO cars(name, price) VALUES('new', 1)")
        let fileSum: Int? = try file.query("SELECT sum(price) FROM cars")
        #expect(fileSum == 500 * 499 / 2 * 100)
        // And back to a file: VACUUM INTO and the backup API.
        let vacuumed = directory.path("vacuumed.db")
        try copy.run("VACUUM INTO ?", vacuumed)
        let reopened = try Connection(storageLocation: .onDisk(vacuumed))
        #expect(try checksum(reopened) == (try checksum(copy)))
        let copyCount: Int? = try reopened.query("SELECT count(*) FROM cars")
        #expect(copyCount == 501)
        // A serialized in-memory database deserializes again.
        #expect(try checksum(Connection(deserializing: copy.serialize())) == (try checksum(copy)))
    }

    @Test func readOnlyAndSizeLimited() throws {
        let source = try Connection()
        try fillCars(source, rows: 50)
        let bytes = try source.serialize()
        let readOnly = try Connection(deserializing: bytes, readOnly: true)
        #expect(sqliteError { try readOnly.run("DELETE FROM cars") }?.resultCode.primary == .readOnly)
        #expect(try checksum(readOnly) == (try checksum(source)))

        let limited = try Connection(deserializing: bytes, sizeLimit: bytes.count + 8192)
        let error = sqliteError {
            for _ in 0..<100 { try limited.run("INSERT INTO cars(name, photo) VALUES('big', ?)", Data(count: 4000)) }
        }
        #expect(error?.resultCode == .full)
        #expect(error?.message.contains("full") == true)
        // What fit is still there and readable.
        let count: Int? = try limited.query("SELECT count(*) FROM cars")
        #expect((count ?? 0) >= 50)
    }

    @Test func anAttachedSchemaSerializesAndDeserializes() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection()
        try connection.attachDatabase(from: .onDisk(directory.path("other.db")), withName: "other")
        try connection.execute("CREATE TABLE other.cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, photo BLOB)")
        try connection.run("INSERT INTO other.cars(name, price) VALUES('a', 1), ('b', 2)")
        let bytes = try connection.serialize(schema: "other")
        #expect(try connection.serialize().count < bytes.count)
        // Into an attached in-memory schema of another connection.
        let target = try makeConnection(executing: "ATTACH ':memory:' AS snapshot")
        try target.deserialize(bytes, schema: "snapshot", readOnly: true)
        #expect(try checksum(target, schema: "snapshot") == (try checksum(connection, schema: "other")))
        #expect(sqliteError { _ = try connection.serialize(schema: "missing") }?.message.contains("missing") == true)
        #expect(sqliteError { try target.deserialize(bytes, schema: "missing") } != nil)
    }

    @Test func bytesThatAreNotADatabaseThrow() throws {
        let error = sqliteError { _ = try Connection(deserializing: Data(repeating: 7, count: 4096)) }
        #expect(error?.resultCode.primary == .notADatabase)
        // An empty database serializes to nothing (SQLite 3.40) or to its one empty page (3.54,
        // whose page_count of a new in-memory database is 1); either deserializes to an empty
        // database, and nothing deserializes to an empty database.
        let emptyImage = try Connection().serialize()
        #expect(emptyImage.isEmpty || emptyImage.count == 4096)
        if !emptyImage.isEmpty {
            #expect(try Connection(deserializing: emptyImage).query("SELECT count(*) FROM sqlite_master") as Int? == 0)
        }
        let empty = try Connection(deserializing: Data())
        try empty.execute("CREATE TABLE t(x)")
        #expect(try empty.serialize().count > 0)
    }
}
