// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The README's vector search example, word for word between the markers, run on its own
// in-memory connection and checked against what it prints.
import Foundation
import StrataRecords
import Testing

// README:begin 15
@Record struct Snippet { @PrimaryKey var id: Int64?; var lang: String; var embedding: FloatVector }
// README:end

extension READMEExamples {
    @Test func readmeVectorExampleRuns() throws {
        defer { _ = printed.take() }
        // README:begin 15
        let db = try Connection(path: ":memory:")
        try Snippet.createTable(db)
        var snippet = Snippet(id: nil, lang: "en", embedding: try FloatVector([0.1, -0.4, 0.3]))   // sqlite-vec's BLOB layout
        try snippet.insert(db)
        let hits = try Snippet.where { $0.lang == "en" }
            .nearest(to: try FloatVector([0.12, -0.5, 0.33]), by: \.embedding, metric: .cosine, k: 10)
            .fetchAll(db)                                      // [(record: Snippet, distance: Double)], nearest first
        print(hits.map(\.record.id))                          // [Optional(1)]
        // README:end
        #expect(printed.take() == ["[Optional(1)]"])
        #expect(hits.count == 1 && hits[0].distance < 0.01)
    }
}
