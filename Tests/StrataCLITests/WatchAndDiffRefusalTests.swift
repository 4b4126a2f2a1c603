#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// `watch` refuses writing statements; `diff` says what it cannot carry (issue 40, items 9-11).
@Suite struct WatchAndDiffRefusalTests {
    @Test func watchRefusesAStatementThatWrites() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("w.db")
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
        let result = try sandbox.strata("watch", "w.db", "INSERT INTO t(x) VALUES(1) RETURNING id", "--interval", "0.05", timeout: 20)
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1 && result.errorLines.first?.contains("writes") == true, "\(result.stderr)")
        #expect(try integer("SELECT count(*) FROM t", in: path) == 0, "nothing was inserted")
    }

    @Test func diffReportsTablesOnlyInTheFirstDatabaseAndApplyRefuses() throws {
        let sandbox = try Sandbox()
        let a = try sandbox.makeCarsDatabase("a.db")
        _ = try sandbox.makeCarsDatabase("b.db")
        try Connection(storageLocation: .onDisk(a)).execute("CREATE TABLE extra(id INTEGER PRIMARY KEY); INSERT INTO extra VALUES(1)")
        let diff = try sandbox.strata("diff", "a.db", "b.db")
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(diff.stdout.contains("not tracked: extra (only in a.db"), "\(diff.stdout)")
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let apply = try sandbox.strata("diff", "a.db", "b.db", "--apply")
        #expect(apply.status == 1)
        #expect(apply.errorLines.first?.contains("nothing applied") == true, "\(apply.stderr)")
        #expect(!apply.stdout.contains("Applied"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == before)
    }

    @Test func diffReportsASchemaDifference() throws {
        let sandbox = try Sandbox()
        let a = sandbox.path("a.db"), b = sandbox.path("b.db")
        try Connection(storageLocation: .onDisk(a)).execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try Connection(storageLocation: .onDisk(b)).execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)")
        let diff = try sandbox.strata("diff", "a.db", "b.db", "--apply")
        #expect(diff.stdout.contains("schema differs: t"), "\(diff.stdout)")
        #expect(diff.status == 1)
    }

    @Test func diffSaysItSkipsRowsWithANullPrimaryKey() throws {
        let sandbox = try Sandbox()
        let a = sandbox.path("a.db"), b = sandbox.path("b.db")
        try Connection(storageLocation: .onDisk(a)).execute("CREATE TABLE t(k TEXT PRIMARY KEY, v TEXT)")
        try Connection(storageLocation: .onDisk(b)).execute("CREATE TABLE t(k TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES(NULL, 'x'), ('a', 'y')")
        let diff = try sandbox.strata("diff", "a.db", "b.db")
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(diff.stdout.contains("t INSERT ['a']"), "\(diff.stdout)")
        #expect(diff.stdout.contains("skipped: t has 1 row with a NULL primary key in b.db"), "\(diff.stdout)")
        let apply = try sandbox.strata("diff", "a.db", "b.db", "--apply")
        #expect(apply.status == 1)
    }
}
#endif
