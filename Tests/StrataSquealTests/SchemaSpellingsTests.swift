import Foundation
import Testing
import StrataSqueal

// Squeal 1.2's public schema-DSL spellings that its own specs use: the variadic `column` and
// `addColumn`, dropping a constraint by its clause or all of them, the `version[table]` and
// `table[column]` subscripts, `indexNames`/`indexNamed`, and a constraint's `clause`/`definition`.

@Suite struct SchemaSpellingsTests {
    private func catalogue() -> Schema {
        Schema { s in
            s.version(1) { v in
                v.createTable("items") { t in
                    t.primaryKey("id")
                    t.column("title", .Text, "NOT NULL", "DEFAULT ''")
                    t.column("price", .Real)
                    t.constraint("CHECK (price >= 0)", named: "non_negative")
                    t.constraint("UNIQUE (title)")
                }
                v.createIndex("items_price", on: "items", columns: ["price"])
            }
            s.version(2) { v in
                v.alterTable("items") { t in
                    t.addColumn("note", .Text, "NOT NULL", "DEFAULT 'none'")
                    t.dropConstraint("UNIQUE (title)")
                }
            }
            s.version(3) { v in
                v.alterTable("items") { t in t.dropAllConstraints() }
            }
        }
    }

    @Test func variadicColumnsAndSubscriptsDescribeTheDeclaredTable() throws {
        let schema = catalogue()
        let first = try #require(schema.versionNumbered(1))
        let items = try #require(first["items"])
        #expect(items.columnNames == ["id", "title", "price"])
        #expect(items["title"]?.constraints == ["NOT NULL", "DEFAULT ''"])
        #expect(items["price"]?.constraints == [])
        #expect(items.constraints.map(\.clause) == ["CHECK (price >= 0)", "UNIQUE (title)"])
        #expect(items.constraints.map(\.definition) == [#"CONSTRAINT "non_negative" CHECK (price >= 0)"#, "UNIQUE (title)"])
        #expect(first.indexNames == ["items_price"])
        #expect(first.indexNamed("items_price")?.columns == ["price"])
        #expect(first.containsIndexNamed("items_price"))
        #expect(!first.containsIndexNamed("nope"))
        #expect(first["nope"] == nil)

        #expect(schema.versionNumbered(2)?["items"]?.constraints.map(\.clause) == ["CHECK (price >= 0)"])
        #expect(schema.versionNumbered(2)?["items"]?["note"]?.constraints == ["NOT NULL", "DEFAULT 'none'"])
        #expect(schema.versionNumbered(3)?["items"]?.constraints.isEmpty == true)
    }

    @Test func droppingConstraintsByClauseAndAllMigratesUpAndDownKeepingRows() throws {
        let schema = catalogue()
        let db = Database()
        _ = try schema.migrate(db, toVersion: 1)
        _ = try db.insertInto("items", values: ["title": "pen", "price": 2.5])
        #expect(throws: SQLiteError.self) { try db.insertInto("items", values: ["title": "pen", "price": 1.0]) }

        _ = try schema.migrate(db, toVersion: 2)
        // UNIQUE (title) is gone, the CHECK stays; the new column filled existing rows.
        _ = try db.insertInto("items", values: ["title": "pen", "price": 1.0])
        #expect(throws: SQLiteError.self) { try db.insertInto("items", values: ["title": "ink", "price": -1.0]) }
        let notes: [String] = try db.selectAll("SELECT note FROM items ORDER BY id") { $0.stringValue("note") ?? "" }
        #expect(notes == ["none", "none"])

        _ = try schema.migrate(db, toVersion: 3)
        _ = try db.insertInto("items", values: ["title": "ink", "price": -1.0])
        #expect(try db.countFrom("items") == 3)
        #expect(db.schema.indexNames.contains("items_price"))

        // Down to 2 restores the CHECK, so the negative price must go first.
        _ = try db.deleteFrom("items", whereExpr: "price < 0")
        _ = try schema.migrate(db, toVersion: 2)
        #expect(throws: SQLiteError.self) { try db.insertInto("items", values: ["title": "ink", "price": -1.0]) }
        #expect(try db.countFrom("items") == 2)
    }

    @Test func droppingAnUndeclaredClauseIsADeclarationError() {
        let schema = Schema { s in
            s.version(1) { v in
                v.createTable("t") { t in t.primaryKey("id") }
            }
            s.version(2) { v in
                v.alterTable("t") { t in t.dropConstraint("UNIQUE (id)") }
            }
        }
        let db = Database()
        #expect(throws: SchemaMigrationError.self) { try schema.migrate(db) }
        #expect((try? db.queryUserVersionNumber()) == 0)
    }
}
