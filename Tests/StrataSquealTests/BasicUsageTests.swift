import Foundation
import Testing
import StrataSqueal

/// Squeal's README "Basic Usage" row-type idiom in Swift 6 language mode (the README's code itself,
/// and the idiom reading `id`, run in SquealSwift5Tests' BasicUsageTests).
@Suite struct BasicUsageTests {
    @Test func rowTypeInitializerErrorsPropagate() throws {
        struct Strict {
            struct Missing: Error {}
            let name: String
            init(row: Statement) throws {
                guard let name = row.stringValue("name") else { throw Missing() }
                self.name = name
            }
        }
        let db = Database()
        try db.createTable("contacts", definitions: ["name TEXT"])
        try db.insertInto("contacts", values: ["name": nil])
        #expect(throws: Strict.Missing.self) {
            _ = try db.selectFrom("contacts", block: Strict.init)
        }
    }
}
