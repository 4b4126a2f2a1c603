import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Serialize and deserialize round trips: a deserialized image replaces the schema even at the
/// same schema version, and an image of every journal mode, generated content included, loads back
/// with the same content (issue 38, section 3).
@Suite struct SerializeRoundTripTests {
    @Test func deserializeForgetsTheOldSchemaEvenAtTheSameSchemaVersion() throws {
        let other = try makeConnection(executing: "CREATE TABLE replaced(p TEXT, q TEXT, r TEXT)")
        let image = try other.serialize()

        let connection = try Connection(storageLocation: .temporary)
        try connection.execute("CREATE TABLE original(a INTEGER)")
        #expect(try connection.query("PRAGMA schema_version") as Int? == other.query("PRAGMA schema_version") as Int?)
        #expect(try connection.readSchema().tableNamed("original") != nil)
        try connection.deserialize(image)
        let schema = try connection.readSchema()
        #expect(schema.tableNamed("original") == nil)
        #expect(schema.tableNamed("replaced") != nil)
    }

    @Test func serializedImageOfEveryJournalModeLoads() throws {
        for mode in ["WAL", "DELETE", "TRUNCATE", "PERSIST", "MEMORY", "OFF"] {
            let directory = try TemporaryDirectory()
            let connection = try Connection(storageLocation: .onDisk(directory.path("db.sqlite")))
            let _: String? = try connection.query("PRAGMA journal_mode = \(mode)")
            try connection.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), ('two'), (X'03')")
            let image = try connection.serialize()
            let copy = try Connection(deserializing: image)
            #expect(try DatabaseSnapshot(copy) == DatabaseSnapshot(connection), "journal mode \(mode)")
            // The bytes also open as a file.
            try image.write(to: URL(fileURLWithPath: directory.path("copy.sqlite")))
            let file = try Connection(storageLocation: .onDisk(directory.path("copy.sqlite")))
            #expect(try DatabaseSnapshot(file) == DatabaseSnapshot(connection), "journal mode \(mode) as a file")
        }
    }

    @Test func generatedContentRoundTripsThroughSerialize() async throws {
        try await onOwnThread {
            try PropertyCheck.run("serialize round trip", cases: 15) { random in
                let directory = try TemporaryDirectory()
                let connection = try Connection(storageLocation: .onDisk(directory.path("db.sqlite")))
                let _: String? = try connection.query("PRAGMA journal_mode = \(random.pick(["WAL", "DELETE", "TRUNCATE", "MEMORY"]))")
                try connection.execute("CREATE TABLE t(a, b)")
                for _ in 0..<random.int(0...20) {
                    try connection.run("INSERT INTO t VALUES (?, ?)", Gen.value(&random, huge: true).bindable, Gen.value(&random).bindable)
                }
                let copy = try Connection(deserializing: try connection.serialize())
                try require(try DatabaseSnapshot(copy) == DatabaseSnapshot(connection), "content differs after deserialize")
            }
        }
    }
}
