import Foundation
import StrataSQift
import Strata
import StrataRecords
import Testing

@Record(table: "kc_parent") struct KeyClassParent: Equatable {
    @PrimaryKey var id: Int64?
    var name: String
}

@Record(table: "kc_text_child") struct KeyClassTextChild: Equatable {
    @PrimaryKey var id: Int64?
    var parentId: String
    var label: String
}

@Record(table: "kc_text_parent") struct KeyClassTextParent: Equatable {
    @PrimaryKey var code: String
    var name: String
}

@Record(table: "kc_int_child") struct KeyClassIntChild: Equatable {
    @PrimaryKey var id: Int64?
    var parentCode: Int64
    var label: String
}

extension KeyClassParent { static let textChildren = hasMany(KeyClassTextChild.self, using: \.parentId) }
extension KeyClassTextParent { static let intChildren = hasMany(KeyClassIntChild.self, using: \.parentCode) }

/// A foreign key stored in another storage class than the key it references: SQLite matches them
/// through the column's affinity, and `including(all:)` attaches the children SQLite returned
/// (it dropped them: they were grouped under `'1'` and looked up under `1`).
@Suite struct AssociationKeyClassTests {
    @Test func aTextForeignKeyMeetsAnIntegerKey() throws {
        let db = try Connection()
        try db.execute(
            """
            CREATE TABLE kc_parent(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE kc_text_child(id INTEGER PRIMARY KEY, parentId TEXT NOT NULL, label TEXT NOT NULL);
            INSERT INTO kc_parent VALUES (1, 'one'), (2, 'two'), (3, 'three');
            INSERT INTO kc_text_child(parentId, label) VALUES ('1', 'a'), ('2', 'b'), ('1', 'c'), ('9', 'orphan');
            """)
        #expect(try db.query("SELECT count(*) FROM kc_text_child WHERE parentId IN (SELECT id FROM kc_parent)") as Int64? == 3)
        let shelves = try KeyClassParent.including(all: KeyClassParent.textChildren).fetchAll(db)
        #expect(shelves.map(\.0.name) == ["one", "two", "three"])
        #expect(shelves.map { $0.1.map(\.label) } == [["a", "c"], ["b"], []])
        #expect(!db.isInTransaction)
    }

    @Test func anIntegerForeignKeyMeetsATextKey() throws {
        let db = try Connection()
        try db.execute(
            """
            CREATE TABLE kc_text_parent(code TEXT PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE kc_int_child(id INTEGER PRIMARY KEY, parentCode INTEGER NOT NULL, label TEXT NOT NULL);
            INSERT INTO kc_text_parent VALUES ('7', 'seven'), ('x', 'ex');
            INSERT INTO kc_int_child(parentCode, label) VALUES (7, 'a'), (7, 'b');
            """)
        let shelves = try KeyClassTextParent.including(all: KeyClassTextParent.intChildren).order(by: \.name).fetchAll(db)
        #expect(shelves.map(\.0.name) == ["ex", "seven"])
        #expect(shelves.map { $0.1.map(\.label) } == [[], ["a", "b"]])
    }
}
