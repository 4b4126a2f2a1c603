import Foundation
import StrataSQift
import Strata
import Testing

/// SQLite 3.40's session extension cannot record a table with a generated column: every
/// changeset fails with SQLITE_SCHEMA ("database schema has changed"). Strata names the table
/// and the reason instead, and records such tables where the linked SQLite can.
@Suite struct GeneratedColumnSessionTests {
    @Test func aTableWithAGeneratedColumnIsNamedWhereItCannotBeRecorded() throws {
        let connection = try Connection()
        try connection.execute("CREATE TABLE g(id INTEGER PRIMARY KEY, a INTEGER, twice INTEGER AS (a * 2)); CREATE TABLE plain(id INTEGER PRIMARY KEY, a)")
        let session = try connection.recordChanges()
        try connection.run("INSERT INTO g(id, a) VALUES (1, 2)")
        try connection.run("INSERT INTO plain VALUES (1, 2)")
        do {
            let changeset = try session.changeset()
            // A SQLite that records them: both tables are in the changeset.
            #expect(Set(try changeset.changes().map(\.table)) == ["g", "plain"])
        } catch let error as ChangesetError {
            #expect(error == .generatedColumnsUnsupported(table: "g"))
            #expect(error.description.contains("generated columns"))
        }
        // A session on the other table alone records it.
        let plainOnly = try connection.recordChanges(tables: ["plain"])
        try connection.run("UPDATE plain SET a = 3")
        #expect(try plainOnly.changeset().changes().count == 1)
    }
}
