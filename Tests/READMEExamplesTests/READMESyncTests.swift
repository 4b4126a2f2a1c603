// Holds the documents' Swift examples and this target to each other, so neither changes without
// the other (indentation, blank lines and `import` lines aside):
// - the Nth ```swift block of the README's "Examples" section equals the code between this
//   target's `README:begin N` and `README:end` markers;
// - the Nth ```swift block of an article `Name.md` in the StrataCore, StrataVectors,
//   StrataFullTextSearch or StrataSqueal catalog
//   equals the code between `DOC:begin Name N` and `DOC:end` (several regions of one key are
//   joined in file order), for every article but the one listed in `articlesNotHeld`, and no
//   marked region names a block that is not there.
import Foundation
import Testing

@Suite struct READMESyncTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageFolder = testsFolder.deletingLastPathComponent().deletingLastPathComponent()
    static let readme = packageFolder.appendingPathComponent("README.md")
    /// The catalogs whose articles' Swift blocks are held here (article names are unique across them).
    static let catalogs = [
        "Sources/StrataCore/StrataCore.docc", "Sources/StrataVectors/StrataVectors.docc",
        "Sources/StrataFullTextSearch/StrataFullTextSearch.docc", "Sources/StrataSqueal/StrataSqueal.docc",
        "Sources/StrataChangesets/StrataChangesets.docc"
    ].map {
        packageFolder.appendingPathComponent($0)
    }

    /// The article whose Swift blocks cannot run here: its read replica needs a process started
    /// with `LITESTREAM_REPLICA_URL` (LitestreamReplicaTests runs the README's equivalent there).
    static let articlesNotHeld: Set<String> = ["RunningPastOneMachine"]

    /// StrataSync's articles held here (the others show hubs over HTTP and deployments).
    static let syncArticlesHeld = ["PartialSyncAndPermissions"]

    /// Lines without indentation, blank lines or imports: what the comparison looks at.
    static func normalized(_ lines: [Substring]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// The ```swift blocks of `text`, in order.
    static func swiftBlocks(in text: Substring) -> [[String]] {
        var blocks: [[String]] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(normalized(current ?? [])); current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The Swift blocks of the README between "## Examples" and the next top-level heading.
    static func readmeBlocks() throws -> [[String]] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "\n## Examples\n") else { return [] }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return swiftBlocks(in: section)
    }

    /// Every held article of the catalog, by name (the file name without `.md`), with its Swift blocks.
    static func articleBlocks() throws -> [String: [[String]]] {
        let files = try catalogs.flatMap { try FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil) }
            .filter { $0.pathExtension == "md" }
        // StrataSync's catalog: the articles whose examples run in process.
        let syncCatalog = packageFolder.appendingPathComponent("Sources/StrataSync/StrataSync.docc")
        let syncFiles = syncArticlesHeld.map { syncCatalog.appendingPathComponent($0 + ".md") }
        var articles: [String: [[String]]] = [:]
        for file in files + syncFiles {
            let name = file.deletingPathExtension().lastPathComponent
            guard !articlesNotHeld.contains(name) else { continue }
            articles[name] = swiftBlocks(in: Substring(try String(contentsOf: file, encoding: .utf8)))
        }
        return articles
    }

    /// The marked regions of this target's sources, joined per key: "README 3" for
    /// `README:begin 3`, "Examples 2" for `DOC:begin Examples 2`.
    static func markedRegions() throws -> [String: [String]] {
        let files = try FileManager.default.contentsOfDirectory(at: testsFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "READMESyncTests.swift" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        var regions: [String: [String]] = [:]
        for file in files {
            var key: String?
            var lines: [Substring] = []
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if key == nil, trimmed.hasPrefix("// README:begin "), let n = Int(trimmed.dropFirst("// README:begin ".count)) {
                    key = "README \(n)"
                    lines = []
                } else if key == nil, trimmed.hasPrefix("// DOC:begin ") {
                    let parts = trimmed.dropFirst("// DOC:begin ".count).split(separator: " ")
                    #expect(parts.count == 2 && Int(parts[1]) != nil, "malformed marker in \(file.lastPathComponent): \(trimmed)")
                    key = parts.joined(separator: " ")
                    lines = []
                } else if let open = key, trimmed == "// README:end" || trimmed == "// DOC:end" {
                    #expect(
                        open.hasPrefix("README ") == (trimmed == "// README:end"),
                        "\(open) in \(file.lastPathComponent) is closed by \(trimmed)")
                    regions[open, default: []] += normalized(lines)
                    key = nil
                } else if key != nil {
                    #expect(
                        !trimmed.hasPrefix("// README:begin") && !trimmed.hasPrefix("// DOC:begin"),
                        "a marker opens inside \(key ?? "") in \(file.lastPathComponent)")
                    lines.append(line)
                }
            }
            #expect(key == nil, "\(key ?? "") is never closed in \(file.lastPathComponent)")
        }
        return regions
    }

    /// The README is the front door; the depth lives in the articles.
    @Test func theReadmeStaysUnderFourHundredLines() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let lines = text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        #expect(lines < 400, "README.md has \(lines) lines: move the detail to a DocC article")
    }

    @Test func everyReadmeExampleIsInThisTargetWordForWord() throws {
        let blocks = try Self.readmeBlocks()
        let regions = try Self.markedRegions().filter { $0.key.hasPrefix("README ") }
        #expect(blocks.count == 15)
        #expect(regions.count == blocks.count)
        for (index, block) in blocks.enumerated() {
            let region = regions["README \(index + 1)"] ?? []
            #expect(region == block, "README example \(index + 1) differs from its test")
        }
    }

    @Test func everyArticleExampleIsInThisTargetWordForWord() throws {
        let articles = try Self.articleBlocks()
        let regions = try Self.markedRegions().filter { !$0.key.hasPrefix("README ") }
        #expect(articles["Examples"]?.count == 15)
        #expect(articles.values.map(\.count).reduce(0, +) == 56)
        for (name, blocks) in articles {
            for (index, block) in blocks.enumerated() {
                let key = "\(name) \(index + 1)"
                #expect(regions[key] != nil, "\(name).md's Swift block \(index + 1) has no `DOC:begin \(key)` region in this target")
                #expect(regions[key] == nil || regions[key] == block, "\(name).md's Swift block \(index + 1) differs from its test")
            }
        }
        for key in regions.keys {
            let parts = key.split(separator: " ")
            let article = String(parts[0])
            let number = Int(parts[1]) ?? 0
            #expect(
                number >= 1 && number <= articles[article]?.count ?? 0,
                "`DOC:begin \(key)` marks code that no held article's Swift block shows")
        }
    }

    /// The checks above read what they should: a block compared with a region that differs fails.
    @Test func aChangedBlockWouldBeNoticed() {
        let blocks = Self.swiftBlocks(in: "text\n```swift\nlet a = 1\n\n  print(a)\n```\n```sh\nls\n```\n")
        #expect(blocks == [["let a = 1", "print(a)"]])
        #expect(blocks[0] != ["let a = 2", "print(a)"])
    }
}
