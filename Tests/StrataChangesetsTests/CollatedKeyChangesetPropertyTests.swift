import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataChangesets

/// Keys renamed to ones their collation calls equal ('k' to 'K' under NOCASE, alone or in a
/// composite key, by UPDATE or by DELETE and INSERT): SQLite's session recorded the old row as an
/// UPDATE setting its key, which no apply accepts, and listed the new row's INSERT first. A
/// generated statement on a source database, its changeset applied to a copy (and its inverse
/// applied back), must reproduce the rows exactly.
@Suite struct CollatedKeyChangesetPropertyTests {
    static let schema = """
        CREATE TABLE t(k TEXT COLLATE NOCASE PRIMARY KEY, v);
        CREATE TABLE c(k TEXT COLLATE NOCASE, n INTEGER, v, PRIMARY KEY (k, n));
        CREATE TABLE u(id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE UNIQUE)
        """

    /// Every row with its exact bytes (hex), ordered by bytes.
    static func rows(_ db: Connection) throws -> [String] {
        try db.query("SELECT 't|' || hex(k) || '|' || typeof(v) || quote(v) FROM t") as [String]
            + db.query("SELECT 'c|' || hex(k) || '|' || n || '|' || quote(v) FROM c")
            + db.query("SELECT 'u|' || id || '|' || hex(name) FROM u")
    }

    static func sorted(_ db: Connection) throws -> [String] { try rows(db).sorted() }

    /// A source and a copy that hold the schema and `rows` of `t`, and the changeset of the
    /// source's rename of the key 'k' to 'K'.
    static func keyRenamedInCase(rows: String) throws -> (source: Connection, copy: Connection, changeset: Changeset) {
        let source = try Connection(storageLocation: .inMemory), copy = try Connection(storageLocation: .inMemory)
        for db in [source, copy] { try db.execute(schema + "; INSERT INTO t VALUES " + rows) }
        let session = try source.recordChanges(tables: ["t"])
        try source.execute("UPDATE t SET k = 'K' WHERE k = 'k'")
        let changeset = try session.changeset()
        session.close()
        return (source, copy, changeset)
    }

    @Test func aKeyRenamedOnlyInCaseIsRecordedAsADeleteAndAnInsert() throws {
        let (source, copy, changeset) = try Self.keyRenamedInCase(rows: "('k', 1), ('x', 2)")
        var operations: [String] = []
        try changeset.forEachChange { operations.append("\($0.operation)") }
        #expect(operations.sorted() == ["delete", "insert"], "\(operations)")
        try copy.apply(changeset) { _ in .abort }
        #expect(try Self.sorted(copy) == Self.sorted(source))
        try copy.apply(try changeset.inverted()) { _ in .abort }
        #expect(try copy.query("SELECT k FROM t ORDER BY k") as [String] == ["k", "x"])
    }

    @Test func aRenameAppliesInvertedThroughTheInvertOption() throws {
        let (_, copy, changeset) = try Self.keyRenamedInCase(rows: "('k', 1)")
        try copy.apply(changeset) { _ in .abort }
        try copy.apply(changeset, options: .invert) { _ in .abort }
        #expect(try copy.query("SELECT k || '=' || v FROM t") as [String] == ["k=1"])
    }

    /// Only INSERTs move: a DELETE and the UPDATEs its `ON DELETE SET NULL` made in the same
    /// table keep the session's order (a DELETE moved before them sets the children's parent to
    /// NULL itself, and the UPDATEs then meet rows not as they expect), so what applied before
    /// still applies.
    @Test func aDeleteAndTheUpdatesItsForeignKeyActionMadeKeepTheirOrder() throws {
        var appliedInSessionOrder = 0
        for attempt in 0..<12 {
            let schema = "PRAGMA foreign_keys = ON; CREATE TABLE n(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES n(id) ON DELETE SET NULL)"
            let source = try Connection(storageLocation: .inMemory), copy = try Connection(storageLocation: .inMemory)
            let rows = "INSERT INTO n VALUES (1, NULL), (\(100 + attempt), 1), (\(200 + attempt * 7), 1)"
            for db in [source, copy] { try db.execute(schema + "; " + rows) }
            let session = try source.recordChanges(tables: ["n"])
            try source.execute("DELETE FROM n WHERE id = 1")
            let changeset = try session.changeset()
            session.close()
            #expect(changeset.insertsLast().data == changeset.data, "no INSERT: nothing moves")
            var operations: [String] = []
            try changeset.forEachChange { operations.append("\($0.operation)") }
            // SQLite itself applies these only when the session listed the UPDATEs first.
            if operations.last == "delete" {
                try copy.apply(changeset) { _ in .abort }
                #expect(try Self.nodes(copy) == Self.nodes(source))
                appliedInSessionOrder += 1
            }
        }
        #expect(appliedInSessionOrder > 0, "no session listed the UPDATEs first")
    }

    static func nodes(_ db: Connection) throws -> [String] {
        try db.query("SELECT id || ':' || coalesce(parent, '-') FROM n ORDER BY id")
    }

    @Test func generatedRenamesApplyToACopyAndUndoExactly() throws {
        try PropertyCheck.run("collated key changesets", cases: 40) { random in
            let source = try Connection(storageLocation: .inMemory), copy = try Connection(storageLocation: .inMemory)
            let letters = ["a", "A", "b", "B", "é", "É", "ss", "SS"]
            var setup = Self.schema + ";"
            for index in 0..<random.int(1...6) {
                let key = random.pick(letters)
                setup += " INSERT OR IGNORE INTO t VALUES ('\(key)', \(index));"
                setup += " INSERT OR IGNORE INTO c VALUES ('\(key)', \(random.int(0...1)), \(index));"
                setup += " INSERT OR IGNORE INTO u VALUES (\(index), '\(key)');"
            }
            for db in [source, copy] { try db.execute(setup) }
            let before = try Self.sorted(source)
            let session = try source.recordChanges(tables: ["t", "c", "u"])
            // One statement a session: the session extension finds a row again by its key under
            // the collation, so a session that sees a key renamed twice (or replaced by an INSERT
            // OR REPLACE of an equal key) loses track of the old row; see WhatIsSynced.
            do {
                let from = random.pick(letters), to = random.pick(letters), value = random.int(-3...3)
                let statements = [
                    "UPDATE OR IGNORE t SET k = '\(to)' WHERE k = '\(from)'",
                    "UPDATE OR IGNORE c SET k = '\(to)' WHERE k = '\(from)'",
                    "DELETE FROM t WHERE k = '\(from)'; INSERT OR IGNORE INTO t VALUES ('\(to)', \(value))",
                    "UPDATE t SET v = \(value) WHERE k = '\(from)'",
                    "UPDATE OR IGNORE u SET name = '\(to)' WHERE name = '\(from)'",
                    "DELETE FROM u WHERE name = '\(from)'; INSERT OR IGNORE INTO u VALUES (\(value + 100), '\(from)')"
                ]
                try source.execute(random.pick(statements))
            }
            let changeset = try session.changeset()
            session.close()
            try copy.apply(changeset) { _ in .abort }
            let applied = try Self.sorted(copy), expected = try Self.sorted(source)
            try require(applied == expected, "the copy differs from the source: \(applied) vs \(expected)")
            try copy.apply(try changeset.inverted()) { _ in .abort }
            let undone = try Self.sorted(copy)
            try require(undone == before, "the inverse did not restore the rows: \(undone) vs \(before)")
        }
    }
}
