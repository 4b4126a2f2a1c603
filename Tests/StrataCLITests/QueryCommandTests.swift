#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

@Suite struct QueryCommandTests {
    @Test func helpListsEveryCommand() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.strata("--help")
        #expect(result.status == 0)
        for command in ["tour", "query", "schema", "migrate", "backup", "check", "checkpoint", "vacuum"] {
            #expect(result.stdout.contains("  \(command)"), "missing \(command)")
        }
        let query = try sandbox.strata("query", "--help")
        #expect(query.status == 0)
        #expect(query.stdout.contains("USAGE: strata query <database> <sql> [--param <value> ...] [--format <format>]"))
    }

    @Test func tableIsAlignedWithAHeader() throws {
        let result = try queryCars("SELECT id, name, price, photo FROM cars ORDER BY id")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                id  name           price    photo
                --  -------------  -------  ---------
                 1  Audi           52642.0  x'00FF10'
                 2  Mercedes, "E"  57127.5  NULL
                 3  Skoda          NULL     NULL

                """)
        #expect(result.stderr.isEmpty)
    }

    @Test func csvFollowsRFC4180() throws {
        let result = try queryCars("SELECT id, name, price, photo, 'two\nlines' AS note FROM cars ORDER BY id", "--format", "csv")
        #expect(result.status == 0)
        #expect(
            result.stdout
                == "id,name,price,photo,note\r\n1,Audi,52642.0,AP8Q,\"two\nlines\"\r\n2,\"Mercedes, \"\"E\"\"\",57127.5,,\"two\nlines\"\r\n3,Skoda,,,\"two\nlines\"\r\n"
        )
    }

    /// On Linux a `"` followed by a combining mark, an enclosing mark or a variation selector is
    /// one Character: a Character-based writer left it undoubled and split the field.
    @Test func csvDoublesAQuoteWhateverFollowsIt() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        for mark in ["\u{301}", "\u{20DD}", "\u{FE0F}"] {
            let value = "a\"\(mark),b"
            let result = try sandbox.strata("query", "cars.db", "SELECT 'a\"\(mark),b' AS v", "--format", "csv")
            #expect(result.status == 0)
            let expected = "v\r\n\"a\"\"\(mark),b\"\r\n"
            #expect(Array(result.stdout.utf8) == Array(expected.utf8), "\(value.debugDescription) came out as \(result.stdout.debugDescription)")
        }
    }

    @Test func jsonTypesEachStorageClass() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let result = try sandbox.strata("query", "cars.db", "SELECT id, name, price, photo, 1e999 AS big FROM cars ORDER BY id", "--format", "json")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                [
                  {"id": 1, "name": "Audi", "price": 52642.0, "photo": "AP8Q", "big": 9e999},
                  {"id": 2, "name": "Mercedes, \\"E\\"", "price": 57127.5, "photo": null, "big": 9e999},
                  {"id": 3, "name": "Skoda", "price": null, "photo": null, "big": 9e999}
                ]

                """)
        // Foundation's parser agrees it is JSON, with the types above.
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.replacingOccurrences(of: "9e999", with: "0").utf8)) as? [[String: Any]]
        #expect(parsed?.count == 3)
        #expect(parsed?[0]["id"] as? Int == 1)
        #expect(parsed?[1]["photo"] is NSNull)
        #expect(try sandbox.strata("query", "cars.db", "SELECT * FROM cars WHERE 0", "--format", "json").stdout == "[]\n")
    }

    @Test func parametersBindAsIntegerRealNullOrText() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let result = try sandbox.strata(
            "query", "cars.db", "SELECT typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), ?",
            "--param", "42", "--param", "-2.5e3", "--param", "null", "--param", "Audi",
            "--param", "0x10", "--param", "nan", "--param", "99999999999999999999", "--param", "x'00'",
            "--format", "csv")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\r\ninteger,real,null,text,text,text,real,x'00'\r\n"))
        let mismatch = try sandbox.strata("query", "cars.db", "SELECT ?, ?", "--param", "1")
        #expect(mismatch.status != 0)
        #expect(mismatch.errorLines == ["strata: the SQL has 2 parameters but 1 --param values were given"])
    }

    @Test func severalStatementsRunInOrderAndTheLastOnePrints() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let sql = """
            CREATE TABLE log(message TEXT); -- a comment; with a semicolon
            CREATE TRIGGER cars_insert AFTER INSERT ON cars BEGIN
                INSERT INTO log VALUES('added; ' || new.name);
            END;
            INSERT INTO cars(name) VALUES(?);
            /* another; comment */
            SELECT message FROM log WHERE message LIKE ?;
            """
        let result = try sandbox.strata("query", "cars.db", sql, "--param", "Volvo 'V70'", "--param", "added%")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "message\n------------------\nadded; Volvo 'V70'\n")
        #expect(try integer("SELECT count(*) FROM cars", in: sandbox.path("cars.db")) == 4)
    }

    @Test func semicolonsInStringsIdentifiersAndCommentsDoNotSplit() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let result = try sandbox.strata("query", "cars.db", "SELECT 'a;b' AS \"x;y\", [p;q] FROM (SELECT 'it''s;' AS [p;q]) -- end;", "--format", "csv")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "x;y,p;q\r\na;b,it's;\r\n")
        let empty = try sandbox.strata("query", "cars.db", " -- only a comment;\n")
        #expect(empty.status == 1)
        #expect(empty.errorLines == ["strata: no SQL statement to run"])
    }

    @Test func aWriteWithoutRowsPrintsNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let result = try sandbox.strata("query", "cars.db", "DELETE FROM cars WHERE id = ?", "--param", "1")
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(try integer("SELECT count(*) FROM cars", in: sandbox.path("cars.db")) == 2)
    }
}
#endif

extension QueryCommandTests {
    /// `strata query cars.db` with `arguments` in a fresh sandbox holding the cars database.
    func queryCars(_ arguments: String...) throws -> CLIResult {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        return try sandbox.run(try strataBinary().path, ["query", "cars.db"] + arguments)
    }
}
