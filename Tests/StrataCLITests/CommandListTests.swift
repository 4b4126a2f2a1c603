#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import Strata
import Testing

/// The CommandLineTool article lists every command `strata --help` (and `strata sync --help`)
/// prints, and no command the tool lacks: a new subcommand fails here until it is documented.
@Suite struct CommandListTests {
    /// The subcommand names under "SUBCOMMANDS:" in a help text.
    static func subcommands(inHelp help: String) -> Set<String> {
        var names: Set<String> = []
        var inList = false
        for line in help.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("SUBCOMMANDS:") { inList = true; continue }
            guard inList else { continue }
            // Entries are indented two spaces; their wrapped descriptions are indented further.
            let scalars = Array(line.unicodeScalars)
            guard scalars.count > 2, scalars[0] == " ", scalars[1] == " ", scalars[2] != " " else { continue }
            let name = String(String.UnicodeScalarView(scalars[2...].prefix { $0 != " " }))
            if name != "See" { names.insert(name) }
        }
        return names
    }

    /// The commands the article's table names: the words after `strata` in its first column.
    static func commands(inArticle article: String, under parent: String?) -> Set<String> {
        var names: Set<String> = []
        let prefix = "| `strata " + (parent.map { $0 + " " } ?? "")
        for line in article.split(whereSeparator: \.isNewline) where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count).unicodeScalars
            names.insert(String(String.UnicodeScalarView(rest.prefix { $0 != " " && $0 != "`" })))
        }
        return names
    }

    static func article() throws -> String {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let path = tests.deletingLastPathComponent().appendingPathComponent("Sources/StrataCore/StrataCore.docc/CommandLineTool.md")
        return try String(contentsOf: path, encoding: .utf8)
    }

    /// Issue 81: `--version` prints the package's one version string.
    @Test func versionPrintsTheOneVersion() throws {
        let sandbox = try Sandbox()
        let version = try sandbox.strata("--version")
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == StrataVersion.current, "\(version.stdout)")
    }

    @Test func theArticleListsEveryCommandTheToolHas() throws {
        let sandbox = try Sandbox()
        let binary = try strataBinary().path
        let help = try sandbox.run(binary, ["--help"])
        #expect(help.status == 0)
        let tool = Self.subcommands(inHelp: help.stdout)
        #expect(tool.contains("query") && tool.contains("sync"), "no subcommands read from: \(help.stdout)")
        let article = try Self.article()
        #expect(Self.commands(inArticle: article, under: nil) == tool)

        let syncHelp = try sandbox.run(binary, ["sync", "--help"])
        let syncCommands = Self.subcommands(inHelp: syncHelp.stdout)
        #expect(syncCommands.contains("status"), "no sync subcommands read from: \(syncHelp.stdout)")
        #expect(Self.commands(inArticle: article, under: "sync") == syncCommands)
    }

    /// The tour walks through every layer, records, search, vectors and sync included, and each
    /// step prints what it found, not only that it ran.
    @Test func theTourWalksThroughEveryLayer() throws {
        let sandbox = try Sandbox()
        let tour = try sandbox.strata("tour")
        #expect(tour.status == 0, "\(tour.stderr)")
        for section in [
            "== Codable bindings", "== Described tables (SQLite.swiftly)", "== Records and typed queries (StrataRecords)",
            "== Full-text search (FTS5)", "== Vector search", "== Local-first sync (StrataSync)"
        ] {
            #expect(tour.stdout.contains(section), "the tour has no \(section)")
        }
        #expect(tour.stdout.contains("a recursive walk of a bill of materials: [\"bicycle\", \"wheel\", \"spoke\", \"frame\"]"))
        #expect(tour.stdout.contains("finds [\"Dune\"]"))
        #expect(tour.stdout.contains("k: 2): [\"Dune"))
        #expect(tour.stdout.contains("the laptop pulled it: 1 todo"))
    }
}
#endif
