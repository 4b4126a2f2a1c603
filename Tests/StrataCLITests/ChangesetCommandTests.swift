#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// `diff` and `apply`, run as the built tool against real files.
@Suite struct ChangesetCommandTests {
    func makePair(_ sandbox: Sandbox) throws -> (String, String) {
        let a = try sandbox.makeCarsDatabase("a.db")
        let b = try sandbox.makeCarsDatabase("b.db")
        let connection = try Connection(storageLocation: .onDisk(b))
        try connection.execute(
            """
            UPDATE cars SET price = 50000 WHERE id = 1;
            DELETE FROM cars WHERE id = 3;
            INSERT INTO cars(id, name, price) VALUES (4, 'Volvo', 29000);
            CREATE TABLE notes(line TEXT);
            """)
        return (a, b)
    }

    @Test func diffPrintsEachChangeAndApplyMakesTheFilesEqual() throws {
        let sandbox = try Sandbox()
        let (a, _) = try makePair(sandbox)
        let diff = try sandbox.strata("diff", "a.db", "b.db", "--changeset", "changes.bin")
        #expect(diff.status == 0, "\(diff.stderr)")
        let lines = diff.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.contains("cars UPDATE [1] price: 52642.0 → 50000.0"))
        #expect(lines.contains("cars DELETE [3] name: 'Skoda', price: NULL, photo: NULL"))
        #expect(lines.contains("cars INSERT [4] name: 'Volvo', price: 29000.0, photo: NULL"))
        #expect(lines.contains("not tracked: notes (no primary key, or missing from a.db)"))

        let apply = try sandbox.strata("apply", "a.db", "changes.bin")
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(apply.stdout.contains("3 changes, 0 conflicts"))
        #expect(try integer("SELECT count(*) FROM cars", in: a) == 3)
        let again = try sandbox.strata("diff", "a.db", "b.db")
        #expect(again.stdout.hasPrefix("No differences."))

        // Applying once more conflicts everywhere: refused as a whole by default.
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let conflict = try sandbox.strata("apply", "a.db", "changes.bin")
        #expect(conflict.status == 1)
        #expect(conflict.errorLines.first?.hasPrefix("strata: conflict (") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == before)
        let omitted = try sandbox.strata("apply", "a.db", "changes.bin", "--on-conflict", "omit")
        #expect(omitted.status == 0 && omitted.stdout.contains("3 conflicts (omit)"))
    }

    @Test func diffApplyWritesToTheFirstDatabase() throws {
        let sandbox = try Sandbox()
        let (a, b) = try makePair(sandbox)
        // A table the diff cannot carry makes --apply refuse (issue 40): this pair compares cars only.
        try Connection(storageLocation: .onDisk(b)).execute("DROP TABLE notes")
        let result = try sandbox.strata("diff", "a.db", "b.db", "--apply")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Applied 3 changes to a.db."))
        #expect(try integer("SELECT CAST(price AS INTEGER) FROM cars WHERE id = 1", in: a) == 50000)
    }

    @Test func damagedOrMissingChangesetsChangeNothing() throws {
        let sandbox = try Sandbox()
        let (a, _) = try makePair(sandbox)
        try Data((0..<40).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }).write(to: URL(fileURLWithPath: sandbox.path("junk.bin")))
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let junk = try sandbox.strata("apply", "a.db", "junk.bin")
        #expect(junk.status == 1)
        #expect(junk.errorLines.count == 1 && junk.errorLines[0].contains("damaged"))
        let missing = try sandbox.strata("apply", "a.db", "nope.bin")
        #expect(missing.status == 1 && missing.errorLines == ["strata: cannot read nope.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == before)
    }
}

#endif
