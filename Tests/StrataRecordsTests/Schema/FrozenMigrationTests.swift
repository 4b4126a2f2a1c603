// `RecordSchemaPlan.frozenMigration(_:)`: the plan as a DatabaseMigrator migration, which builds
// the same schema as `migrate`, whatever the SQL holds.
import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing
@testable import StrataRecords

@Suite struct FrozenMigrationTests {
    static func schema(_ db: Connection) throws -> [String] {
        try db.query(
            "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name <> 'strata_migrations' ORDER BY 1"
        )
    }

    /// The SQL a frozen migration's raw string holds, read as the compiler reads it: the text
    /// between the delimiters, with `\#r` and `\#u{…}` escapes (with the literal's `#`s) decoded.
    static func frozenSQL(_ source: String) -> String? {
        let scalars = Array(source.unicodeScalars)
        guard let sqlStart = scalars.firstIndex(of: "#") else { return nil }
        let hashes = scalars[sqlStart...].prefix { $0 == "#" }.count
        let open = sqlStart + hashes + 4 // the hashes, three quotes and the line feed
        let closing = Array("\n\"\"\"".unicodeScalars) + Array(repeating: "#" as Unicode.Scalar, count: hashes) + [")"]
        guard scalars.count >= open + closing.count, Array(scalars.suffix(closing.count)) == closing else { return nil }
        let body = scalars[open..<(scalars.count - closing.count)]
        var out = String.UnicodeScalarView()
        var index = body.startIndex
        let escape = ["\\"] + Array(repeating: "#" as Unicode.Scalar, count: hashes)
        while index < body.endIndex {
            if body[index...].starts(with: escape) {
                var cursor = index + escape.count
                if body[cursor] == "r" {
                    out.append("\r"); index = cursor + 1; continue
                }
                if body[cursor] == "u", body[cursor + 1] == "{" {
                    cursor += 2
                    var hex = ""
                    while body[cursor] != "}" { hex.unicodeScalars.append(body[cursor]); cursor += 1 }
                    guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
                    out.append(scalar); index = cursor + 1; continue
                }
                return nil // an escape the frozen source never writes
            }
            out.append(body[index]); index += 1
        }
        return String(out)
    }

    @Test func aFrozenPlanBuildsWhatMigrateBuilds() throws {
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        let migrated = try Connection(storageLocation: .inMemory)
        try schema.migrate(migrated)
        let frozen = try Connection(storageLocation: .inMemory)
        let source = try schema.plan(for: frozen).frozenMigration("v1")
        #expect(source.hasPrefix("migrator.registerMigration(\"v1\", sql: #\"\"\"\n"))
        let sql = try #require(Self.frozenSQL(source))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", sql: sql)
        #expect(try migrator.migrate(frozen) == ["v1"])
        #expect(try Self.schema(frozen) == Self.schema(migrated))
        #expect(try schema.plan(for: frozen).isEmpty)
    }

    /// An empty plan freezes to no migration: a comment that says so, which registers nothing
    /// (a migration of no SQL would be recorded as applied while changing nothing).
    @Test func anEmptyPlanFreezesToNothing() throws {
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db)
        let plan = try schema.plan(for: db)
        #expect(plan.isEmpty)
        let frozen = plan.frozenMigration("v2")
        #expect(frozen == #"// Nothing to freeze for "v2": the database already matches the records."#)
        #expect(!frozen.contains("registerMigration"))
        #expect(!frozen.contains("\n"))
    }

    /// SQL holding the raw string's own delimiters and backslashes gets more `#`s, and reads back
    /// as written (generated: quotes, backslashes, `#`, combining marks, NUL-free text).
    @Test func anySQLTextSurvivesTheRawString() throws {
        let pieces = [
            "\"\"\"#", "\\#", "\\", "\"", "#", "'", "e\u{301}", "\"\u{301}", "\r", "\r\n", "\n", "\u{1}", "\u{7F}", "\t",
            "x", ";", "\"\"\"##", "\\##(", "\\#r", "\\#u{41}", "-- c", "#\u{301}"
        ]
        try PropertyCheck.run("frozen migration raw string", cases: 200) { random in
            let count = Int(random.next() % 8)
            var text = "SELECT '"
            for _ in 0..<count { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            text += "'"
            let plan = RecordSchemaPlan(steps: [.init(kind: .createIndex, table: "t", summary: "probe", sql: [text], losesData: false)])
            let source = plan.frozenMigration("v\u{301}\"")
            let hashCount = source.unicodeScalars.drop { $0 != "#" }.prefix { $0 == "#" }.count
            let closing = "\"\"\"" + String(repeating: "#", count: hashCount)
            #expect(!Array(text.utf8).containsSlice(Array(closing.utf8)), "\(text.debugDescription)")
            // Only line feeds and tabs stay raw between the delimiters: no CR, no other control.
            let raw = source.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F }
            #expect(raw.isEmpty, "\(text.debugDescription)")
            #expect(Self.frozenSQL(source) == Self.terminated(text), "\(text.debugDescription)")
        }
    }

    /// The statement as the frozen migration ends it: `;`, on a line of its own after a `--`.
    static func terminated(_ text: String) -> String {
        let lastLine = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).last ?? []
        return text + (zip(lastLine, lastLine.dropFirst()).contains { $0 == "-" && $1 == "-" } ? "\n;" : ";")
    }

    /// The differential test: the Swift compiler itself reads the frozen literals back, byte for
    /// byte (CR, CRLF, control characters, quotes and `#`s included).
    @Test func theCompilerReadsTheFrozenSQLByteForByte() async throws {
        // A child process: on a thread of its own, not one of the cooperative pool's.
        try await onOwnThread {
            let candidates = ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"]
            guard let swiftc = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return }
            let pieces = [
                "\"\"\"#", "\\#", "\\", "\"", "#", "e\u{301}", "\"\u{301}", "\r", "\r\n", "\n", "\u{1}", "\u{7F}", "\t",
                "x", "\\#r", "\\#u{41}", "-- c", "#\u{301}", "\u{0}"
            ]
            var texts: [String] = []
            try PropertyCheck.run("frozen migration compiled", cases: 40) { random in
                var text = "SELECT '"
                for _ in 0..<Int(random.next() % 10) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
                texts.append(text + "'")
            }
            var program = "let texts: [String] = [\n"
            for text in texts {
                let plan = RecordSchemaPlan(steps: [.init(kind: .createIndex, table: "t", summary: "probe", sql: [text], losesData: false)])
                let source = plan.frozenMigration("v")
                // The literal: from the first `#` after `sql: ` to the last `#` before `)`.
                let scalars = Array(source.unicodeScalars)
                guard let start = scalars.firstIndex(of: "#"), let end = scalars.lastIndex(of: "#") else { Issue.record("no literal"); return }
                var literal = String.UnicodeScalarView()
                literal.append(contentsOf: scalars[start...end])
                program += String(literal) + ",\n"
            }
            program += "]\nfor text in texts { print(text.utf8.map { String($0) }.joined(separator: \",\")) }\n"
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("frozen-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("main.swift")
            try Data(program.utf8).write(to: file)
            let binary = folder.appendingPathComponent("frozen")
            let (compiled, messages) = try runToEnd(URL(fileURLWithPath: swiftc), [file.path, "-o", binary.path])
            #expect(compiled == 0, "\(messages)")
            guard compiled == 0 else { return }
            let (status, output) = try runToEnd(binary, [])
            #expect(status == 0)
            let lines = output.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
            #expect(lines.count == texts.count)
            for (text, line) in zip(texts, lines) {
                #expect(line == Self.terminated(text).utf8.map { String($0) }.joined(separator: ","), "\(text.debugDescription)")
            }
        }
    }
}

extension Array where Element == UInt8 {
    func containsSlice(_ pattern: [UInt8]) -> Bool {
        guard count >= pattern.count else { return false }
        return (0...(count - pattern.count)).contains { self[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
