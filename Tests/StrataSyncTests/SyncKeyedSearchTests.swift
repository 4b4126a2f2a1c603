import Foundation
import StrataSQift
import Strata
import StrataSync
import Testing

/// A full-text index over a synced table (TEXT keys) through a key map: rows a pull brings are
/// indexed, changed and removed like local writes, under ids that are the replica's own.
@Suite struct SyncKeyedSearchTests {
    @Test func pulledRowsReachAKeyedIndex() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let schema = "CREATE TABLE note(id TEXT PRIMARY KEY, body TEXT)"
        try hub.createSpace("notes") { try $0.execute(schema) }
        func replica(_ name: String, indexed: Bool) throws -> SyncReplica {
            let database = try Database(path: folder.path(name + ".sqlite"))
            try database.executeWrite { db in
                try db.execute(schema)
                if indexed {
                    try db.createFTS5Table("note_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "note", key: "id")))
                }
            }
            return try SyncReplica(database: database, replicaID: name, space: "notes", tables: ["note"], transport: InProcessSyncTransport(hub: hub))
        }
        let writer = try replica("writer", indexed: false)
        let reader = try replica("reader", indexed: true)
        func matches(_ word: String) async throws -> [String] {
            try await reader.database.read { db in
                try db.query(
                    literal: """
                        SELECT m."key" FROM note_fts JOIN note_fts_keys AS m ON m.strata_fts_id = note_fts.rowid
                        WHERE note_fts MATCH \(word) ORDER BY m."key"
                        """)
            }
        }
        try await writer.write { db in
            for (id, body) in [("b-2", "spice trade"), ("a-1", "salt roads"), ("c-3", "spice and salt")] {
                try db.run("INSERT INTO note VALUES (?, ?)", id, body)
            }
        }
        try await syncInTurn(writer, reader)
        #expect(try await matches("spice") == ["b-2", "c-3"])
        #expect(try await matches("salt") == ["a-1", "c-3"])
        try await writer.write { db in
            try db.run("UPDATE note SET body = 'pepper' WHERE id = 'c-3'")
            try db.run("DELETE FROM note WHERE id = 'a-1'")
        }
        try await syncInTurn(writer, reader)
        #expect(try await matches("spice") == ["b-2"])
        #expect(try await matches("salt").isEmpty)
        #expect(try await matches("pepper") == ["c-3"])
        try await reader.database.write { db in
            try db.execute("INSERT INTO note_fts(note_fts, rank) VALUES ('integrity-check', 1)")
            let mapped: [String] = try db.query("SELECT \"key\" FROM note_fts_keys ORDER BY \"key\"")
            #expect(mapped == ["b-2", "c-3"])
        }
    }
}
