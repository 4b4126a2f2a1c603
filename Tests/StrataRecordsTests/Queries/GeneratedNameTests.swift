import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct GeneratedNameTests {
    @Test func propertiesNamedLikeGeneratedMembers() throws {
        let db = try Connection()
        try Oddity.createTable(db)
        try Oddity.insertAll(db, [Oddity(id: nil, qualifier: "q", record: "r", columns: 3, fragment: nil)])
        let found = try Oddity.where { $0.qualifier == "q" && $0.columns > 2 }.join(Oddity.self, on: { $0.id == $1.id }).fetchAll(db)
        #expect(found.map(\.1.record) == ["r"])
    }
}
