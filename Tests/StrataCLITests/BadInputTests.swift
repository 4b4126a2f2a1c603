#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// Every bad input gets one line naming the problem, a non-zero exit, no stack trace, and leaves
/// every file as it was (nothing created, nothing changed).
@Suite struct BadInputTests {
    /// Each command's arguments, with `DB` standing for the bad input.
    static let commands: [[String]] = [
        ["query", "DB", "SELECT count(*) FROM t"],
        ["schema", "DB"],
        ["check", "DB"],
        ["checkpoint", "DB"],
        ["vacuum", "DB"],
        ["vacuum", "DB", "--into", "compact.db"],
        ["backup", "DB", "copy.db"],
        ["migrate", "DB", "--dir", "migrations"]
    ]

    enum Input: String, CaseIterable {
        case missing, directory, notADatabase, corrupt, unreadable
    }

    /// Builds `input` at `bad.db` (beside a good migrations folder); returns the expected message.
    func make(_ input: Input, in sandbox: Sandbox) throws -> String? {
        try sandbox.write("CREATE TABLE t(x);\n", to: "migrations/001_t.sql")
        let path = sandbox.path("bad.db")
        switch input {
        case .missing:
            return "strata: no such file: bad.db"
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            return "strata: bad.db is a directory, not a database file"
        case .notADatabase:
            try sandbox.write(String(repeating: "These are notes, not a database.\n", count: 200), to: "bad.db")
            return "strata: bad.db: file is not a database"
        case .corrupt:
            // A real database whose first page (the schema's b-tree) is overwritten after the header.
            try sandbox.makeBigDatabase("bad.db", rows: 500, wal: false)
            try overwrite(path, at: 100, count: 4096 - 100)
            return "strata: bad.db: database disk image is malformed"
        case .unreadable:
            try sandbox.makeCarsDatabase("bad.db")
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path)
            return "strata: cannot read bad.db: permission denied"
        }
    }

    @Test(arguments: commands, Input.allCases)
    func badDatabaseFile(command: [String], input: Input) throws {
        // migrate creates a missing database: that is not bad input for it.
        if command[0] == "migrate", input == .missing { return }
        let sandbox = try Sandbox()
        let expected = try make(input, in: sandbox)
        let arguments = command.map { $0 == "DB" ? "bad.db" : $0 }
        let before = try sandbox.snapshot()
        let result = input == .unreadable ? try runAsAnotherUser(arguments, in: sandbox) : try sandbox.strata(arguments)
        #expect(result.status != 0)
        #expect(result.errorLines == [expected].compactMap { $0 }, "\(arguments)")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(result.stdout.isEmpty || command[0] == "backup" || command[0] == "migrate")
        #expect(try sandbox.snapshot() == before, "\(arguments) changed files")
    }

    @Test func anSQLErrorIsSQLitesMessage() throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let before = try sandbox.snapshot()
        for (sql, message) in [
            ("SELECT * FROM nope", "no such table: nope"),
            ("SELEC 1", "near \"SELEC\": syntax error"),
            ("INSERT INTO cars(name) VALUES(NULL)", "NOT NULL constraint failed: cars.name")
        ] {
            let result = try sandbox.strata("query", "cars.db", sql)
            #expect(result.status == 1)
            #expect(result.errorLines == ["strata: \(message)"])
        }
        #expect(try sandbox.snapshot() == before)
    }

    @Test(arguments: [
        (["query", "cars.db", "SELECT 1", "--bogus"], "strata: Unknown option '--bogus' (see 'strata query --help')"),
        (["check", "cars.db", "--verbose"], "strata: Unknown option '--verbose' (see 'strata check --help')"),
        (["--bogus"], "strata: Unknown option '--bogus' (see 'strata --help')"),
        (["frobnicate", "cars.db"], "strata: 2 unexpected arguments: 'frobnicate', 'cars.db' (see 'strata --help')"),
        (["query", "cars.db"], "strata: Missing expected argument '<sql>' (see 'strata query --help')"),
        (
            ["backup", "cars.db", "copy.db", "--pages-per-step", "0"],
            "strata: --pages-per-step must be a positive number of pages, or -1 for all at once (see 'strata backup --help')"
        )
    ])
    func anUnknownOptionOrBadUsage(arguments: [String], message: String) throws {
        let sandbox = try Sandbox()
        try sandbox.makeCarsDatabase()
        let before = try sandbox.snapshot()
        let result = try sandbox.strata(arguments)
        #expect(result.status == 64)
        #expect(result.errorLines == [message])
        #expect(result.stdout.isEmpty)
        #expect(try sandbox.snapshot() == before)
    }

    @Test func onlyMigrateCreatesADatabase() throws {
        let sandbox = try Sandbox()
        try sandbox.write("CREATE TABLE t(x);\n", to: "migrations/001_t.sql")
        let result = try sandbox.strata(["migrate", "new.db", "--dir", "migrations"])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path("new.db")))
    }

    /// Runs the tool so that a mode-000 file is unreadable: as `nobody` when the tests run as root
    /// (root reads any file), from a copy of the binary that `nobody` may execute.
    func runAsAnotherUser(_ arguments: [String], in sandbox: Sandbox) throws -> CLIResult {
        guard getuid() == 0 else { return try sandbox.strata(arguments) }
        let copy = sandbox.root.appendingPathComponent("strata").path
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: try strataBinary().path, toPath: copy)
        }
        let setpriv = try executable(named: "setpriv")
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", copy]
        let probe = try sandbox.run(setpriv, asNobody + ["--help"])
        guard probe.status == 0 else {
            throw TestFailure(message: "cannot run the tool as nobody to test an unreadable file: \(probe.stderr)")
        }
        return try sandbox.run(setpriv, asNobody + arguments)
    }
}

extension Sandbox {
    func strata(_ arguments: [String]) throws -> CLIResult {
        try run(try strataBinary().path, arguments)
    }
}
#endif
