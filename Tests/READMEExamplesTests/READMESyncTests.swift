// Holds the README's Swift examples and this target to each other: the Nth ```swift block of the
// README's "Examples" section must equal the code between this target's `README:begin N` and
// `README:end` markers (indentation, blank lines and `import` lines aside), so neither changes
// without the other.
import Foundation
import Testing

@Suite struct READMESyncTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let readme = testsFolder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")

    /// Lines without indentation, blank lines or imports: what the comparison looks at.
    static func normalized(_ lines: [Substring]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// The Swift blocks of the README between "## Examples" and the next top-level heading.
    static func readmeBlocks() throws -> [[String]] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "\n## Examples\n") else { return [] }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var blocks: [[String]] = []
        var current: [Substring]?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" { current = [] }
            else if current != nil, line == "```" { blocks.append(normalized(current ?? [])); current = nil }
            else { current?.append(line) }
        }
        return blocks
    }

    /// The marked regions of this target's sources, joined per example number.
    static func markedRegions() throws -> [Int: [String]] {
        let files = try FileManager.default.contentsOfDirectory(at: testsFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "READMESyncTests.swift" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        var regions: [Int: [String]] = [:]
        for file in files {
            var number: Int?
            var lines: [Substring] = []
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// README:begin ") {
                    number = Int(trimmed.dropFirst("// README:begin ".count))
                    lines = []
                } else if trimmed == "// README:end", let n = number {
                    regions[n, default: []] += normalized(lines)
                    number = nil
                } else if number != nil {
                    lines.append(line)
                }
            }
        }
        return regions
    }

    @Test func everyReadmeExampleIsInThisTargetWordForWord() throws {
        let blocks = try Self.readmeBlocks()
        let regions = try Self.markedRegions()
        #expect(blocks.count == 24)
        #expect(regions.count == blocks.count)
        for (index, block) in blocks.enumerated() {
            let region = regions[index + 1] ?? []
            #expect(region == block, "README example \(index + 1) differs from its test")
        }
    }
}
