// `RecordSchemaPlan.frozenMigration(_:)`: the plan as a DatabaseMigrator migration, which builds
// the same schema as `migrate`, whatever the SQL holds.
import Foundation
import Strata
import StrataTestSupport
import Testing
@testable import StrataRecords

@Suite struct FrozenMigrationTests {
    static func schema(_ db: Connection) throws -> [String] {
        try db.query("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name <> 'strata_migrations' ORDER BY 1")
    }

    /// The SQL between the raw string's delimiters of a frozen migration (found by scalars).
    static func frozenSQL(_ source: String) -> String? {
        guard let open = source.range(of: "\"\"\"\n"), let close = source.range(of: "\n\"\"\"", options: .backwards) else { return nil }
        return String(source[open.upperBound..<close.lowerBound])
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

    /// SQL holding the raw string's own delimiters and backslashes gets more `#`s, and reads back
    /// as written (generated: quotes, backslashes, `#`, combining marks, NUL-free text).
    @Test func anySQLTextSurvivesTheRawString() throws {
        let pieces = ["\"\"\"#", "\\#", "\\", "\"", "#", "'", "e\u{301}", "\"\u{301}", "\r", "x", ";", "\"\"\"##", "\\##("]
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
            #expect(Self.frozenSQL(source) == text + ";", "\(text.debugDescription)")
        }
    }
}

extension Array where Element == UInt8 {
    func containsSlice(_ pattern: [UInt8]) -> Bool {
        guard count >= pattern.count else { return false }
        return (0...(count - pattern.count)).contains { self[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
