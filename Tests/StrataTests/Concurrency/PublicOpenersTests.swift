import Foundation
import Testing

/// The openers `import Strata` offers, read from the sources of the modules it re-exports: a new
/// public initializer of `Database` or `Connection` fails this test until it is listed here on
/// purpose. SQift's spellings live in `StrataSQift`; the core keeps deprecated copies so code that
/// imports only `Strata` still builds, and those are listed apart.
@Suite struct PublicOpenersTests {
    /// The one way to open a path for each type, and three that open what is not a path:
    /// - `Connection`'s designated initializer stays public because subclasses (SQLite.swiftly's
    ///   pattern) call `super.init`;
    /// - `Connection(deserializing:...)` makes a private in-memory database from bytes;
    /// - `Database(replicaOf:litestreamVFS:...)` reads a remote Litestream replica, read-only.
    static let openers: Set<String> = [
        "Database(path:configuration:)",
        "Connection(path:configuration:)",
        "Connection(storageLocation:tableLockPolicy:flags:)",
        "Connection(deserializing:readOnly:sizeLimit:tableLockPolicy:)",
        "Database(replicaOf:litestreamVFS:maximumReaderCount:readerConnectionPreparation:)"
    ]

    /// SQift's spellings, deprecated in the core in favour of `StrataSQift` or the openers above.
    static let deprecated: Set<String> = [
        "Connection(storageLocation:tableLockPolicy:readOnly:multiThreaded:sharedCache:)",
        "Database(storageLocation:tableLockPolicy:multiThreaded:sharedCache:drainDelay:maximumReaderCount:extensions:"
            + "writerConnectionPreparation:readerConnectionPreparation:)",
        "Database(storageLocation:tableLockPolicy:flags:drainDelay:maximumReaderCount:extensions:"
            + "writerConnectionPreparation:readerConnectionPreparation:)",
        "Database(storageLocation:replicationSafety:maximumReaderCount:extensions:"
            + "writerConnectionPreparation:readerConnectionPreparation:)"
    ]

    static let modules = ["StrataKernel", "StrataSchema", "StrataCore", "StrataFullTextSearch", "StrataReplication", "StrataVectors"]

    @Test func importStrataOffersOneOpenerPerType() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        var found: [(signature: String, deprecated: Bool)] = []
        for module in Self.modules {
            let folder = root.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                found += Self.initializers(in: try String(contentsOf: file, encoding: .utf8))
            }
        }
        #expect(found.count >= 3, "the scan found no initializers: has the layout of Sources changed?")
        #expect(Set(found.filter { !$0.deprecated }.map(\.signature)) == Self.openers)
        #expect(Set(found.filter(\.deprecated).map(\.signature)) == Self.deprecated)
    }

    /// The public or open initializers declared directly in a top-level `Database` or
    /// `Connection` type or extension (swift-format puts those at column 0 and their members at
    /// column 4), as `Type(label:label:)`, each with whether its attributes deprecate it.
    static func initializers(in source: String) -> [(signature: String, deprecated: Bool)] {
        let lines = source.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" }).map(String.init)
        var result: [(String, Bool)] = []
        var type: String?
        for (index, line) in lines.enumerated() {
            if !line.hasPrefix(" "), !line.isEmpty {
                type = nil
                for name in ["Database", "Connection"] {
                    for prefix in ["extension \(name)", "final class \(name)", "open class \(name)", "public final class \(name)"]
                    where line.hasPrefix(prefix + " ") || line.hasPrefix(prefix + ":") || line.hasPrefix(prefix + "{") {
                        type = name
                    }
                }
                continue
            }
            guard let type, line.hasPrefix("    "), !line.hasPrefix("     ") else { continue }
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
            guard let initWord = words.firstIndex(where: { $0.hasPrefix("init(") || $0 == "init" || $0.hasPrefix("init?(") }),
                words[..<initWord].contains(where: { $0 == "public" || $0 == "open" })
            else { continue }
            var attributes: [String] = []
            var back = index - 1
            while back >= 0, lines[back].hasPrefix("    @") {
                attributes.append(lines[back])
                back -= 1
            }
            let deprecated = attributes.contains { $0.contains("deprecated") }
            result.append(("\(type)(\(labels(from: lines[index...].joined(separator: "\n"))))", deprecated))
        }
        return result
    }

    /// The argument labels of the first parameter list in `text`, `label:` each.
    static func labels(from text: String) -> String {
        var depth = 0
        var current = ""
        var parameters: [String] = []
        var inString = false
        scan: for scalar in text.unicodeScalars {
            if scalar == "\"" { inString.toggle() }
            if inString { if depth == 1 { current.unicodeScalars.append(scalar) }; continue }
            switch scalar {
            case "(", "[", "{":
                depth += 1
                if depth == 1 { continue scan }
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { parameters.append(current); break scan }
            case "," where depth == 1:
                parameters.append(current)
                current = ""
                continue scan
            default: break
            }
            if depth >= 1 { current.unicodeScalars.append(scalar) }
        }
        return parameters.compactMap { parameter -> String? in
            let head = parameter.unicodeScalars.split(separator: ":", maxSplits: 1).first.map { String(String.UnicodeScalarView($0)) } ?? ""
            let names = head.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard let label = names.first else { return nil }
            return "\(label):"
        }.joined()
    }
}
