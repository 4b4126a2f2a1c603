#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

@Suite struct DumpCommandTests {
    @Test func dumpPrintsSQLThatRestoresTheSameRows() throws {
        let sandbox = try Sandbox()
        let source = try sandbox.makeCarsDatabase()
        let connection = try Connection(storageLocation: .onDisk(source))
        try connection.execute("CREATE INDEX cars_by_price ON cars(price); CREATE TABLE \"odd \"\"name\"\"\"(x); INSERT INTO \"odd \"\"name\"\"\" VALUES (1.5)")
        let result = try sandbox.strata("dump", "cars.db")
        #expect(result.status == 0, "\(result.stderr)")
        var expected = ""
        try connection.dump(to: &expected)
        #expect(result.stdout == expected)
        #expect(result.stdout.contains("INSERT INTO \"cars\"(\"id\",\"name\",\"price\",\"photo\") VALUES(1,'Audi',52642.0,X'00FF10');"))
        #expect(result.stdout.contains("INSERT INTO \"cars\"(\"id\",\"name\",\"price\",\"photo\") VALUES(2,'Mercedes, \"E\"',57127.5,NULL);"))

        // Loaded into an empty database, the text gives the same rows.
        let restored = try Connection(storageLocation: .onDisk(sandbox.path("restored.db")))
        try restored.restore(fromDump: result.stdout)
        let names: [String] = try restored.query("SELECT name FROM cars ORDER BY id")
        #expect(names == ["Audi", "Mercedes, \"E\"", "Skoda"])
        let odd: Double? = try restored.query("SELECT x FROM \"odd \"\"name\"\"\"")
        #expect(odd == 1.5)
    }

    @Test func tablesOptionAndOutputFile() throws {
        let sandbox = try Sandbox()
        let source = try sandbox.makeCarsDatabase()
        let connection = try Connection(storageLocation: .onDisk(source))
        try connection.execute("CREATE TABLE a(x); CREATE TABLE b(y); INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)")
        let result = try sandbox.strata("dump", "cars.db", "--tables", "a,b")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("CREATE TABLE a(x);") && result.stdout.contains("CREATE TABLE b(y);"))
        #expect(!result.stdout.contains("cars"))
        let repeated = try sandbox.strata("dump", "cars.db", "--tables", "a", "--tables", "b")
        #expect(repeated.stdout == result.stdout)

        let toFile = try sandbox.strata("dump", "cars.db", "-o", "dump.sql")
        #expect(toFile.status == 0 && toFile.stdout.isEmpty, "\(toFile.stderr)")
        var expected = ""
        try connection.dump(to: &expected)
        #expect(try String(contentsOfFile: sandbox.path("dump.sql"), encoding: .utf8) == expected)
    }

    @Test func unknownTablesAndMissingFilesFailInOneLine() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let unknown = try sandbox.strata("dump", "cars.db", "--tables", "nope")
        #expect(unknown.status != 0)
        #expect(unknown.errorLines == ["strata: no such table: nope"])
        #expect(unknown.stdout.isEmpty)
        let missing = try sandbox.strata("dump", "missing.db")
        #expect(missing.status != 0)
        #expect(missing.errorLines.count == 1)
    }
}
#endif
